"""The ``bench-crawl`` tables (``crawl.broad``'s figures): speed and CPU per mode, what site
learning adds, and the crawl's memory over time."""

from __future__ import annotations

import statistics
from typing import Any, Callable


def _blocks(run: dict[str, Any], every: int) -> tuple[float, float] | None:
    """CPU ms/page of the first and the last full block of ``every`` pages."""
    marks = [s for s in run["samples"][:-1] if s["pages"] % every == 0]
    if len(marks) < 3:
        return None
    first = 1000 * (marks[1]["cpu"] - marks[0]["cpu"]) / every
    return first, 1000 * (marks[-1]["cpu"] - marks[-2]["cpu"]) / every


def _median_ms(runs: list[dict[str, Any]], seconds: Callable[[dict[str, Any]], float]) -> float:
    """Median over the rounds of ``seconds`` of a crawl, in ms a page."""
    return statistics.median(1000 * seconds(r) / max(r["pages"], 1) for r in runs)


def _all_cpu(run: dict[str, Any]) -> float:
    return run["cpu"]


def _crawl_cpu(run: dict[str, Any]) -> float:
    """The crawl process's part (all of it when there are no worker processes)."""
    return run.get("main_cpu", run["cpu"])


def _worker_cpu(run: dict[str, Any]) -> float:
    return run["cpu"] - _crawl_cpu(run)


def _analysis_cpu(run: dict[str, Any]) -> float:
    """The pages' analysis alone, as the plugin counts it (``declutter/seconds``: thread
    time around each page's analysis, wherever it ran)."""
    return run.get("analysis_cpu", 0.0)


def _site_learning(results: dict[str, list[dict[str, Any]]]) -> str | None:
    """What site learning adds to a page's CPU (``on`` against ``on-nolearning``): in all,
    round by round, in the worker processes alone and in the analysis alone. With workers,
    learning runs in them and the crawl process does the same work in both modes, yet its
    CPU moves between them by as much as learning costs (1.4-1.7 ms a page, either way, in
    the sixteenth session's runs); and the same analysis costs a tenth more or less from
    one crawl to the next on a shared machine. So the line gives each view, none alone."""
    if "on" not in results or "on-nolearning" not in results:
        return None
    on, off = results["on"], results["on-nolearning"]
    base = _median_ms(off, _all_cpu)
    line = (f"site learning: {100 * (_median_ms(on, _all_cpu) / base - 1):+.1f}% CPU a page "
            "(on against on-nolearning)")
    if min(len(on), len(off)) > 1:
        # Each round's two crawls ran one after the other, so a slow spell of the machine
        # (shared, its CPU time per unit of work moving by a tenth from minute to minute)
        # weighs on both: the median of the rounds' own ratios leaves such a spell out
        # where the ratio of the modes' medians may pair a slow crawl with a fast one.
        rounds = [100 * (_median_ms([a], _all_cpu) / _median_ms([b], _all_cpu) - 1)
                  for a, b in zip(on, off)]
        line += (f"; round by round {', '.join(f'{r:+.1f}' for r in rounds)}%, "
                 f"median {statistics.median(rounds):+.1f}%")
    for where, part in (("the worker processes", _worker_cpu), ("the analysis", _analysis_cpu)):
        part_on, part_off = _median_ms(on, part), _median_ms(off, part)
        if part_on > 0 and part_off > 0:
            added = part_on - part_off
            line += (f"; in {where} alone {added:+.1f} ms a page, "
                     f"{100 * added / base:+.1f}% of on-nolearning's CPU")
    return line


def broad_report(results: dict[str, list[dict[str, Any]]], sample_every: int = 1000) -> str:
    """The tables: speed per mode (medians over rounds), then memory over the crawl."""
    rate = {m: statistics.median(r["pages"] / r["wall"] for r in runs)
            for m, runs in results.items()}
    lines = [f"{'mode':20} {'pages':>6} {'pages/s':>8} {'x off':>6} {'CPU ms/page':>11} "
             f"{'in crawl':>8} "
             f"{'max RSS MB':>10} {'+worker MB':>10} {'GC ms/page':>10} {'full GCs':>8}"]
    for mode, runs in results.items():
        cpu, main = _median_ms(runs, _all_cpu), _median_ms(runs, _crawl_cpu)
        gc_ms = _median_ms(runs, lambda r: r.get("gc_cpu", 0.0))
        ratio = f"{rate[mode] / rate['off']:.2f}" if "off" in rate else "-"
        lines.append(f"{mode:20} {runs[0]['pages']:>6} {rate[mode]:>8.1f} {ratio:>6} {cpu:>11.1f} "
                     f"{main:>8.1f} "
                     f"{max(r['max_rss_mb'] for r in runs):>10.0f} "
                     f"{max(r.get('children_max_rss_mb', 0.0) for r in runs):>10.0f} {gc_ms:>10.1f} "
                     f"{runs[-1].get('gc_full', 0):>8}")
    learning = _site_learning(results)
    if learning:
        lines.append(learning)
    lines.append(f"memory of the crawl process (+ its worker processes), last round, sampled every "
                 f"{sample_every} pages:")
    for mode, runs in results.items():
        samples = runs[-1]["samples"]
        shown = samples[::max(1, len(samples) // 10)]
        shown += samples[-1:] if shown[-1] is not samples[-1] else []
        rss = ", ".join(f"{s['pages']}:{s['rss_mb']:.0f}"
                        + (f"+{s['children_rss_mb']:.0f}" if s.get("children_rss_mb") else "")
                        for s in shown)
        blocks = _blocks(runs[-1], sample_every)
        cost = (f"; CPU ms/page first {sample_every} pages {blocks[0]:.1f}, last {blocks[1]:.1f}"
                if blocks else "")
        lines.append(f"  {mode}: RSS MB at pages {rss}{cost}")
        closing = runs[-1].get("before_close")
        if closing:
            lines.append(f"  {mode}: when the spider closed: RSS {closing['rss_mb']:.0f} MB, peak so "
                         f"far {closing['max_rss_mb']:.0f} MB; peak after its close "
                         f"{runs[-1]['max_rss_mb']:.0f} MB")
    return "\n".join(lines)
