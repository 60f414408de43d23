"""Caps that bound the time and memory one page may cost, and the checks that apply them.

A crawler meets pages no template was written for: 20 MB dumps, 200,000
table rows, documents nested 100,000 levels deep. Segmentation is linear in
the number of elements, but its constant is Python's, and a few operations
grow faster (lxml's ``getpath``, which the tree filter calls for every
block, counts the siblings at each level, so one parent with N children
costs N² in C; segmentation writes its paths from its own counts). Rather
than a wall-clock timeout, which cannot interrupt lxml's C code on a
worker thread, each page is measured before it is analysed and passed
through with a reason when it is over a cap. The defaults sit about three times above the largest of the 1,358
real pages of WCXB-dev (5.3 MB, 15,793 elements, 1,521 children of one
parent), so no ordinary page is refused.

Every check returns a *reason*: an empty string when the page may be
analysed, else ``"<kind>: <detail>"``. The kind (``too_large`` ...) is what
Scrapy counts under ``declutter/rejected/<kind>``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from lxml import etree

from .sniff import sniff_binary, sniff_text

logger = logging.getLogger(__name__)

#: Bytes (or characters, for text) of HTML analysed; bigger pages are refused unparsed.
MAX_BYTES = 10 * 1024 * 1024
#: Elements in the parsed tree; segmentation time grows with them (about 50-90 µs each).
MAX_ELEMENTS = 50_000
#: Children of one element (200,000 sibling rows make the tree filter's ``getpath`` quadratic).
MAX_CHILDREN = 5_000
#: libxml2 stops parsing at this nesting depth (with ``huge_tree``) and drops the rest of the page.
PARSER_MAX_DEPTH = 2048

# Reason kinds: the first word of ``Result.reason``.
EMPTY = "empty"
NO_TEXT = "no_text"
TOO_LARGE = "too_large"
TOO_MANY_ELEMENTS = "too_many_elements"
TOO_WIDE = "too_wide"
TOO_DEEP = "too_deep"
DAMAGED_HEAD = "damaged_head"
FRAMESET = "frameset"
#: The page is a JavaScript application's shell (``appshell``): its text is its embedded data's.
APP_SHELL = "app_shell"
ERROR = "error"


@dataclass(frozen=True)
class Limits:
    """The caps in force; pass a custom one by keyword (``Page.from_html(..., limits=...)``)."""

    max_bytes: int = MAX_BYTES
    max_elements: int = MAX_ELEMENTS
    max_children: int = MAX_CHILDREN

    def check_size(self, size: int) -> str:
        """Refuse a body longer than ``max_bytes`` before it is parsed."""
        if size > self.max_bytes:
            return f"{TOO_LARGE}: {size} bytes > {self.max_bytes}"
        return ""

    def check_input(self, html: str | bytes, content_type: str | None = None) -> str:
        """Refuse, before parsing, input that is too long, blank or binary."""
        reason = self.check_size(len(html))
        if reason:
            return reason
        if not html or html.isspace():
            return f"{EMPTY}: {'no bytes' if not html else 'only whitespace'}"
        if isinstance(html, str):  # text already decoded (by someone else) from a binary body?
            return sniff_text(html)
        return sniff_binary(html, content_type)

    def check_tree(self, root: etree._Element, *, elements: int | None = None,
                   widest: int | None = None) -> str:
        """Refuse a tree that would cost too much to segment, or that has no text of its own.

        ``count(//*)`` runs in C (a few ms per 10,000 elements), or is given as
        ``elements`` by a caller that counted them (``treefacts``); the widest
        parent is looked for only when the tree is big enough to have one
        over the cap, so ordinary pages pay one count, or is given as ``widest``
        (the most children of one element of ``root``'s tree) by a caller that
        counted them: the Python iteration over such a tree costs 1-2 ms.
        A tree the parser cut short gets a ``too_deep`` reason but may still be segmented.
        """
        if is_frameset(root):
            return f"{FRAMESET}: the text is in the frames' own documents"
        n = (int(root.xpath("count(//*)")) if elements is None else elements) + 1
        if n > self.max_elements:
            return f"{TOO_MANY_ELEMENTS}: {n} > {self.max_elements}"
        if n > self.max_children:
            if widest is None:
                widest = max(len(el) for el in root.iter())
            if widest > self.max_children:
                return f"{TOO_WIDE}: {widest} children of one element > {self.max_children}"
        depth = truncated_depth(root)
        if depth:
            return f"{TOO_DEEP}: nesting over {depth} levels, the parser dropped the rest"
        return ""


DEFAULT_LIMITS = Limits()


def truncated_depth(root: etree._Element) -> int:
    """The nesting depth at which libxml2 gave up on the page, or 0 when it did not.

    When a page nests deeper than ``PARSER_MAX_DEPTH`` the parser stops and
    the tree ends with the chain of elements that were open: the chain of
    last children from the root is then that long. Following it costs one
    step per level of an ordinary page (about 20).
    """
    el, depth = root, 0
    while len(el):
        el = el[-1]
        depth += 1
    return depth if depth >= PARSER_MAX_DEPTH - 1 else 0


def is_frameset(root: etree._Element) -> bool:
    """A ``<frameset>`` page has no text of its own: its frames are other documents."""
    return root.find("frameset") is not None


def empty_root() -> etree._Element:
    """The tree of a page that was not parsed: ``<html/>``."""
    return etree.fromstring("<html/>", etree.HTMLParser())


#: Reasons that are ordinary facts of a crawl, logged at INFO; the others warn.
QUIET_KINDS = frozenset({EMPTY, NO_TEXT, FRAMESET, APP_SHELL})
#: Reasons of pages that were analysed all the same, from a repaired reading of their text
#: (an app shell: from the data it embeds, if any).
BEST_EFFORT_KINDS = frozenset({TOO_DEEP, DAMAGED_HEAD, APP_SHELL})


def log_reason(url: str | None, reason: str) -> None:
    """Say, once per page, why it was passed through or only partly analysed."""
    if reason:
        kind = reason_kind(reason)
        level = logging.INFO if kind in QUIET_KINDS else logging.WARNING
        done = "reads %s as best it can" if kind in BEST_EFFORT_KINDS else "passes %s through"
        logger.log(level, f"scrapy_declutter {done}: %s", url or "<no url>", reason)


def reason_kind(reason: str) -> str:
    """The kind of a reason (``"too_large: 3 > 2"`` -> ``"too_large"``), the key of its stat."""
    return reason.split(":", 1)[0].strip()
