"""Where an extractor's time goes: parsing, segmentation (with features), and each step.

Measured with ``time.process_time`` so other processes on a shared machine
count less than with wall-clock time; the plain lxml parse of the same text
is timed alongside as the floor.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Sequence

from lxml import html as lxml_html

from ...page import Page, decode_html, parse_html
from ...registry import build_extractor
from ..dataset import Sample


def stage_times(samples: Sequence[Sample], extractor: str) -> dict[str, float]:
    """Mean milliseconds per page for each stage, in pipeline order."""
    chain = build_extractor(extractor)
    totals: dict[str, float] = defaultdict(float)
    clock = time.process_time
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
    n = max(1, len(samples))
    return {name: 1000 * total / n for name, total in totals.items()}


def format_stages(times: dict[str, float]) -> str:
    total = sum(v for k, v in times.items() if k != "lxml parse (floor)")
    lines = [f"{'stage':<40} {'ms/page':>8}"]
    lines += [f"{name:<40} {ms:>8.2f}" for name, ms in times.items()]
    lines.append(f"{'total (parse to labels)':<40} {total:>8.2f}")
    return "\n".join(lines)
