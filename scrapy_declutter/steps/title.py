"""The headline rule: the heading that titles the content, and the standfirst under it.

The headline is the first ``<h1>`` whose text is the page's title (``<title>``
with or without the site's name around it, or ``og:title``). One rule decides
whether ``text`` starts with it (``in_text``; the default, ``IN_TEXT``, is the
choice that measured best over the data sets, see docs/results.md): out, it
is never content; in, it is content when the content follows it within a few
blocks (a standfirst, a byline, a date, share links, a picture's caption may
sit between; Boilerpipe's ExpandTitleToContentFilter has the idea: the title
belongs to the content that follows it). The Markdown starts with it either
way (``formats.markdown``), and ``metadata.title`` holds it. The standfirst
(the summary paragraph right under the headline) is article text, so it is
labelled content: a classifier that sees it beside bylines and dates in the
article's header leaves it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from lxml import etree

from ..blocks import BOILERPLATE, CONTENT, Block
from ..page import TREE_FACTS
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: Whether ``text`` starts with the headline unless asked otherwise (``title(in_text=...)``,
#: ``DECLUTTER_TITLE_IN_TEXT``).
IN_TEXT = False
#: Blocks and words that may sit between the headline and the content (standfirst, byline,
#: date, share links, a caption).
MAX_GAP_BLOCKS = 12
MAX_GAP_WORDS = 150
#: A standfirst: a paragraph of at least this many words, under this share of link words
#: and of words with a digit (a dateline is mostly numbers), not a byline.
STANDFIRST_MIN_WORDS = 8
STANDFIRST_MAX_LINK_DENSITY = 0.25
STANDFIRST_MAX_DIGIT_SHARE = 0.2


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def titles_match(heading: str, title: str) -> bool:
    """Whether ``heading`` is ``title``, or ``title`` is ``heading`` with a site name
    before or after it behind a separator ("Intro — Python 3.11 documentation")."""
    heading, title = _norm(heading), _norm(title)
    if len(heading) < 2 or not title:
        return False
    if heading == title:
        return True
    if title.startswith(heading):
        rest = title[len(heading):]
    elif title.endswith(heading):
        rest = title[: -len(heading)]
    else:
        return False
    # The rest must start (or end) with a separator ("—", "|", ":"), not more words.
    rest = rest.strip()
    edge = rest[0] if title.startswith(heading) else rest[-1]
    return not edge.isalnum()


def _og_title(page: "Page") -> str:
    """The first ``og:title`` meta's content, whitespace-normalised: ``walked_og_title``'s.

    The page's tree facts found it already (``page.TREE_FACTS``), in the walk right
    after the parse: where they were read from this root and the root is its
    document's only top-level element (the facts read every one, the walk the
    root's tree), theirs is the same answer without a walk of the cold tree.
    """
    facts = page.get(TREE_FACTS)
    if facts is not None and facts[0] is page.root and _alone(page.root):
        return " ".join((facts[1].og_title or "").split())
    return walked_og_title(page.root)


def walked_og_title(root: etree._Element) -> str:
    """The first ``og:title`` meta's content, as ``//meta[@property='og:title']/@content``
    finds it from ``root``'s tree; a walk over the ``<meta>`` elements costs a tenth of
    that XPath."""
    for el in root.getroottree().iter("meta"):
        if el.get("property") == "og:title":
            content = el.get("content")
            if content is not None:
                return " ".join(content.split())
    return ""


def _alone(root: etree._Element) -> bool:
    """Whether ``root`` is at the top of its document with no other element beside it."""
    return (root.getparent() is None and next(root.itersiblings(etree.Element), None) is None
            and next(root.itersiblings(etree.Element, preceding=True), None) is None)


def find_headline(blocks: Sequence[Block], titles: Sequence[str]) -> int | None:
    """The index of the headline among ``blocks``: the first level-1 heading whose text is
    one of ``titles`` (``titles_match``); None when no heading is."""
    titles = [t for t in titles if t]
    for i, block in enumerate(blocks):
        if block.structure.heading == 1 and any(titles_match(block.text, t) for t in titles):
            return i
    return None


def is_standfirst(block: Block) -> bool:
    """Whether a block under the headline reads as its summary paragraph: prose of some
    length, few links, not a byline, a dateline or a picture's caption."""
    s = block.structure
    if s.heading or s.list_depth or s.row >= 0 or block.tag == "figcaption":
        return False
    if block.words < STANDFIRST_MIN_WORDS or block.link_density > STANDFIRST_MAX_LINK_DENSITY:
        return False
    words = block.text.split()
    if words[0].casefold() == "by":
        return False
    return sum(any(c.isdigit() for c in w) for w in words) <= STANDFIRST_MAX_DIGIT_SHARE * len(words)


class TitleHeading(Step):
    """Label the headline per the rule (``in_text``) and the standfirst under it content."""

    name = "title"

    def __init__(self, *, in_text: bool = IN_TEXT) -> None:
        self.in_text = bool(in_text)

    def process(self, page: "Page") -> None:
        blocks = page.blocks
        if not any(b.structure.heading == 1 for b in blocks):
            return
        at = find_headline(blocks, (page.title, _og_title(page)))
        if at is None:
            return
        headline = blocks[at]
        if not self.in_text and headline.is_content:
            headline.set_label(BOILERPLATE, min(headline.score, 0.5), self.name)
        gap: list[Block] = []
        for nxt in blocks[at + 1 : at + 2 + MAX_GAP_BLOCKS]:
            if nxt.is_content:
                break
            gap.append(nxt)
            if sum(b.words for b in gap) > MAX_GAP_WORDS:
                return
        else:
            return  # no content follows close enough: the heading titles something else
        # The standfirst: the first prose under the headline (a picture's caption may come
        # first) and the paragraphs that continue it.
        started = False
        for nxt in gap:
            if is_standfirst(nxt):
                nxt.set_label(CONTENT, max(nxt.score, 0.5), self.name)
                started = True
            elif started or nxt.tag != "figcaption":
                break
        if self.in_text and not headline.is_content:
            headline.set_label(CONTENT, max(headline.score, 0.5), self.name)
