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
  because an empty prediction scores zero against any non-empty reference.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...blocks import HEADING_TAGS, Block

#: Probability at or above which a block is content.
THRESHOLD = 0.5
#: Share of a block's smoothed probability taken from the mean of its two neighbours.
SMOOTHING = 0.0
#: A heading right before kept content is kept when its probability reaches this.
HEADING_FLOOR = 0.15


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
) -> np.ndarray:
    """Keep (True) or drop each block, from its probability of being content."""
    n = len(blocks)
    if n == 0:
        return np.zeros(0, dtype=bool)
    p = smooth(np.asarray(probs, dtype=float), smoothing)
    keep = p >= threshold
    if heading_floor < threshold:
        for i in range(n - 1):
            if not keep[i] and keep[i + 1] and blocks[i].tag in HEADING_TAGS and p[i] >= heading_floor:
                keep[i] = True
    if not keep.any():
        keep[int(np.argmax(p))] = True
    return keep
