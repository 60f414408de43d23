"""Page-level decisions on top of per-block probabilities.

The classifier scores blocks one at a time (with their neighbours'
features); the text a reader wants is a run of blocks. A few small rules turn
probabilities into labels:

- smoothing: a block's probability is mixed with its neighbours' (a lone
  "boilerplate" sentence inside the article, a lone "content" teaser in a
  menu);
- the page's own cut: the per-type cut moves most of the way to where the
  page's word-weighted probabilities split in two (``page_cut``);
- headings: a heading just before kept content is kept when its own
  probability is not hopeless (section titles are short and look like chrome);
- never empty: a page where nothing passes keeps its most probable block,
  because an empty prediction scores zero against any non-empty reference
  (unless that block is too short to be a main text: ``MIN_CHARS`` below);
- collapse fallback: a page whose cut keeps a sliver of what its
  probabilities expect is cut again lower (``fill_cut``), by default on
  every page the page-type classifier does not call an article
  (``FALLBACK_TYPES``);
- small pages: a page of a few words keeps them all (``SMALL_PAGE``);
- no main text: a larger page whose kept blocks hold only a line of text keeps
  none (``MIN_CHARS``);
- left out: what the markup says a reader is not shown as the page's text
  (``<noscript>`` copies, reviews on product pages, responsive copies, form
  controls: ``leftout``).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Sequence

import numpy as np

from ...blocks import HEADING_TAGS, Block
from .leftout import left_out

#: Probability at or above which a block is content.
THRESHOLD = 0.5
#: Share of a block's smoothed probability taken from the mean of its two neighbours.
SMOOTHING = 0.0
#: A heading right before kept content is kept when its probability reaches this. Out of fold
#: on the six training sets (nested over the 5 domain folds; 0.15-0.5 tried, four folds chose
#: 0.3, one 0.35), 0.3 against the 0.15 before: precision up on every text set (Readability
#: +0.0011, L3S-GN1 +0.0008), trafilatura-eval's without-rate +0.0024 (with-rate -0.0010),
#: F1 +0.0006 on Readability, within 0.0001 elsewhere (353 pages changed, 211 up, 139 down).
HEADING_FLOOR = 0.3
#: A page has collapsed when what passes its cut holds under this share of the words its
#: probabilities expect to be content (the sum over its blocks of P(content) x words) ...
COLLAPSE_EXPECTED = 0.4
#: ... and under this share of all its words.
COLLAPSE_PAGE = 0.1
#: Page types (``page.page_type``) on which the learned step falls back on a collapsed page
#: unless told (``fallback=``): all but articles. On every page, out of fold it raised
#: WCXB-dev F1 0.853 -> 0.858 but took precision 0.862 -> 0.858 (results.md, "The collapse
#: fallback"), and L3S-GN1's and CleanEval's precision, all on pages called articles (a
#: short story on a long page looks collapsed: 10 pages of the six sets changed, 5 down).
#: On the other types the pages that collapse are product grids, listings and forum
#: threads: WCXB-dev F1 +0.005 (listing +0.034, collection +0.026, product +0.014) for
#: precision -0.002 and CleanEval's -0.0004 (25 pages changed, 21 up), no set's F1 down.
FALLBACK_TYPES = frozenset({"collection", "documentation", "forum", "listing", "product", "service"})
#: A page of fewer words than this keeps every block. Such a page (a test page, a stub, an
#: error message) has no room for chrome, and a reference that is the page itself scores
#: 0.33-0.67 F1 when a 1-3 word block is cut. Chosen on the out-of-fold probabilities of the
#: six training sets, nested over the 5 domain folds (5, 10, 20, 30, 50, 100 tried; four
#: folds chose 10, one 5; from 50 up it costs Readability and CleanEval precision).
SMALL_PAGE = 10
#: A page of ``SMALL_PAGE`` words or more whose kept blocks hold fewer characters than this
#: keeps none: what passes is no main text but what is left of a page that has none in its
#: HTML (a script-rendered shop's "I'm shopping for...", a grid filled by script, a consent
#: wall). Characters, not words: a Japanese story has few spaces. jusText behaves so too (a
#: page without one long paragraph gives nothing). The references agree: WCXB-dev's are empty
#: for 21 of its 1,358 pages, CleanEval's for 7 of 739, and an empty output scores 1 there,
#: any other 0. Chosen on the out-of-fold probabilities of the six training sets, nested over
#: the 5 domain folds (30-200 tried; four folds chose 130, one none): WCXB-dev F1 0.8684 ->
#: 0.8720 (five pages), CleanEval +0.001 (two pages up, two down), trafilatura-eval's
#: with-rate -0.0014 (one page), the other sets unchanged. 0 turns the rule off.
MIN_CHARS = 130
#: Share of the way the cut moves from the per-type cut to the page's two-means split
#: (``page_cut``). Out of fold on the six training sets, nested over the 5 domain folds, against
#: Otsu's split, the largest gap near the cut (0.1-0.3 away) and 0.25-1 of each: four folds
#: chose 0.75 of two-means, one 0.5. Against the per-type cut alone: WCXB-dev F1 0.862 ->
#: 0.866 (collection +0.014, listing +0.015, forum +0.008, product +0.003) for precision
#: 0.868 -> 0.865; Readability precision 0.9401 -> 0.9410, CleanEval +0.002, trafilatura-eval's
#: with-rate +0.003; L3S-GN1 precision -0.0007, F1 -0.0007, sites-dev unchanged.
ADAPT = 0.75
#: Iterations of the two-means split at most (it settles in a few).
TWO_MEANS_ROUNDS = 20
#: Reads a block's word count (``map`` over the blocks, no generator step each).
_WORDS = attrgetter("words")


def smooth(probs: np.ndarray, weight: float) -> np.ndarray:
    """Mix each probability with the mean of its neighbours' (edges use the one they have)."""
    if weight <= 0 or len(probs) < 2:
        return probs
    padded = np.concatenate([probs[:1], probs, probs[-1:]])
    neighbours = (padded[:-2] + padded[2:]) / 2
    return (1 - weight) * probs + weight * neighbours


