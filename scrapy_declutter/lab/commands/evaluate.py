"""``scrapy-declutter evaluate``: score extractors and peers on a WCXB-format folder."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate", help="score extractors on a WCXB-format dataset",
        description="Mean word P/R/F1 (the WCXB metric), F1 per page type, snippet checks, "
                    "pages/s and time relative to plain lxml parsing, all in one run. "
                    "Peers (trafilatura, readability, boilerpy3-article, boilerpy3-default, "
                    "peer:justext) need `pip install -e .[bench]`.")
    p.add_argument("dataset", metavar="DATASET_DIR")
    p.add_argument("--extractor", "-e", action="append", dest="extractors", metavar="NAME",
                   help="extractor or peer name; repeat for several (default: default)")
    p.add_argument("--limit", type=int, help="only the first N pages")
    p.add_argument("--jobs", "-j", type=int, default=1,
                   help="worker processes (default 1; use 1 for speed figures)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json-out", metavar="FILE", help="also write every per-page score as JSON lines")
    p.add_argument("--stages", action="store_true",
                   help="instead of scoring, print ms/page for parsing, segmentation and each "
                        "step of each (own) extractor")
    p.add_argument("--site-learning", action="store_true",
                   help="instead: score each extractor without site learning, on a first pass "
                        "and on a re-crawl with it, pages grouped by site (sites with at least "
                        "--min-pages pages), with a per-site table")
    p.add_argument("--min-pages", type=int, default=3,
                   help="with --site-learning: smallest site to include (default %(default)s)")
    p.add_argument("--cv", type=int, default=0, metavar="K",
                   help="score the learned extractor (default/learned) out-of-fold: K folds "
                        "grouped by domain, each page scored by a model trained on the other "
                        "folds' domains; peers run in the same loop (needs the train extra)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from ..dataset import load_dataset
    from ..evaluation.runner import format_table, lxml_ms_per_page, run as run_eval, summarise

    names = args.extractors or ["default"]
    samples = load_dataset(args.dataset, args.limit)
    if args.site_learning:
        from ..evaluation.sitelearning import format_site_table, run_site_learning

        for name in names:
            rows = run_site_learning(samples, name, min_pages=args.min_pages)
            print(format_site_table(rows, name))
            if args.json_out:
                with open(args.json_out, "a", encoding="utf-8") as fh:
                    for r in rows:
                        fh.write(json.dumps({"extractor": name, **asdict(r)}) + "\n")
        return 0
    if args.stages:
        from ..evaluation.stages import format_stages, stage_times

        for name in names:
            print(f"{name}: {len(samples)} pages (CPU time)")
            print(format_stages(stage_times(samples, name)))
        return 0
    if args.cv:
        from ..evaluation.crossval import evaluate_cv

        scores = evaluate_cv(samples, names, args.cv, progress=not args.no_progress)
    else:
        scores = run_eval(samples, names, jobs=args.jobs, progress=not args.no_progress)
    print(f"{len(samples)} pages from {args.dataset}")
    print(format_table(summarise(scores), lxml_ms_per_page(scores)))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            for s in scores:
                fh.write(json.dumps(asdict(s)) + "\n")
    return 0
