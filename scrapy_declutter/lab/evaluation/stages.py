"""Where an extractor's time goes: parsing, segmentation (with features), and each step.

Measured with ``time.process_time`` so other processes on a shared machine
count less than with wall-clock time; the plain lxml parse of the same text
is timed alongside as the floor. The learned step's parts (``LEARNED_PARTS``)
are timed within it too: its time is most of a page's, and instruction counts
(``bench-compiled --stages``) miss what waits on memory, such as trees read
once a page.
"""

from __future__ import annotations

import importlib
import time
from collections import defaultdict
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from lxml import html as lxml_html

from ...page import Page, decode_html, parse_html
from ...registry import Extractor, build_extractor
from ..dataset import Sample


_L = "scrapy_declutter.steps.learned."
#: The learned step's parts, timed apart: (label, module, attribute, or class and method). The
#: step looks each up when it runs, so a wrapper set on its module or class is what it calls.
LEARNED_PARTS = (
    ("page-type vector", _L + "pagetype", "page_vector"),
    ("page-type trees", _L + "model", "BlockModel.type_probabilities"),
    ("block features", _L + "features", "page_features"),
    ("block trees (3 ensembles)", _L + "trees", "TreeEnsemble.probabilities"),
    ("context features", _L + "context", "context_features"),
    ("decisions", _L + "decide", "decide"),
)
#: What names a part's line in ``stage_times`` (and keeps it out of the total).
PART = "  of which "


@contextmanager
def _timed_parts(totals: dict[str, float], clock: Callable[[], float]) -> Iterator[None]:
    """Time each of ``LEARNED_PARTS`` into ``totals`` while inside."""
    restore = []
    for label, module, name in LEARNED_PARTS:
        owner = importlib.import_module(module)
        *path, attr = name.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, attr)

        def timed(*args, _f=original, _key=PART + label, **kwargs):
            start = clock()
            try:
                return _f(*args, **kwargs)
            finally:
                totals[_key] += clock() - start

        setattr(owner, attr, timed)
        restore.append((owner, attr, original))
    try:
        yield
    finally:
        for owner, attr, original in reversed(restore):
            setattr(owner, attr, original)


def stage_times(samples: Sequence[Sample], extractor: str) -> dict[str, float]:
    """Mean milliseconds per page for each stage, in pipeline order; the learned step's parts
    (``PART`` lines) right after it."""
    chain = build_extractor(extractor)
    totals: dict[str, float] = defaultdict(float)
    parts: dict[str, float] = defaultdict(float)
    clock = time.process_time
    _time_pages(samples[:1], chain, defaultdict(float), clock)  # untimed: the model loads
    with _timed_parts(parts, clock):
        _time_pages(samples, chain, totals, clock)
    n = max(1, len(samples))
    times: dict[str, float] = {}
    for name, total in totals.items():
        times[name] = 1000 * total / n
        if name.endswith(": learned"):
            times.update((PART + label, 1000 * parts[PART + label] / n)
                         for label, _, _ in LEARNED_PARTS if PART + label in parts)
    return times


def _time_pages(samples: Sequence[Sample], chain: Extractor, totals: dict[str, float],
                clock: Callable[[], float]) -> None:
    """Add each stage's time on every page to ``totals``."""
    for sample in samples:
        text = decode_html(sample.html_bytes()) or "<html/>"
        t0 = clock()
        lxml_html.fromstring(text.encode("utf-8"))
        t1 = clock()
        root = parse_html(text)
        t2 = clock()
        page = Page.from_tree(root, sample.url)
        t3 = clock()
        totals["lxml parse (floor)"] += t1 - t0
        totals["parse (as Page.from_html)"] += t2 - t1
        totals["segmentation + features"] += t3 - t2
        for i, step in enumerate(chain.steps):
            s0 = clock()
            step.process(page)
            totals[f"step {i + 1}: {step.name}"] += clock() - s0
        # Freed here, not when the next page's Page replaces it inside that page's timing.
        f0 = clock()
        del page, root
        totals["freeing the page (tree and blocks)"] += clock() - f0


def format_stages(times: dict[str, float]) -> str:
    total = sum(v for k, v in times.items() if k != "lxml parse (floor)" and not k.startswith(PART))
    lines = [f"{'stage':<40} {'ms/page':>8}"]
    lines += [f"{name:<40} {ms:>8.2f}" for name, ms in times.items()]
    lines.append(f"{'total (parse to freed page)':<40} {total:>8.2f}")
    return "\n".join(lines)
