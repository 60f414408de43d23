"""Scoring extractors on a WCXB-format dataset, all systems on the same pages in one run.

Each page is decoded once (browser rules, as a crawler would) and then handed
to plain lxml parsing (the speed floor) and to every system in turn, so speed
ratios come from one run on one machine. Timings are per page and summed, so
``--jobs`` parallelises the run without changing what a page costs, but for
speed figures use one job: two busy cores slow each other down.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable, Sequence

from lxml import html as lxml_html

from ...api import extract
from ...errors import DeclutterError, UnknownExtractorError
from ...extractors import build_extractor
from ...page import decode_html
from ..dataset import Sample
from ..metric import snippet_hits, word_prf

System = Callable[[str, "str | None"], str]
LXML = "lxml-parse"


@dataclass
class PageScore:
    """One system's outcome on one page."""

    file_id: str
    page_type: str
    domain: str
    system: str
    precision: float
    recall: float
    f1: float
    with_ok: int
    with_total: int
    without_ok: int
    without_total: int
    seconds: float
    error: str = ""


@lru_cache(maxsize=None)
def resolve_system(name: str) -> System:
    """Our extractor of that name, else the peer of that name (``peer:`` forces a peer)."""
    if not name.startswith("peer:"):
        try:
            build_extractor(name)
        except UnknownExtractorError:
            pass
        else:
            return lambda text, url: extract(text, url, extractor=name).text
    from .peers import peer

    try:
        return peer(name)
    except UnknownExtractorError as exc:
        raise UnknownExtractorError(f"{exc}; our extractors: see `scrapy-declutter extractors`") from None
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise DeclutterError(f"peer {name!r} needs the bench extra: pip install -e .[bench] ({exc})")


def score_sample(sample: Sample, systems: Sequence[str]) -> list[PageScore]:
    """Decode one page, time lxml parsing and every system on it, and score each output."""
    text = decode_html(sample.html_bytes())
    out: list[PageScore] = []
    start = time.perf_counter()
    lxml_html.fromstring(text.encode("utf-8")) if text.strip() else None
    out.append(_score(sample, LXML, "", time.perf_counter() - start))
    for name in systems:
        fn = resolve_system(name)
        error = ""
        start = time.perf_counter()
        try:
            prediction = fn(text, sample.url)
        except Exception as exc:  # a peer's crash is a data point, not the end of the run
            prediction, error = "", f"{type(exc).__name__}: {exc}"
        out.append(_score(sample, name, prediction, time.perf_counter() - start, error))
    return out


def _score(sample: Sample, system: str, prediction: str, seconds: float, error: str = "") -> PageScore:
    s = word_prf(prediction, sample.main_content)
    w_ok, w_tot = snippet_hits(prediction, sample.with_snippets, present=True)
    wo_ok, wo_tot = snippet_hits(prediction, sample.without_snippets, present=False)
    return PageScore(sample.file_id, sample.page_type, sample.domain, system, s.precision,
                     s.recall, s.f1, w_ok, w_tot, wo_ok, wo_tot, seconds, error)


def _progress(iterable: Iterable, total: int, enabled: bool):
    if not enabled:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, unit="page", file=sys.stderr, smoothing=0.05)


def run(samples: Sequence[Sample], systems: Sequence[str], *, jobs: int = 1,
        progress: bool = True) -> list[PageScore]:
    """Score every system on every sample; unknown names fail before the first page."""
    for name in systems:
        resolve_system(name)
    scores: list[PageScore] = []
    if jobs <= 1:
        for sample in _progress(samples, len(samples), progress):
            scores.extend(score_sample(sample, systems))
        return scores
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(score_sample, samples, [tuple(systems)] * len(samples), chunksize=4)
        for page_scores in _progress(results, len(samples), progress):
            scores.extend(page_scores)
    return scores


@dataclass
class Row:
    """Aggregate figures of one system."""

    system: str
    pages: int
    precision: float
    recall: float
    f1: float
    with_share: float
    without_share: float
    pages_per_s: float
    lxml_ratio: float
    errors: int
    by_type: dict[str, float] = field(default_factory=dict)


def summarise(scores: Sequence[PageScore]) -> list[Row]:
    """Mean P/R/F1, F1 per page type, snippet shares and speed per system."""
    by_system: dict[str, list[PageScore]] = defaultdict(list)
    for s in scores:
        by_system[s.system].append(s)
    lxml_time = sum(s.seconds for s in by_system.get(LXML, [])) or float("nan")
    rows = []
    for name, items in by_system.items():
        if name == LXML:
            continue
        seconds = sum(s.seconds for s in items)
        types: dict[str, list[float]] = defaultdict(list)
        for s in items:
            types[s.page_type].append(s.f1)
        w_tot = sum(s.with_total for s in items)
        wo_tot = sum(s.without_total for s in items)
        rows.append(Row(
            system=name,
            pages=len(items),
            precision=statistics.fmean(s.precision for s in items),
            recall=statistics.fmean(s.recall for s in items),
            f1=statistics.fmean(s.f1 for s in items),
            with_share=sum(s.with_ok for s in items) / w_tot if w_tot else float("nan"),
            without_share=sum(s.without_ok for s in items) / wo_tot if wo_tot else float("nan"),
            pages_per_s=len(items) / seconds if seconds else float("inf"),
            lxml_ratio=seconds / lxml_time,
            errors=sum(bool(s.error) for s in items),
            by_type={t: statistics.fmean(v) for t, v in sorted(types.items())},
        ))
    return rows


def format_table(rows: Sequence[Row], lxml_ms: float | None = None) -> str:
    """Two plain-text tables: the overall figures, then F1 per page type."""
    head = f"{'system':<28} {'pages':>5} {'P':>6} {'R':>6} {'F1':>6} {'with':>6} {'w/out':>6} {'pages/s':>8} {'x lxml':>7} {'err':>4}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.system:<28} {r.pages:>5} {r.precision:>6.3f} {r.recall:>6.3f} {r.f1:>6.3f} "
                     f"{r.with_share:>6.3f} {r.without_share:>6.3f} {r.pages_per_s:>8.1f} "
                     f"{r.lxml_ratio:>7.1f} {r.errors:>4}")
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


def lxml_ms_per_page(scores: Sequence[PageScore]) -> float:
    times = [s.seconds for s in scores if s.system == LXML]
    return 1000 * statistics.fmean(times) if times else float("nan")
