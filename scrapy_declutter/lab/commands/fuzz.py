"""``scrapy-declutter fuzz``: a long property-based run of ``extract()`` (needs Hypothesis, the test extra)."""

from __future__ import annotations

import argparse
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fuzz", help="fuzz extract() with generated HTML trees and byte soups",
        description="Check extract()'s invariants (no exception, text is page text in order, "
                    "labels, JSON, no hidden text) on generated inputs; exit 1 on a failure.")
    p.add_argument("--examples", type=int, default=1000, help="inputs per kind and extractor (default: %(default)s)")
    p.add_argument("-e", "--extractor", action="append", help="extractor to fuzz (repeatable; default: all)")
    p.add_argument("--seed", type=int, help="random seed (default: a fresh one)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..extras import require

    require("fuzz", "hypothesis")
    import logging

    from hypothesis import HealthCheck, given, seed, settings

    from ... import extractors
    from ..fuzzing import byte_soups, check_invariants, content_types, html_documents

    logging.getLogger("scrapy_declutter").setLevel(logging.CRITICAL)  # pass-throughs are expected here
    names = args.extractor or extractors()
    config = settings(max_examples=args.examples, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
    failures = 0
    for name in names:
        for kind, strategy in (("html", html_documents()), ("bytes", byte_soups())):
            count = 0

            @config
            @given(page=strategy, content_type=content_types())
            def prop(page: str | bytes, content_type: str | None) -> None:
                nonlocal count
                count += 1
                check_invariants(page, extractor=name, content_type=content_type)  # noqa: B023 - run in this iteration

            if args.seed is not None:
                prop = seed(args.seed)(prop)
            start = time.perf_counter()
            try:
                prop()
                outcome = "ok"
            except Exception as exc:  # noqa: BLE001 - report every broken invariant, then go on
                failures += 1
                outcome = f"FAILED: {exc}"
            print(f"{name:20s} {kind:6s} {count:7d} inputs {time.perf_counter() - start:7.1f} s  {outcome}",
                  flush=True)
    return 1 if failures else 0
