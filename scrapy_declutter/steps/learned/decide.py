"""Page-level decisions on top of per-block probabilities.

The classifier scores blocks one at a time (with their neighbours'
features); the text a reader wants is a run of blocks. Three small rules turn
probabilities into labels:

- smoothing: a block's probability is mixed with its neighbours' (a lone
  "boilerplate" sentence inside the article, a lone "content" teaser in a
  menu);
- headings: a heading just before kept content is kept when its own
  probability is not hopeless (section titles are short and look like chrome);
- never empty: a page where nothing passes keeps its most probable block,
  because an empty prediction scores zero against any non-empty reference;
- collapse fallback: a page whose cut keeps a sliver of what its
  probabilities expect is cut again lower (``fill_cut``);
- small pages: a page of a few words keeps them all (``SMALL_PAGE``);
- noscript: a page's ``<noscript>`` text is left out when what it keeps
  elsewhere is as long (``_without_noscript``);
- reviews: a page the page-type classifier calls a product leaves out what
  sits in a box of customer reviews (``in_review_box``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from ...blocks import HEADING_TAGS, Block, name_tokens
from .comments import PAGE_TAGS

#: Probability at or above which a block is content.
THRESHOLD = 0.5
#: Share of a block's smoothed probability taken from the mean of its two neighbours.
SMOOTHING = 0.0
#: A heading right before kept content is kept when its probability reaches this.
HEADING_FLOOR = 0.15
#: A page has collapsed when what passes its cut holds under this share of the words its
#: probabilities expect to be content (the sum over its blocks of P(content) x words) ...
COLLAPSE_EXPECTED = 0.4
#: ... and under this share of all its words.
COLLAPSE_PAGE = 0.1
#: Whether the learned step falls back on collapsed pages unless told (``fallback=``). Off:
#: out of fold it raised WCXB-dev F1 0.853 -> 0.858 but took precision 0.862 -> 0.858, under
#: the 0.86 the default promises (results.md, "The collapse fallback").
FALLBACK = False
#: A page of fewer words than this keeps every block. Such a page (a test page, a stub, an
#: error message) has no room for chrome, and a reference that is the page itself scores
#: 0.33-0.67 F1 when a 1-3 word block is cut. Chosen on the out-of-fold probabilities of the
#: six training sets, nested over the 5 domain folds (5, 10, 20, 30, 50, 100 tried; four
#: folds chose 10, one 5; from 50 up it costs Readability and CleanEval precision).
SMALL_PAGE = 10
#: An id or class name whose token starts with one of these names a box of customer reviews.
REVIEW_WORDS = ("review", "testimonial", "rating")
#: ... or ends with one of these (``customerReviews``), unless with one of the last.
REVIEW_ENDS, NOT_REVIEW_ENDS = ("review", "reviews"), ("preview", "previews")


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
) -> np.ndarray:
    """Keep (True) or drop each block, from its probability of being content.

    ``page_type`` is the page-type classifier's answer (``page.page_type``);
    on a ``"product"`` page the blocks in review boxes are left out.

    ``fallback`` is the favour's offset of ``threshold`` from the balanced
    cut (0 for "balanced"); None (the default) turns the collapse fallback off. Whether a
    page collapsed is judged at the balanced cut, a fact of the page, and
    the offset moves the fallback's cut (``fill_cut``) as it moves the cut:
    per page, "precision" keeps no more than "balanced" and "recall" no less.
    """
    n = len(blocks)
    if n == 0:
        return np.zeros(0, dtype=bool)
    words = np.fromiter((b.words for b in blocks), dtype=float, count=n)
    if words.sum() < SMALL_PAGE:
        return np.ones(n, dtype=bool)
    p = smooth(np.asarray(probs, dtype=float), smoothing)
    keep = _kept(blocks, p, threshold, heading_floor)
    if fallback is not None:
        at_balanced = keep if fallback == 0 else _kept(blocks, p, threshold - fallback, heading_floor)
        if collapsed(words, p, at_balanced):
            lower = min(fill_cut(words, p) + fallback, threshold)
            keep = _kept(blocks, p, lower, heading_floor)
    keep = _without_noscript(blocks, keep, words)
    if page_type == "product":
        keep = _without_reviews(blocks, keep)
    return keep


def _without_noscript(blocks: Sequence[Block], keep: np.ndarray, words: np.ndarray) -> np.ndarray:
    """``keep`` without the kept blocks inside ``<noscript>`` when the kept blocks outside
    hold at least as many words.

    ``<noscript>`` is what a browser without scripts shows instead of the
    page's scripted part: a copy of the article (the classifier keeps both,
    and precision halves), a "JavaScript is disabled" notice, a tracking
    pixel's markup. When the page's own text already holds the content the
    copy is never the content; when the page's text is in ``<noscript>``
    alone (a page rendered by script) it stays. No constant: out of fold on
    the six sets it changed 15 pages, every one up (WCXB-dev precision
    +0.0006, L3S-GN1 +0.0004, Readability +0.0003, sites-dev +0.0005).
    """
    inside = np.zeros(len(blocks), dtype=bool)
    for i in np.flatnonzero(keep).tolist():
        b = blocks[i]
        inside[i] = b.tag == "noscript" or any(a.tag == "noscript" for a in b.ancestors)
    if inside.any() and words[keep & ~inside].sum() >= words[inside].sum():
        return keep & ~inside
    return keep


def _without_reviews(blocks: Sequence[Block], keep: np.ndarray) -> np.ndarray:
    """``keep`` without the blocks in review boxes, unless that leaves nothing.

    A product page's reference keeps the description and specifications and
    leaves out customer reviews, which read like them from inside the page
    (first person, prose, the product's name): the classifier keeps them,
    and they were half of the product pages' lost precision. Their boxes say
    what they hold. Only on pages called products: on articles and service
    pages a "review" box is often the content (a film review, a case study).
    Out of fold (six sets, nested over the 5 domain folds: four chose it):
    WCXB-dev product F1 0.554 -> 0.568, precision 0.615 -> 0.640, no other set moved.
    """
    drop = np.zeros(len(blocks), dtype=bool)
    for i in np.flatnonzero(keep).tolist():
        drop[i] = in_review_box(blocks[i])
    if not drop.any() or not (keep & ~drop).any():
        return keep
    return keep & ~drop


def in_review_box(block: Block) -> bool:
    """Whether one of a block's ancestors below the page-sized ones is named a review box."""
    return any(a.tag not in PAGE_TAGS and names_reviews(a.id, a.classes) for a in block.ancestors)


@lru_cache(maxsize=8192)
def names_reviews(ident: str, classes: tuple[str, ...]) -> bool:
    """Whether an id or one of the classes names a box of customer reviews (``reviews``,
    ``customer-review``, ``customerReviews``, ``star-rating``; not ``preview``)."""
    return any(t.startswith(REVIEW_WORDS) or (t.endswith(REVIEW_ENDS) and not t.endswith(NOT_REVIEW_ENDS))
               for name in (ident, *classes) for t in name_tokens(name))


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
    n = len(blocks)
    keep = p >= threshold
    if heading_floor < threshold:
        for i in range(n - 1):
            if not keep[i] and keep[i + 1] and blocks[i].tag in HEADING_TAGS and p[i] >= heading_floor:
                keep[i] = True
    if not keep.any():
        keep[int(np.argmax(p))] = True
    return keep
