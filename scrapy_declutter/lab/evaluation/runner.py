"""Scoring extractors on datasets in the WCXB layout, all systems on the same pages in one run.

Each page is decoded once (browser rules, as a crawler would) and then handed
to plain lxml parsing (the speed floor) and to every system in turn, so speed
ratios come from one run on one machine. With ``as_bytes`` our extractors are
handed the page's bytes instead, as a crawl hands them, and pay for their own
decoding (the floor and the peers still get the decoded text, its decoding
untimed). Timings are per page and summed, so
``--jobs`` parallelises the run without changing what a page costs, but for
speed figures use one job: two busy cores slow each other down.

A page of a snippet-only set (no reference text) gets no word scores
(``None``), only its snippet checks; ``tables`` averages each figure over the
pages that have it.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Sequence

from lxml import html as lxml_html

from ...api import extract
from ...errors import UnknownExtractorError
from ...registry import build_extractor, extractors
from ...page import decode_html
from ..dataset import Sample
from ..metric import snippet_hits, word_prf

System = Callable[["str | bytes", "str | None"], str]
LXML = "lxml-parse"


@dataclass
class PageScore:
    """One system's outcome on one page; word scores are ``None`` without a reference text."""

    file_id: str
    page_type: str
    domain: str
    system: str
    precision: float | None
    recall: float | None
    f1: float | None
    with_ok: int
    with_total: int
    without_ok: int
    without_total: int
    seconds: float
    error: str = ""
    dataset: str = ""


@lru_cache(maxsize=None)
def resolve_system(name: str) -> System:
    """Our extractor of that name, else the peer of that name (``peer:`` forces a peer)."""
    if not name.startswith("peer:"):
        if own_system(name):
            return lambda page, url: extract(page, url, extractor=name).text
    from .peers import peer

    try:
        return peer(name)
    except UnknownExtractorError as exc:
        raise UnknownExtractorError(f"{exc}; our extractors: {', '.join(extractors())}") from None


@lru_cache(maxsize=None)
def own_system(name: str) -> bool:
    """Whether ``name`` is one of our extractors (``peer:`` forces a peer)."""
    try:
        build_extractor(name)
    except UnknownExtractorError:
        return False
    return True


def score_sample(sample: Sample, systems: Sequence[str], as_bytes: bool = False) -> list[PageScore]:
    """Decode one page, time lxml parsing and every system on it, and score each output;
    with ``as_bytes`` our extractors get the page's bytes, not the decoded text."""
    body = sample.html_bytes()
    text = decode_html(body)
    out: list[PageScore] = []
    start = time.perf_counter()
    lxml_html.fromstring(text.encode("utf-8")) if text.strip() else None
    out.append(_score(sample, LXML, "", time.perf_counter() - start))
    for name in systems:
        fn = resolve_system(name)
        page = body if as_bytes and own_system(name) else text
        error = ""
        start = time.perf_counter()
        try:
            prediction = fn(page, sample.url)
        except Exception as exc:  # a peer's crash is a data point, not the end of the run
            prediction, error = "", f"{type(exc).__name__}: {exc}"
        out.append(_score(sample, name, prediction, time.perf_counter() - start, error))
    return out


def _score(sample: Sample, system: str, prediction: str, seconds: float,
           error: str = "") -> PageScore:
    p = r = f = None
    if sample.main_content is not None:
        s = word_prf(prediction, sample.main_content)
        p, r, f = s.precision, s.recall, s.f1
    w_ok, w_tot = snippet_hits(prediction, sample.with_snippets, present=True)
    wo_ok, wo_tot = snippet_hits(prediction, sample.without_snippets, present=False)
    return PageScore(sample.file_id, sample.page_type, sample.domain, system, p, r, f,
                     w_ok, w_tot, wo_ok, wo_tot, seconds, error, sample.dataset)


def _progress(iterable: Iterable, total: int, enabled: bool):
    if not enabled:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, unit="page", file=sys.stderr, smoothing=0.05)


def run(samples: Sequence[Sample], systems: Sequence[str], *, jobs: int = 1,
        progress: bool = True, as_bytes: bool = False) -> list[PageScore]:
    """Score every system on every sample; unknown names fail before the first page."""
    for name in systems:
        resolve_system(name)
    scores: list[PageScore] = []
    if jobs <= 1:
        for sample in _progress(samples, len(samples), progress):
            scores.extend(score_sample(sample, systems, as_bytes))
        return scores
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(score_sample, samples, [tuple(systems)] * len(samples),
                           [as_bytes] * len(samples), chunksize=4)
        for page_scores in _progress(results, len(samples), progress):
            scores.extend(page_scores)
    return scores
