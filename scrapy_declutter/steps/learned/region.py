"""Where a page's text lives: the content region and the repeated boxes around it.

A page's main text is one subtree, or a few sibling subtrees of one kind
(Medium writes each section of a story as its own ``<div class="z ab">``).
What a reader calls boilerplate beside it is mostly other subtrees: lists of
related or latest headlines, teasers, comment threads. Block features alone
see a paragraph-sized teaser as a paragraph; these columns tell the
classifier where the block sits against the page's text:

- **the region**: the deepest element whose subtree holds at least half of
  the page's running text (words of blocks that read as prose: at least
  ``PROSE_MIN_WORDS`` words, link density under ``PROSE_MAX_LINKS``), widened
  to the siblings of the same tag and classes of it or of its nearest
  ancestors (``SIBLING_LEVELS``); whether a block is in it, before it or
  after it (comments and "more stories" come after), how far below its top,
  and whether it is in the larger element holding 80 %;
- **prose before and after** the block, as shares of the page's prose;
- (``features`` adds the dates and linked headings below the block's
  parent, grandparent and great-grandparent: headline lists carry a date
  per item and link each heading.)

Every element that holds half of the prose contains the block where the
cumulative prose crosses one half, so the region is found by walking up
from that one block, widening a contiguous span of blocks: linear in the
page, no tree access (the features are also computed after training has
dropped the tree).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...blocks import Block
from ...segment import in_reference_walk

try:
    from . import _columns
except ImportError:  # built without a compiler: the comprehensions below
    _columns = None

#: A block counts as prose from this many words ...
PROSE_MIN_WORDS = 8
#: ... when under this share of its words are link text.
PROSE_MAX_LINKS = 0.3
#: Characters per word of a text written without spaces (the length of an English word
#: and its space).
CHARS_PER_WORD = 6
#: Share of the page's prose the region holds, and the share the wider element around it holds.
REGION_SHARE = 0.5
WIDE_SHARE = 0.8
#: Tags that make a box of their own even without classes.
SECTION_TAGS = frozenset({"section", "article"})
#: The region takes in same-kind siblings of its element and of this many ancestors above it.
SIBLING_LEVELS = 2

REGION_NAMES = [
    "region_in", "region_before", "region_after", "region_log_depth", "region_wide",
    "prose_before", "prose_after",
]


def prose_words(words: np.ndarray, chars: np.ndarray, unspaced: np.ndarray,
                link_density: np.ndarray) -> np.ndarray:
    """Words of the blocks that read as prose, 0 for the others.

    Chinese and Japanese put no spaces between words, so their blocks
    (``unspaced``) count one word per ``CHARS_PER_WORD`` characters.
    """
    words = np.where(unspaced, np.maximum(words, chars / CHARS_PER_WORD), words)
    return np.where((link_density < PROSE_MAX_LINKS) & (words >= PROSE_MIN_WORDS), words, 0.0)


def region_columns(blocks: Sequence[Block], prose: np.ndarray, depth: np.ndarray,
                   ancestry: Sequence[tuple] | None = None) -> np.ndarray:
    """The ``REGION_NAMES`` columns of a page's blocks (``depth``: each block's XPath depth;
    ``ancestry``: their ``ancestors``, when the caller has gathered them). Made column by
    column in a (columns × blocks) array, whose transpose is returned: each column is
    then contiguous, for ``features`` to copy as a row of its own."""
    n = len(blocks)
    out = np.zeros((len(REGION_NAMES), n))
    total = float(prose.sum())
    if n == 0 or total <= 0:
        return out.T
    cum = np.cumsum(prose)
    np.divide(cum - prose, total, out=out[5])
    np.divide(total - cum, total, out=out[6])
    found = _region(blocks, cum, total)
    if found is not None:
        (lo, hi), wide, top = found
        idx = np.arange(n)
        inside = np.zeros(n, dtype=bool)
        inside[lo:hi + 1] = True
        inside |= _same_kind_siblings(blocks, depth, top, lo, ancestry)
        first, last = np.flatnonzero(inside)[[0, -1]]
        out[0] = inside
        out[1] = (idx < first) & ~inside
        out[2] = (idx > last) & ~inside
        out[3] = np.where(inside, np.log1p(np.maximum(depth - top, 0)), 0.0)
        out[4, wide[0]:wide[1] + 1] = 1.0
    return out.T


def _region(blocks: Sequence[Block], cum: np.ndarray, total: float):
    """Block spans of the region and of the wider element, and the region's XPath depth."""
    n = len(blocks)
    m = int(np.searchsorted(cum, REGION_SHARE * total))
    m = min(m, n - 1)
    steps = blocks[m].xpath.split("/")
    lo = hi = m
    region = wide = None
    compiled = _columns is not None and not in_reference_walk() and isinstance(blocks, list)
    # From the block's own element up to the root: spans only widen.
    for keep in range(len(steps), 1, -1):
        path = "/".join(steps[:keep])
        probe = path + "/"
        if compiled:
            lo, hi = _columns.widen(blocks, lo, hi, path)
        else:  # the reference of the compiled ``_columns.widen``
            while lo > 0 and _inside(blocks[lo - 1].xpath, path, probe):
                lo -= 1
            while hi < n - 1 and _inside(blocks[hi + 1].xpath, path, probe):
                hi += 1
        mass = cum[hi] - (cum[lo - 1] if lo else 0.0)
        if region is None and mass >= REGION_SHARE * total:
            region = ((lo, hi), keep - 1)
        if mass >= WIDE_SHARE * total:
            wide = (lo, hi)
            break
    if region is None:
        return None
    return region[0], wide or region[0], region[1]


