"""How far to trust an extraction: one number in [0, 1], for deciding when to fall back.

It is the product of two things a wrong extraction shows:

- **margin**: how decided the labels were, ``|2·score − 1|`` per block (a
  score of 0.5 is a coin toss, 0 or 1 a sure call), averaged over the page's
  words so that long blocks count for more. Uncertain pages are where the
  classifier errs.
- **substance**: ``min(1, content words / 50)``. An extraction that kept almost
  nothing is as likely a miss as a short page.

It uses only the labelled blocks, so it costs one pass over them. On WCXB
dev the lab's ``metadata_eval`` reports how it ranks pages by their F1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from ..blocks import Block

#: Content words from which an extraction counts as substantial.
SUBSTANTIAL_WORDS = 50


def extraction_confidence(blocks: Sequence["Block"]) -> float:
    """Margin × substance of a labelled page (0.0 for a page without words)."""
    total = content = 0
    margin = 0.0
    for b in blocks:
        total += b.words
        margin += b.words * min(1.0, abs(2.0 * b.score - 1.0))
        if b.is_content:
            content += b.words
    if not total or not content:
        return 0.0
    return round(margin / total * min(1.0, content / SUBSTANTIAL_WORDS), 4)