def decide(
    blocks: Sequence[Block],
    probs: np.ndarray,
    *,
    threshold: float = THRESHOLD,
    smoothing: float = SMOOTHING,
    heading_floor: float = HEADING_FLOOR,
    fallback: float | None = None,
    page_type: str = "",
    adapt: float = 0.0,
    favor_offset: float = 0.0,
    min_chars: float = 0.0,
) -> np.ndarray:
    """Keep (True) or drop each block, from its probability of being content.

    ``page_type`` is the page-type classifier's answer (``page.page_type``);
    on a ``"product"`` page the blocks in review boxes are left out (``leftout``).

    ``fallback`` is the favour's offset of ``threshold`` from the balanced
    cut (0 for "balanced"); None (the default) turns the collapse fallback off. Whether a
    page collapsed is judged at the balanced cut, a fact of the page, and
    the offset moves the fallback's cut (``fill_cut``) as it moves the cut:
    per page, "precision" keeps no more than "balanced" and "recall" no less.

    ``adapt`` (the step passes ``ADAPT``; 0, the default here, keeps ``threshold`` as
    given) moves the balanced cut, ``threshold - favor_offset``, that share of the way
    to the page's own split (``page_cut``); the favour's offset is added back after, so
    the favours keep their order on every page.

    ``min_chars`` (the step passes ``MIN_CHARS``; 0, the default here, turns it off):
    a page that keeps fewer characters than this keeps none.
    """
    n = len(blocks)
    if n == 0:
        return np.zeros(0, dtype=bool)
    words = np.fromiter(map(_WORDS, blocks), dtype=float, count=n)
    if words.sum() < SMALL_PAGE:
        return np.ones(n, dtype=bool)
    p = smooth(np.asarray(probs, dtype=float), smoothing)
    if adapt:
        threshold = page_cut(words, p, threshold - favor_offset, adapt) + favor_offset
    keep = _kept(blocks, p, threshold, heading_floor)
    if fallback is not None:
        at_balanced = keep if fallback == 0 else _kept(blocks, p, threshold - fallback, heading_floor)
        if collapsed(words, p, at_balanced):
            lower = min(fill_cut(words, p) + fallback, threshold)
            keep = _kept(blocks, p, lower, heading_floor)
    keep = left_out(blocks, keep, words, page_type)
    # A block's words are at most its characters: only a page of few kept words is counted.
    if min_chars and float(words @ keep) < min_chars and sum(
            len(b.text) for b, k in zip(blocks, keep.tolist()) if k) < min_chars:
        keep[:] = False
    return keep


