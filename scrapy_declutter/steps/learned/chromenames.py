"""Boxes whose id or class names them chrome: the last rule of ``leftout``, on articles.

An article's page puts its related stories, share bars, galleries' caption
lists, comment threads and sponsored boxes beside the story, and names the
boxes for what they hold (``related-posts``, ``social-share``, ``legends``,
``ai2html``). Their text often reads like the story (a related story's
dek, a gallery caption, a reader's comment) and the classifier keeps it;
the names say plainly that it is not the story.

The names are Mozilla Readability's ``unlikelyCandidates`` (a list drawn
over years of articles, before any data here), matched as it matches them:
a substring of the element's classes and id, unless they also hold one of
its ``okMaybeItsACandidate`` names (``article``, ``content``, ``main``,
``column``, ``body``, ``shadow``, ``and``), never on ``<html>``, ``<body>``
or a link, and never for text in a table or code (old sites lay the whole
page out in a table whose cells carry such names). Four of Readability's
names are left out because they cost F1 out of fold: ``community``,
``header``, ``menu`` (every fold) and ``footer`` (four of five). A box named
``SidebarLayout`` or ``page-header`` that wraps the whole story is why two
guards stay: the rule leaves the page its kept text when what is left is
under ``MIN_LEFT_CHARS`` (Readability's own retry without the names) or
under ``MIN_LEFT_SHARE`` of the kept words (WCXB-dev 2684, a tutorial inside
``SidebarLayout``: F1 0.997 -> 0.113 without it).

Only on pages the page-type classifier calls articles: on listings,
products and forums a box named ``replies``, ``popup`` or ``extra`` holds
the page's items (a forum's replies are its content). Blocks left out in a
comment box are still told apart by the comment model, so
``include_comments`` keeps a reader's comment either way.

Chosen out of fold on the six training sets (the eleventh session's fold
models), each name kept or not on four domain folds and applied to the
fifth: Readability F1 0.9519 -> 0.9586 (precision 0.9590 -> 0.9683; the
independent.co.uk gallery's 50 captions, the ai2html chart labels, a
related list), L3S-GN1 F1 0.9695 -> 0.9707, WCXB-dev precision 0.8770 ->
0.8779 (F1 +0.0001; 41 pages changed, 26 up), CleanEval F1 +0.0002,
sites-dev unchanged, trafilatura-eval's without-rate 0.9113 -> 0.9154
(with-rate 0.9515 -> 0.9512).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

import numpy as np

from ...blocks import Block
from ...segment import in_reference_walk

try:
    from . import _chains as _compiled
except ImportError:  # built without a compiler: ``python_in_chrome_boxes``, the reference
    _compiled = None

_CHROME_WORDS = ("-ad-|ai2html|banner|breadcrumbs|combx|comment|cover-wrap|disqus|extra|gdpr|legends|"
                 "related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|"
                 "ad-break|agegate|pagination|pager|popup|yom-remote")
_CONTENT_WORDS = "and|article|body|column|content|main|shadow"
#: Readability's ``unlikelyCandidates`` without ``community``, ``footer``, ``header``, ``menu``.
CHROME_NAMES = re.compile(_CHROME_WORDS, re.IGNORECASE)
#: Readability's ``okMaybeItsACandidate``: a name that holds one of these is not chrome.
CONTENT_NAMES = re.compile(_CONTENT_WORDS, re.IGNORECASE)


def _by_first_letter(words: str) -> str:
    """``a|b|...`` as one alternative per first character (``r(?:elated|ss)|...``): the
    same matches, but the search tries one branch per character of the names where the
    flat list tries every name (0.6x the time on WCXB-dev's names)."""
    rests: dict[str, list[str]] = {}
    for word in words.split("|"):
        rests.setdefault(word[0], []).append(re.escape(word[1:]))
    return "|".join(re.escape(first) + (f"(?:{'|'.join(tails)})" if len(tails) > 1 else tails[0])
                    for first, tails in rests.items())


# The same, for lower-cased ASCII names: a case-blind search folds every character
# against every name at every place, ten times the cost of a lower() and a plain search
# (4 M instructions a page, 8% of extract(), when asked of each new box's names).
_CHROME_LOWER = re.compile(_by_first_letter(_CHROME_WORDS))
_CONTENT_LOWER = re.compile(_by_first_letter(_CONTENT_WORDS))
#: Elements never taken for a chrome box, whatever their names.
NEVER_BOXES = frozenset({"html", "body", "a"})
#: Text under one of these stays: layout tables and code name their cells and spans freely.
EXEMPT_TAGS = frozenset({"table", "pre", "code"})
_CHROME, _EXEMPT = 1, 2  # what ``in_chrome_boxes`` knows of a depth's elements so far
#: The rule leaves the kept blocks as they were when what is left holds fewer characters ...
MIN_LEFT_CHARS = 500
#: ... or less than this share of the kept words: the named box wrapped the story.
MIN_LEFT_SHARE = 0.1


def without_chrome_boxes(blocks: Sequence[Block], keep: np.ndarray,
                         words: np.ndarray) -> np.ndarray:
    """``keep`` without the kept blocks inside a box named chrome (``in_chrome_boxes``),
    unless what is left is a sliver (``MIN_LEFT_CHARS``, ``MIN_LEFT_SHARE``)."""
    drop = in_chrome_boxes(blocks, np.flatnonzero(keep).tolist())
    if not drop:
        return keep
    out = keep.copy()
    out[drop] = False
    if (sum(len(blocks[i].text) for i in np.flatnonzero(out).tolist()) < MIN_LEFT_CHARS
            or float(words[out].sum()) < MIN_LEFT_SHARE * float(words[keep].sum())):
        return keep
    return out


def in_chrome_boxes(blocks: Sequence[Block], rows: list[int]) -> list[int]:
    """Those of ``rows`` (in page order) whose block has, among its elements (its own and
    those above), one named chrome (``names_chrome``) and none that is a table or code.

    The compiled ``_chains.chrome_rows`` where the package was built with a compiler,
    else (and inside ``segment.reference_walk()``) ``python_in_chrome_boxes``, its
    reference: the same walk, the same rows.
    """
    if _compiled is None or in_reference_walk():
        return python_in_chrome_boxes(blocks, rows)
    return _compiled.chrome_rows(blocks if isinstance(blocks, list) else list(blocks), rows,
                                 names_chrome, EXEMPT_TAGS, NEVER_BOXES, _CHROME, _EXEMPT)


def python_in_chrome_boxes(blocks: Sequence[Block], rows: list[int]) -> list[int]:
    """``in_chrome_boxes`` in Python, the reference of the compiled walk.

    An article keeps a hundred blocks under a dozen elements each, and asking each
    element's names cost 0.4 ms a page. A block's elements above it are the objects its
    previous kept block has as far as their paths agree (the walks make one ``Ancestor``
    per element), so what those said is kept per depth and only the elements below where
    the two paths part are asked: one for a sibling of the block before.
    """
    found = []
    before: tuple = ()
    said: list[int] = []  # per depth: EXEMPT when under a table or code, else CHROME or 0
    for i in rows:
        path = blocks[i].ancestors
        size = len(path)
        if size == len(before) > 1 and path[-2] is before[-2]:
            depth = size - 1  # a sibling of the block before
        else:
            depth, most = 0, min(size, len(before))
            while depth < most and path[depth] is before[depth]:
                depth += 1
        del said[depth:]
        state = said[-1] if said else 0
        for a in path[depth:]:
            if state != _EXEMPT:
                if a.tag in EXEMPT_TAGS:
                    state = _EXEMPT
                elif not state and a.tag not in NEVER_BOXES and names_chrome(a.id, a.classes):
                    state = _CHROME
            said.append(state)
        before = path
        if state == _CHROME:
            found.append(i)
    return found


def in_chrome_box(block: Block) -> bool:
    """Whether one of the block's elements, its own or above, is named chrome
    (``names_chrome``) and none of them is a table or code: ``in_chrome_boxes`` for one
    block, the reference of both its walks."""
    ancestors = block.ancestors
    if any(a.tag in EXEMPT_TAGS for a in ancestors):
        return False
    return any(a.tag not in NEVER_BOXES and names_chrome(a.id, a.classes) for a in ancestors)


@lru_cache(maxsize=8192)
def names_chrome(ident: str, classes: tuple[str, ...]) -> bool:
    """Whether an element's classes and id (as Readability joins them) name chrome and not
    content. Remembered per (id, classes), as ``leftout.names_reviews``: a page's blocks
    share their boxes, and a site's pages their theme's names."""
    names = " ".join(classes) + " " + ident
    if names.isascii():  # lower() is then what the case-blind search folds to
        names = names.lower()
        return bool(_CHROME_LOWER.search(names)) and not _CONTENT_LOWER.search(names)
    return bool(CHROME_NAMES.search(names)) and not CONTENT_NAMES.search(names)
