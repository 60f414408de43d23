"""``scrapy-declutter adversarial``: worst time and peak memory of extract() on each adversarial page."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "adversarial", help="time and peak memory of extract() on broken and oversized pages",
        description="Extract each adversarial page (issue 7) in a fresh process; print the worst "
                    "wall time of --repeat runs, peak resident memory and the Result's reason.")
    p.add_argument("--repeat", type=int, default=3, help="runs per page (default: %(default)s)")
    p.add_argument("-k", dest="pattern", default="", help="only pages whose name contains this")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..adversarial import PAGES, measure

    print(f"{'page':34s} {'bytes':>11s} {'worst s':>8s} {'peak MB':>8s} {'blocks':>7s}  reason")
    for name in PAGES:
        if args.pattern in name:
            m = measure(name, args.repeat)
            print(f"{name:34s} {m['bytes']:11,d} {m['worst_s']:8.3f} {m['maxrss_mb']:8.0f} "
                  f"{m['blocks']:7d}  {m['reason'][:60]}", flush=True)
    return 0
