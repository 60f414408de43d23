"""The figures of an evaluation run: a table per dataset, then a summary of all sets side by side.

Per system and dataset: mean per-page word P/R/F1 over the pages that have a
reference text (the WCXB metric), F1 per page type, the share of ``with``
snippets found and of ``without`` snippets absent over all snippets of the
set, pages/s and time as a multiple of plain lxml parsing of the same pages.
A snippet-only set has no word figures (``None``, printed ``-``): its
with-rate and without-rate are its metric.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

from .runner import LXML, PageScore


@dataclass
class Row:
    """One system's figures on one dataset; word figures are ``None`` without reference texts."""

    system: str
    pages: int
    precision: float | None
    recall: float | None
    f1: float | None
    with_share: float
    without_share: float
    pages_per_s: float
    lxml_ratio: float
    errors: int
    by_type: dict[str, float] = field(default_factory=dict)

    @property
    def snippet_only(self) -> bool:
        return self.f1 is None


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def summarise(scores: Sequence[PageScore]) -> list[Row]:
    """Mean P/R/F1, F1 per page type, snippet shares and speed per system, over the given scores."""
    by_system: dict[str, list[PageScore]] = defaultdict(list)
    for s in scores:
        by_system[s.system].append(s)
    lxml_time = sum(s.seconds for s in by_system.get(LXML, [])) or float("nan")
    rows = []
    for name, items in by_system.items():
        if name == LXML:
            continue
        seconds = sum(s.seconds for s in items)
        scored = [s for s in items if s.f1 is not None]
        types: dict[str, list[float]] = defaultdict(list)
        for s in scored:
            types[s.page_type].append(s.f1)
        w_tot = sum(s.with_total for s in items)
        wo_tot = sum(s.without_total for s in items)
        rows.append(Row(
            system=name,
            pages=len(items),
            precision=_mean([s.precision for s in scored]),
            recall=_mean([s.recall for s in scored]),
            f1=_mean([s.f1 for s in scored]),
            with_share=sum(s.with_ok for s in items) / w_tot if w_tot else float("nan"),
            without_share=sum(s.without_ok for s in items) / wo_tot if wo_tot else float("nan"),
            pages_per_s=len(items) / seconds if seconds else float("inf"),
            lxml_ratio=seconds / lxml_time,
            errors=sum(bool(s.error) for s in items),
            by_type={t: statistics.fmean(v) for t, v in sorted(types.items())},
        ))
    return rows


def by_dataset(scores: Sequence[PageScore]) -> dict[str, list[PageScore]]:
    """The scores of each dataset, datasets in the order they were run."""
    out: dict[str, list[PageScore]] = {}
    for s in scores:
        out.setdefault(s.dataset, []).append(s)
    return out


def _num(value: float | None, width: int) -> str:
    return f"{'-':>{width}}" if value is None or math.isnan(value) else f"{value:>{width}.3f}"


def format_table(rows: Sequence[Row], lxml_ms: float | None = None) -> str:
    """Two plain-text tables: the overall figures, then F1 per page type."""
    head = f"{'system':<28} {'pages':>5} {'P':>6} {'R':>6} {'F1':>6} {'with':>6} {'w/out':>6} {'pages/s':>8} {'x lxml':>7} {'err':>4}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.system:<28} {r.pages:>5} {_num(r.precision, 6)} {_num(r.recall, 6)} "
                     f"{_num(r.f1, 6)} {_num(r.with_share, 6)} {_num(r.without_share, 6)} "
                     f"{r.pages_per_s:>8.1f} {r.lxml_ratio:>7.1f} {r.errors:>4}")
    if lxml_ms is not None:
        lines.append(f"(plain lxml parsing: {lxml_ms:.2f} ms/page; 'x lxml' = extraction time / that)")
    types = sorted({t for r in rows for t in r.by_type})
    if types:
        lines.append("")
        lines.append(f"{'F1 by page type':<28} " + " ".join(f"{t[:13]:>13}" for t in types))
        for r in rows:
            lines.append(f"{r.system:<28} " + " ".join(
                f"{r.by_type[t]:>13.3f}" if t in r.by_type else f"{'-':>13}" for t in types))
    return "\n".join(lines)


def format_summary(tables: dict[str, list[Row]]) -> str:
    """Every dataset on one line, every system side by side: P and F1, or with/without rates.

    A snippet-only set shows its with-rate and without-rate in the two
    columns, marked ``w:``: it has no word figures.
    """
    systems = list(dict.fromkeys(r.system for rows in tables.values() for r in rows))
    width = max(15, *(len(s) for s in systems))
    head = f"{'dataset':<20} {'pages':>5} | " + " | ".join(f"{s[:width]:^{width}}" for s in systems)
    sub = f"{'':<20} {'':>5} | " + " | ".join(f"{'P':>7} {'F1':>{width - 8}}" for _ in systems)
    lines = ["summary: mean word P and F1 per page; snippet-only sets (w:): with-rate and "
             "without-rate", head, sub, "-" * len(head)]
    for dataset, rows in tables.items():
        by_name = {r.system: r for r in rows}
        cells = []
        for s in systems:
            r = by_name.get(s)
            if r is None:
                cells.append(f"{'-':^{width}}")
            elif r.snippet_only:
                cells.append(f"w:{_num(r.with_share, 5)} {_num(r.without_share, width - 8)}")
            else:
                cells.append(f"{_num(r.precision, 7)} {_num(r.f1, width - 8)}")
        pages = max((r.pages for r in rows), default=0)
        lines.append(f"{dataset[:20]:<20} {pages:>5} | " + " | ".join(cells))
    return "\n".join(lines)


def lxml_ms_per_page(scores: Sequence[PageScore]) -> float:
    times = [s.seconds for s in scores if s.system == LXML]
    return 1000 * statistics.fmean(times) if times else float("nan")
