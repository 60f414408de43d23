"""The density filter of seed 000 (Sujit Pal's DensityFilter).

density = (text chars + 1) / (text chars + markup chars + 1); units with fewer
than 60 text characters are dropped; the rest are kept when their density is
above 0.5 − stddev(densities), the sample standard deviation as Commons Math's
``DescriptiveStatistics`` computes it. ``filter_lines`` is the seed's exact
per-line form over raw HTML; ``DensityFilter`` applies the same rule to Blocks,
whose markup count comes from the segmentation walk.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ..blocks import BOILERPLATE, CONTENT
from . import Step

if TYPE_CHECKING:
    from ..page import Page

MIN_CHARS_IN_TEXT = 60
BASE_THRESHOLD = 0.5


@dataclass(frozen=True)
class Chunk:
    """One line of the seed's per-line form: its text, density and the marker-given label."""

    text: str
    density: float
    keep: bool


def density_threshold(densities: Sequence[float], base: float = BASE_THRESHOLD) -> float:
    """0.5 − sample stddev; with fewer than two values the stddev is 0, as in Commons Math."""
    sd = statistics.stdev(densities) if len(densities) > 1 else 0.0
    return base - sd


def filter_lines(html: str, *, min_chars: int = MIN_CHARS_IN_TEXT) -> list[Chunk]:
    """The seed's DensityFilter.filter, line by line over raw HTML.

    ``keep`` follows the seed's ``<!-- content -->`` / ``<!-- /content -->``
    markers, which it used to label training data for the n-gram classifier.
    """
    chunks: list[Chunk] = []
    keep = False
    for line in html.splitlines():
        line = line.strip()
        if not line:
            continue
        if "<!-- content -->" in line:
            keep = True
        elif "<!-- /content -->" in line:
            keep = False
        in_markup, markup, text = False, 0, []
        for c in line:
            if c == "<":
                in_markup = True
            elif c == ">":
                in_markup = False
            elif in_markup:
                markup += 1
            else:
                text.append(c)
        raw = "".join(text)
        n_text = len(raw.strip())
        if n_text < min_chars:
            continue
        chunks.append(Chunk(raw, (n_text + 1) / (markup + n_text + 1), keep))
    threshold = density_threshold([c.density for c in chunks])
    return [c for c in chunks if c.density > threshold]


class DensityFilter(Step):
    """The seed's rule on Blocks: long, text-dense blocks are content, the rest boilerplate."""

    name = "density"

    def __init__(self, *, min_chars: int = MIN_CHARS_IN_TEXT, base: float = BASE_THRESHOLD):
        self.min_chars = min_chars
        self.base = base

    def process(self, page: "Page") -> None:
        long_blocks = [b for b in page.blocks if b.text_chars >= self.min_chars]
        threshold = density_threshold([b.char_density for b in long_blocks], self.base)
        for b in page.blocks:
            keep = b.text_chars >= self.min_chars and b.char_density > threshold
            b.set_label(CONTENT if keep else BOILERPLATE, b.char_density, self.name)
