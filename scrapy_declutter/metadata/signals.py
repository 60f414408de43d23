"""Page-level signals of how an extraction went, read from its labelled blocks alone.

A wrong extraction leaves traces in the labels: unsure scores, kept text
that is mostly links or not sentences, kept blocks scattered over the page
instead of one region, a kept share far from what the page type usually
keeps. ``page_signals`` measures them in one pass over the blocks, so
``confidence`` can weigh them; nothing here parses or walks the tree again.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..blocks import COMMENT, CONTENT
from ..steps.learned.pagetype import PAGE_TYPES
from ..steps.learned.text import END_PUNCT

if TYPE_CHECKING:
    from ..blocks import Block

#: Content words from which an extraction counts as substantial.
SUBSTANTIAL_WORDS = 50
#: A score this close to 0.5 is an unsure call.
UNSURE = 0.25

#: The signals, in the order of ``page_signals``'s vector (a model file names them too).
SIGNAL_NAMES: tuple[str, ...] = (
    "margin",              # word-weighted mean |2·score − 1|: how decided the labels were
    "substance",           # min(1, content words / SUBSTANTIAL_WORDS)
    "margin_substance",    # their product: the confidence before the model
    "log_content_words",
    "log_page_words",
    "content_share",       # content words / page words
    "kept_link_density",   # link words / words of the kept text
    "content_score",       # word-weighted mean score of the kept blocks
    "boilerplate_score",   # word-weighted mean score of the blocks left out
    "unsure_share",        # share of the page's words in blocks scored within UNSURE of 0.5
    "region_share",        # kept words / words from the first to the last kept block
    "largest_run_share",   # words of the longest run of consecutive kept blocks / kept words
    "log_runs",            # log(1 + runs of consecutive kept blocks)
    "comment_share",       # page words labelled reader comments
    "sentence_share",      # kept words in blocks that end like a sentence / kept words
    "type_probability",    # the page-type classifier's probability of its type (0: none)
    *(f"type_{t}" for t in PAGE_TYPES),
)
#: The signals read from the blocks (the rest describe the page type).
_BLOCK_SIGNALS = SIGNAL_NAMES.index("type_probability")


def margin_substance(blocks: Sequence["Block"]) -> float:
    """How decided the labels were × whether much was kept (0.0 for a page without words)."""
    total = content = 0
    margin = 0.0
    for b in blocks:
        total += b.words
        margin += b.words * min(1.0, abs(2.0 * b.score - 1.0))
        if b.is_content:
            content += b.words
    if not total or not content:
        return 0.0
    return margin / total * min(1.0, content / SUBSTANTIAL_WORDS)


def page_signals(blocks: Sequence["Block"], page_type: str = "",
                 type_probability: float = 0.0) -> np.ndarray:
    """The ``SIGNAL_NAMES`` vector of a labelled page (all zeros but the type for no words)."""
    total = content = links = margin = kept_score = left_score = unsure = 0.0
    comments = sentences = 0
    before_first = through_last = -1.0  # page words before the first kept block, through the last
    runs = run = longest = 0
    previous = False
    low, high = 0.5 - UNSURE, 0.5 + UNSURE
    for b in blocks:
        w, s, label = b.words, b.score, b.label
        total += w
        margin += w * min(1.0, abs(2.0 * s - 1.0))
        if low < s < high:
            unsure += w
        kept = label == CONTENT
        if kept:
            content += w
            links += b.link_words
            kept_score += w * s
            if b.text.endswith(END_PUNCT):
                sentences += w
            if before_first < 0:
                before_first = total - w
            through_last = total
            if not previous:
                runs += 1
                run = 0
            run += w
            if run > longest:
                longest = run
        else:
            left_score += w * s
            if label == COMMENT:
                comments += w
        previous = kept
    out = np.zeros(len(SIGNAL_NAMES))
    if page_type in PAGE_TYPES:
        out[SIGNAL_NAMES.index(f"type_{page_type}")] = 1.0
        out[_BLOCK_SIGNALS] = type_probability
    if not total:
        return out
    region = through_last - before_first if before_first >= 0 else 0
    m = margin / total
    substance = min(1.0, content / SUBSTANTIAL_WORDS)
    per_kept = content or 1.0
    out[:_BLOCK_SIGNALS] = (
        m, substance, m * substance if content else 0.0, math.log1p(content), math.log1p(total),
        content / total, links / per_kept, kept_score / per_kept,
        left_score / (total - content) if total > content else 0.0,
        unsure / total, content / region if region else 0.0, longest / per_kept, math.log1p(runs),
        comments / total, sentences / per_kept,
    )
    return out
