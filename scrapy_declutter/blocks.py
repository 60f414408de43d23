"""Blocks: the boxes of text a page is split into, their features and labels.

A Block is what a browser lays out as one box of text (the jusText seed's
segmentation). Every feature the steps read is a field here, computed once by
the segmentation walk (``segment``), so steps never rebuild text or re-walk
the tree. This module holds the data and the helpers every part shares (the
labels, the id/class tokeniser, subtree prefixes); the walk that makes Blocks
lives in ``segment``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple

from .structure import PLAIN, Structure

CONTENT = "content"
BOILERPLATE = "boilerplate"
#: A reader comment left out of the text (the learned step with ``include_comments=False``):
#: not content, but not chrome either, so a caller can put it back.
COMMENT = "comment"
LABELS = (CONTENT, BOILERPLATE, COMMENT)

HEADING_TAGS = frozenset("h1 h2 h3 h4 h5 h6".split())

#: A token of an id or class name: a letter, then letters or digits.
_NAME_TOKEN = re.compile(r"[a-z][a-z0-9]+")


def name_tokens(name: str) -> list[str]:
    """Tokens of one id or class name, in order: ``post-content__body`` → post, content, body.

    The one rule for turning id/class names into words. Programmers name boxes
    for what they hold, and compound names (``post-content__body``) repeat the
    words that carry across sites; ``h2``, ``col12`` stay whole, one-letter
    pieces are dropped. A token never spans two names.
    """
    return _NAME_TOKEN.findall(name.lower())


def class_tokens(ident: str, classes: tuple[str, ...]) -> set[str]:
    """The tokens of an element's id and classes."""
    return set().union(*map(name_tokens, (ident, *classes)))


class Ancestor(NamedTuple):
    """Tag, id and class of one element on the path from the root to a block.

    A NamedTuple rather than a frozen dataclass: one is made for every
    element above a block, and a tuple is built several times faster.
    """

    tag: str
    id: str
    classes: tuple[str, ...]

    @property
    def selector(self) -> str:
        """``div#main.post``: the element as a CSS selector names it (the inspect report's
        tag path, and site learning's places, read the same form)."""
        return self.tag + (f"#{self.id}" if self.id else "") + "".join(f".{c}" for c in self.classes)


@dataclass(frozen=True, slots=True)
class SiteReason:
    """Why site learning relabelled a block: the rule and the evidence it went on.

    A typed field rather than a note in a dict, so the inspect report and a
    caller read the same thing. ``rule`` is the deciding step's name
    (``site-template``, ``site-container``, ``site-ngram``, ``site-supervised``);
    ``pages`` is on how many of the site's ``of_pages`` pages the block's text
    (or its place and folded text) was seen, the template's evidence, or the
    container held the confident content, the container's; ``bits`` is the n-gram classifier's log-odds, keep
    over discard (its evidence).
    """

    rule: str
    pages: int = 0
    of_pages: int = 0
    bits: float = 0.0

    def describe(self) -> str:
        """One line for reports: what was seen, or what the classifier said."""
        if self.rule.endswith("template"):
            return f"{self.rule}: text seen on {self.pages} of the site's {self.of_pages} pages"
        if self.rule.endswith("container"):
            return (f"{self.rule}: an unsure block settled by the site's content container "
                    f"(seen on {self.pages} of the site's {self.of_pages} pages)")
        if self.rule.endswith("ngram"):
            return f"{self.rule}: the site's n-gram classifier, {self.bits:+.1f} bits keep over discard"
        return f"{self.rule}: labelled by the user's selector or markers"