def page_cut(words: np.ndarray, probs: np.ndarray, cut: float, adapt: float) -> float:
    """``cut`` moved ``adapt`` of the way to the page's two-means split (``two_means``).

    The per-type cut is one number for every page the type classifier
    calls alike, but the classifier is unsure across whole pages: on a
    forum thread or a collection taken for an article every block scores
    0.3-0.5, and a fixed cut keeps a sliver or everything. The page's own
    probabilities often still fall in two groups, and where they part is a
    cut fitted to the page. Only part of the way: on a page whose blocks do
    not fall in two groups the split is noise, and the per-type cut carries
    what training learned about the type (the whole way lost L3S-GN1 and
    Readability F1 out of fold).
    """
    return (1 - adapt) * cut + adapt * two_means(words, probs, cut)


def two_means(words: np.ndarray, probs: np.ndarray, start: float) -> float:
    """The cut halfway between the word-weighted mean probability of the blocks above it and
    of those below (two-means on the page's words, the isodata rule), iterated from ``start``.

    Word-weighted because the score counts words: a hundred one-word menu
    links must not outweigh one long paragraph. ``start`` is returned when
    either side holds no words (nothing to split).
    """
    cut = start
    for _ in range(TWO_MEANS_ROUNDS):
        above = probs >= cut
        w_hi, w_lo = float(words[above].sum()), float(words[~above].sum())
        if w_hi == 0 or w_lo == 0:
            return cut
        new = (float(words[above] @ probs[above]) / w_hi + float(words[~above] @ probs[~above]) / w_lo) / 2
        if abs(new - cut) < 1e-4:
            return cut
        cut = new
    return cut


def collapsed(words: np.ndarray, probs: np.ndarray, keep: np.ndarray) -> bool:
    """Whether the kept blocks are a sliver of the page's expected content.

    The cut is one number per page type; on some pages (a product grid, a
    forum thread, a listing: WCXB-dev's worst pages) the classifier is
    unsure everywhere and only one small block passes, while the blocks
    just under the cut hold the text (precision 1.0, recall 0.01-0.3).
    The probabilities themselves say so: their word-weighted sum, the
    words a reader should expect, is several times what was kept. Both
    conditions are needed: a short article on a long page keeps little of
    the page but about what its probabilities expect.
    """
    kept = float(words[keep].sum())
    expected = float(words @ probs)
    return kept < COLLAPSE_EXPECTED * expected and kept < COLLAPSE_PAGE * float(words.sum())


def fill_cut(words: np.ndarray, probs: np.ndarray) -> float:
    """The probability down to which the most probable blocks hold the expected content words.

    trafilatura survives such pages with a cascade (when its extraction is
    short it runs other algorithms and keeps the longer); a lower cut of
    the same probabilities is its counterpart here, and this one is where
    the page's own probabilities put it, not a second constant per page
    type. Chosen on out-of-fold probabilities of the six training sets
    against a fixed lower cut, every block from 0.05, the region of the
    page's prose, jusText and Boilerpipe as the fallback: it gained the
    most mean F1 on WCXB-dev for the least precision (see results.md).
    """
    order = np.argsort(-probs, kind="stable")
    cum = np.cumsum(words[order])
    at = min(int(np.searchsorted(cum, float(words @ probs))), len(order) - 1)
    return float(probs[order[at]])


def _kept(blocks: Sequence[Block], p: np.ndarray, threshold: float,
          heading_floor: float) -> np.ndarray:
    """Blocks at or above the cut, headings just before them, and never none."""
    keep = p >= threshold
    if heading_floor < threshold:
        # Each heading is judged by the cut's own keep of itself and of the block after it
        # (setting one never changes what the next is judged by), so the candidates are
        # found over the arrays at once and only their tags read.
        near = np.flatnonzero(~keep[:-1] & keep[1:] & (p[:-1] >= heading_floor))
        for i in near.tolist():
            if blocks[i].tag in HEADING_TAGS:
                keep[i] = True
    if not keep.any():
        keep[int(np.argmax(p))] = True
    return keep
