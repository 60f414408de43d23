"""Per-block bar charts as inline SVG, after the Dragnet seed's stacked panels.

Each panel has one bar per block, in page order, content blocks in one colour
and boilerplate in another, so a glance shows where the page's content sits
and which feature separates it. Panels are plain XML (namespaced, every value
escaped) so they parse as SVG on their own, and they carry no script: a title
per bar is the hover text, a link per bar jumps to the block in the list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from numbers import Real
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    from ..blocks import Block

SVG_NS = "http://www.w3.org/2000/svg"
#: Drawing height in viewBox units; the width is one unit per block.
CHART_HEIGHT = 100
#: Room left above and below the bars, in viewBox units.
CHART_PAD = 2
#: Share of a block's unit of width its bar fills (the rest is the gap).
BAR_WIDTH = 0.8
#: Optional block fields the report shows where a step or command set them
#: (``Block``'s last fields), with what sets them: in each block's feature table,
#: and charted when numeric.
OPTIONAL_FEATURES = {
    "cf_class": "jusText",
    "justext_class": "jusText",
    "site_fingerprint_pages": "site model",
    "ngram_log_odds": "site model",
}


@dataclass(frozen=True)
class Panel:
    """One chart: a title, a value per block (None where the block has none) and its range."""

    title: str
    values: tuple[float | None, ...]
    low: float
    high: float
    note: str = ""


def _finite(v: object) -> float | None:
    if isinstance(v, bool) or not isinstance(v, Real):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def _panel(title: str, values: Sequence[float | None], *, low: float | None = None,
           high: float | None = None, note: str = "") -> Panel:
    present = [v for v in values if v is not None]
    lo = min([0.0, *present]) if low is None else low
    hi = max([0.0, *present]) if high is None else high
    if hi - lo <= 0:
        hi = lo + 1.0
    return Panel(title, tuple(values), lo, hi, note)


def optional_numbers(blocks: Sequence["Block"]) -> list[str]:
    """The optional features holding a finite number on at least one block, in field order."""
    return [name for name in OPTIONAL_FEATURES
            if any(_finite(getattr(b, name)) is not None for b in blocks)]


def panels_for(blocks: Sequence["Block"]) -> list[Panel]:
    """The seed's panels: shallow-text features, then the optional numbers set, then scores."""
    def col(get: Callable[["Block"], object]) -> list[float | None]:
        return [_finite(get(b)) for b in blocks]

    panels = [
        _panel("Text density (words per wrapped line)", col(lambda b: b.text_density)),
        _panel("Link density", col(lambda b: b.link_density), low=0.0, high=1.0),
        _panel("Character density (text / (text + markup))", col(lambda b: b.char_density),
               low=0.0, high=1.0),
    ]
    for name in optional_numbers(blocks):
        panels.append(_panel(name, col(lambda b, n=name: getattr(b, n)),
                             note=f"from the {OPTIONAL_FEATURES[name]}"))
    panels.append(_panel("Score of the deciding step", col(lambda b: b.score)))
    return panels


def _num(v: float) -> str:
    """A coordinate short enough to keep big reports small."""
    return f"{v:.2f}".rstrip("0").rstrip(".") or "0"


def render_panel(panel: Panel, blocks: Sequence["Block"]) -> str:
    """One panel as an ``<svg>`` element (well-formed XML, stretched to the page width)."""
    n = max(len(blocks), 1)
    span = panel.high - panel.low
    usable = CHART_HEIGHT - 2 * CHART_PAD

    def y_of(v: float) -> float:
        return CHART_PAD + (panel.high - v) / span * usable

    zero = y_of(min(max(0.0, panel.low), panel.high))
    title = escape(panel.title)
    out = [
        f'<svg xmlns="{SVG_NS}" class="chart" viewBox="0 0 {n} {CHART_HEIGHT}" '
        f'preserveAspectRatio="none" role="img" aria-label="{title}">',
        f'<line class="axis" x1="0" x2="{n}" y1="{_num(zero)}" y2="{_num(zero)}" '
        'vector-effect="non-scaling-stroke"/>',
    ]
    offset = (1 - BAR_WIDTH) / 2
    for b, v in zip(blocks, panel.values):
        if v is None:
            continue
        v = min(max(v, panel.low), panel.high)
        top, bottom = sorted((y_of(v), zero))
        cls = "c" if b.is_content else "b"
        out.append(
            f'<a href="#b{b.index}"><rect class="{cls}" x="{_num(b.index + offset)}" '
            f'y="{_num(top)}" width="{BAR_WIDTH}" height="{_num(bottom - top)}">'
            f"<title>#{b.index} {escape(b.label)}: {v:.3g}</title></rect></a>"
        )
    out.append("</svg>")
    return "".join(out)