def _inside(xpath: str, path: str, probe: str) -> bool:
    return xpath == path or xpath.startswith(probe)


def _same_kind_siblings(blocks: Sequence[Block], depth: np.ndarray, top: int,
                        inner: int, ancestry: Sequence[tuple] | None = None) -> np.ndarray:
    """Blocks under a sibling, with the same tag and classes, of the region's element (at
    XPath depth ``top`` above block ``inner``) or of one of its ``SIBLING_LEVELS`` nearest
    ancestors. A box without classes must be a ``<section>`` or an ``<article>``: bare
    ``<div>`` siblings are anything."""
    anc = blocks[inner].ancestors
    above = int(depth[inner]) - top
    # (XPath depth, box, its parent) of the element and of the ancestors looked at.
    kinds = []
    for up in range(SIBLING_LEVELS + 1):
        level = above + up
        if 0 <= level < len(anc) - 1:
            box = anc[-1 - level]
            if box.classes or box.tag in SECTION_TAGS:
                kinds.append((top - up, box, anc[-2 - level]))
    found = np.zeros(len(blocks), dtype=bool)
    if ancestry is None:
        ancestry = [b.ancestors for b in blocks]
    if _columns is not None and not in_reference_walk():
        depths = np.ascontiguousarray(depth, dtype=np.intp)
        for box_depth, box, parent in kinds:
            found |= _columns.same_kind(ancestry, depths, box_depth, box, parent)
        return found
    depths = depth.astype(np.intp).tolist()
    # One comprehension per kind of box (at most three) rather than a loop per block: the
    # reference of the compiled ``_columns.same_kind``.
    for box_depth, box, parent in kinds:
        tag, classes = box.tag, box.classes
        found |= np.array([
            0 <= (k := d - box_depth) < len(a) - 1 and a[-2 - k] is parent
            and (other := a[-1 - k]) is not box and other.tag == tag and other.classes == classes
            for a, d in zip(ancestry, depths)], dtype=bool)
    return found


def subtree_sums(level_ids: np.ndarray | list[list[int]], *values: np.ndarray) -> np.ndarray:
    """(levels × (values + 1) × blocks): per level and block, the sums of ``values`` over the
    subtree of that ancestor, then its blocks.

    A subtree's blocks are contiguous in document order, so its span runs
    from the first to the last block that names it as an ancestor at any of
    the levels looked at (``subtree_spans``); prefix sums then give its totals.
    One C loop (``_columns.subtree_sums``) where the package was built with a
    compiler, outside ``segment.reference_walk()``; else ``python_subtree_sums``.
    """
    ids = np.ascontiguousarray(level_ids, dtype=np.uint64)
    rows = np.array(values, dtype=np.float64).reshape(len(values), ids.shape[1])
    if _columns is not None and not in_reference_walk():
        return _columns.subtree_sums(ids, rows)
    return python_subtree_sums(ids, rows)


def python_subtree_sums(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``subtree_sums`` in NumPy: the reference of the compiled ``_columns.subtree_sums``."""
    first, last = python_subtree_spans(ids)
    prefix = [np.concatenate([[0.0], np.cumsum(v)]) for v in values]
    return np.array([[*(c[hi] - c[lo] for c in prefix), (hi - lo).astype(float)]
                     for lo, hi in zip(first, last)]).reshape(len(ids), len(values) + 1, ids.shape[1])


def python_subtree_spans(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(levels × blocks) first block and one past the last block naming the same ancestor
    as ``ids`` does there, at any level: the reference of the compiled ``_columns.subtree_spans``
    (which finds them with a hash table in C rather than sorting)."""
    n = ids.shape[1]
    keys, codes = np.unique(ids, return_inverse=True)
    codes = codes.reshape(ids.shape)
    first = np.full(len(keys), n, dtype=np.int64)
    last = np.full(len(keys), -1, dtype=np.int64)
    pos = np.broadcast_to(np.arange(n), codes.shape)
    np.minimum.at(first, codes.ravel(), pos.ravel())
    np.maximum.at(last, codes.ravel(), pos.ravel())
    return first[codes], last[codes] + 1
