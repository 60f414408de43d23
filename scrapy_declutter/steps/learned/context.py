"""What the first stage said around a block: the second stage's extra columns.

The block classifier scores each block from its own features and a few
neighbours' (``features``). Content is a run of blocks in one or a few
subtrees, so where the first stage is confident says a lot about the
uncertain blocks: a short line between two paragraphs it keeps is likely
the article's, a teaser in a subtree it mostly drops is likely chrome, and
on a listing the items' titles look alike and are kept or dropped together.
The second stage reads the first stage's probabilities ``p`` through these
columns, with the block's own features, and gives the final P(content):

- the block's own logit, and ``p`` of the blocks one and two places before
  and after (-1 where there is none);
- for the subtrees of the block's ancestors at ``LEVELS``: the word-weighted
  mean of ``p`` over the subtree, and the subtree's share of the page's
  expected content words (sum of ``p`` × words);
- the page's expected content words over its words, its share of blocks at
  ``CONFIDENT`` or above, the share of expected content words before and
  after the block, and how many blocks away the nearest confident one is
  on each side (log).

Training gives these columns the first stage's out-of-fold probabilities
(a model that did not see the page's domain), as the shipped model meets them.
All columns are array operations over the page's blocks.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Sequence

import numpy as np

from ...blocks import Block
from .columns import level_ids
from .region import subtree_sums

#: Levels above the block element whose subtree's probabilities are summarised.
LEVELS = (1, 2, 3, 4, 6)
#: Neighbour offsets whose probability is copied into the row.
OFFSETS = (-2, -1, 1, 2)
#: A first-stage probability at or above this counts as a confident content block.
CONFIDENT = 0.5
#: Probabilities are clipped to [EPS, 1 - EPS] before the logit.
EPS = 1e-4

CONTEXT_NAMES = (
    ["ctx_logit", *(f"ctx_p{o:+d}" for o in OFFSETS)]
    + [f"ctx_up{level}_mean" for level in LEVELS]
    + [f"ctx_up{level}_mass" for level in LEVELS]
    + ["ctx_page_mass", "ctx_page_confident", "ctx_mass_before", "ctx_mass_after",
       "ctx_dist_prev", "ctx_dist_next"]
)

#: Reads a block's word count (``map`` over the blocks, no generator step each).
_WORDS = attrgetter("words")


def context_names() -> list[str]:
    """Column names of the matrix ``context_features`` returns, in order."""
    return list(CONTEXT_NAMES)


def context_features(blocks: Sequence[Block], probs: np.ndarray) -> np.ndarray:
    """The (blocks × ``CONTEXT_NAMES``) float32 matrix of a page from first-stage ``probs``.

    Each column is made as a contiguous row of a (columns × blocks) array, several at a
    time where they share an operation, and the array is transposed into float32 once."""
    n = len(blocks)
    if n == 0:
        return np.zeros((0, len(CONTEXT_NAMES)), dtype=np.float32)
    out = np.empty((len(CONTEXT_NAMES), n))
    p = np.clip(np.asarray(probs, dtype=np.float64), EPS, 1 - EPS)
    words = np.fromiter(map(_WORDS, blocks), dtype=np.float64, count=n)
    weight = np.maximum(words, 1.0)  # a block without words still counts in a subtree's mean
    mass = p * words
    total = mass.sum() or 1.0
    out[0] = np.log(p / (1 - p))
    out[1:1 + len(OFFSETS)] = -1.0
    for k, off in enumerate(OFFSETS, start=1):
        if off < 0 and n > -off:
            out[k, -off:] = p[:off]
        elif off > 0 and n > off:
            out[k, :-off] = p[off:]
    ids = level_ids([b.ancestors for b in blocks], LEVELS)
    first = 1 + len(OFFSETS)
    # Per level: the subtree's weights, weighted probabilities and expected words, then blocks.
    sums = subtree_sums(ids, weight, p * weight, mass)
    np.divide(sums[:, 1], sums[:, 0], out=out[first:first + len(LEVELS)])
    np.divide(sums[:, 2], total, out=out[first + len(LEVELS):first + 2 * len(LEVELS)])
    c = first + 2 * len(LEVELS)
    out[c] = mass.sum() / (words.sum() or 1.0)
    confident = p >= CONFIDENT
    out[c + 1] = confident.mean()
    cum = np.cumsum(mass)
    np.divide(cum - mass, total, out=out[c + 2])
    np.divide(cum[-1] - cum, total, out=out[c + 3])
    out[c + 4], out[c + 5] = _distances(np.flatnonzero(confident), n)
    return out.T.astype(np.float32, order="C")


def _distances(strong: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """log(1 + blocks to the nearest confident block at or before / at or after each block)."""
    if not len(strong):
        far = np.full(n, np.log1p(n))
        return far, far
    idx = np.arange(n)
    after = np.searchsorted(strong, idx)  # first confident index >= i
    before = np.searchsorted(strong, idx, side="right") - 1  # last confident index <= i
    prev = np.where(before >= 0, idx - strong[np.maximum(before, 0)], n)
    nxt = np.where(after < len(strong), strong[np.minimum(after, len(strong) - 1)] - idx, n)
    return np.log1p(prev), np.log1p(nxt)
