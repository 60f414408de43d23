"""Keep the heading that titles the content.

A page's ``<h1>`` is the title of what the reader came for, yet a classifier
trained on WCXB (whose ``main_content`` leaves titles out) learns to drop it:
the Python tutorial lost its chapter titles this way. This step puts back the
first ``<h1>`` whose text is the page's title (``<title>`` with or without the
site's name around it, or ``og:title``) when the content starts right after it
(Boilerpipe's ExpandTitleToContentFilter has the same idea: the title belongs
to the content that follows it). Nothing else changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lxml import etree

from ..blocks import CONTENT
from ..page import TREE_FACTS
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: Blocks and words that may sit between the title and the content (byline, date, share links).
MAX_GAP_BLOCKS = 6
MAX_GAP_WORDS = 30


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


class TitleHeading(Step):
    """Label content the ``<h1>`` that titles the content right after it."""

    name = "title"

    def process(self, page: "Page") -> None:
        blocks = page.blocks
        og_title: str | None = None
        for i, block in enumerate(blocks):
            if block.structure.heading != 1:
                continue
            if og_title is None:
                og_title = _og_title(page)
            if not (titles_match(block.text, page.title) or titles_match(block.text, og_title)):
                continue
            if block.is_content:
                return
            gap_words = 0
            for nxt in blocks[i + 1 : i + 2 + MAX_GAP_BLOCKS]:
                if nxt.is_content:
                    block.set_label(CONTENT, max(block.score, 0.5), self.name)
                    return
                gap_words += nxt.words
                if gap_words > MAX_GAP_WORDS:
                    break
            return