@dataclass(slots=True, eq=False)
class Block:
    """One box of text with its features and its current label.

    ``label``/``score``/``step`` say what the last deciding step thought;
    ``trail`` keeps every (step, label) decision in order, like jusText's
    ``cf_class``/``class_type`` pair, for the block-labels output and reports.
    It is a tuple, replaced at each decision: a tuple of strings is one object
    the garbage collector stops tracking, where a list per block was one more
    object for every full collection to walk while pages are in flight.
    The optional fields at the end are set only by the step or command named
    in their comment, and stay None otherwise.
    """

    index: int
    text: str
    tag: str
    xpath: str
    ancestors: tuple[Ancestor, ...]
    words: int
    link_words: int
    text_chars: int
    markup_chars: int
    tag_count: int
    link_density: float
    text_density: float
    char_density: float
    wrapped_lines: int
    #: Characters of link text, counted as jusText counts them (link texts joined).
    link_chars: int = 0
    #: Words that are stop words of the page's language once punctuation is ignored.
    stopwords: int = 0
    #: Words that are stop words as they stand (``the,`` is not one): jusText's count.
    bare_stopwords: int = 0
    stopword_density: float = 0.0
    position: float = 0.0
    label: str = BOILERPLATE
    score: float = 0.0
    step: str | None = None
    trail: tuple[tuple[str, str], ...] = ()
    #: jusText's classes (``steps.justext``): context-free (good, near-good, short,
    #: bad) and final (good, bad), the finer labels its paper reports.
    cf_class: str | None = None
    justext_class: str | None = None
    #: What the site model says of the block, set by ``inspect --store`` for its
    #: report's charts: on how many of the site's pages its text was seen, and the
    #: site's n-gram classifier's log-odds (keep over discard, in bits).
    site_fingerprint_pages: int | None = None
    ngram_log_odds: float | None = None
    #: Heading level, list item, table cell, code block and quote the block is in.
    structure: Structure = PLAIN
    #: Inside ``<pre>``: the text with its newlines and indentation ("" elsewhere;
    #: ``text`` is always whitespace-normalised, as every feature reads it).
    preformatted: str = ""
    #: (anchor text, href) of the block's links, in order; hrefs as written.
    links: tuple[tuple[str, str], ...] = ()
    #: (alt text, src) of the block's images, in order; ``data:`` URIs left out.
    images: tuple[tuple[str, str], ...] = ()
    #: The block's own element says it is not shown: a ``hidden`` attribute, or an inline
    #: style of ``display: none`` or ``visibility: hidden`` (``style_hides``). Only
    #: ``learned`` reads it (``leftout.without_hidden``); no step's features do.
    hidden: bool = False
    #: Set by the site step when site learning relabelled the block (None otherwise).
    site_reason: SiteReason | None = None

    @property
    def is_content(self) -> bool:
        return self.label == CONTENT

    @property
    def is_heading(self) -> bool:
        return self.tag in HEADING_TAGS

    def set_label(self, label: str, score: float, step: str) -> None:
        """Record a step's decision (Java ``setIsContent``), and add it to the trail."""
        if label not in LABELS:
            raise ValueError(f"label must be one of {LABELS}, not {label!r}")
        self.label, self.score, self.step = label, float(score), step
        self.trail = (*self.trail, (step, label))

    def tokens(self) -> list[str]:
        """Id/class tokens (``name_tokens``) of the block's ancestors and element, root first."""
        return [t for a in self.ancestors for name in (a.id, *a.classes) for t in name_tokens(name)]

    def as_dict(self) -> dict[str, Any]:
        """The block in plain JSON types, as it lands on items and in ``--json`` output."""
        return {
            "index": self.index,
            "text": self.text,
            "tag": self.tag,
            "xpath": self.xpath,
            "label": self.label,
            "score": round(self.score, 4),
            "step": self.step,
            "words": self.words,
            "link_density": round(self.link_density, 4),
            "text_density": round(self.text_density, 4),
        }


def style_hides(style: str | None) -> bool:
    """Whether an inline ``style`` hides its element: a ``display: none`` or
    ``visibility: hidden`` declaration, in any case, spacing or ``!important``.

    Declarations are read one by one, so ``--display: none`` or a ``none`` in
    another property's value does not count.
    """
    if not style:
        return False
    style = style.lower()
    if "none" not in style and "hidden" not in style:  # most styles: one scan
        return False
    for declaration in style.split(";"):
        prop, _, value = declaration.partition(":")
        value = value.split("!", 1)[0].strip()
        if (prop.strip(), value) in _HIDING:
            return True
    return False


#: (property, value) pairs of an inline style that hide an element.
_HIDING = frozenset({("display", "none"), ("visibility", "hidden")})


def subtree_prefixes(xpaths: Iterable[str]) -> tuple[str, ...]:
    """Prefixes that tell, in one C call, whether a block lies in one of these elements:
    ``(block.xpath + "/").startswith(prefixes)`` is true when the block's path equals
    one of ``xpaths`` or runs below it (``/div[1]`` holds ``/div[1]/p``, not ``/div[10]``).
    """
    return tuple(xpath + "/" for xpath in xpaths)
