"""``scrapy-declutter evaluate``: score extractors and peers on one or more dataset folders.

All datasets run in one run (the same machine load for every figure); the
output is one table per dataset, then a summary with every dataset on a line
and every system side by side. ``--cv`` pools the sets and deals their
(dataset, domain) groups into folds. ``--metadata`` adds, per dataset, the
metadata scores of ``lab.metadata_eval`` (ours, and trafilatura's when it is
one of the ``-e`` names), in the same run so the ms/page figures compare.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate", help="score extractors on datasets in the WCXB layout",
        description="Mean word P/R/F1 (the WCXB metric), F1 per page type, snippet checks, "
                    "pages/s and time relative to plain lxml parsing, all in one run, one table "
                    "per dataset and a summary. Snippet-only sets (no main_content) are scored "
                    "by with-rate and without-rate. Peers (trafilatura, readability, "
                    "boilerpy3-article, boilerpy3-default, peer:justext) need "
                    "pip install 'scrapy-declutter[bench]'. Dataset format: docs/evaluation.md.")
    p.add_argument("datasets", nargs="+", metavar="DATASET_DIR")
    p.add_argument("--extractor", "-e", action="append", dest="extractors", metavar="NAME",
                   help="extractor or peer name; repeat for several (default: default)")
    p.add_argument("--limit", type=int, help="only the first N pages of each dataset")
    p.add_argument("--jobs", "-j", type=int, default=1,
                   help="worker processes (default 1; use 1 for speed figures)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json-out", metavar="FILE",
                   help="also write every per-page score as JSON lines")
    p.add_argument("--bytes", action="store_true", dest="as_bytes",
                   help="hand our extractors each page's bytes, as a crawl does (they decode "
                        "them, timed); peers and the lxml floor still get the decoded text")
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
                        "grouped by (dataset, domain) across all the given sets, each page "
                        "scored by a model trained on the other folds; peers run in the same "
                        "loop (needs the train extra)")
    p.add_argument("--cv-models", metavar="DIR",
                   help="with --cv: keep the fold models in DIR and use them again when a "
                        "later run has the same pages, folds and feature columns (for "
                        "changes after the model: decision rules, peers)")
    p.add_argument("--no-second-stage", dest="second_stage", action="store_false",
                   help="with --cv: fold models of the first stage only (the lighter model "
                        "issue 42 weighs; keep them in another --cv-models DIR)")
    p.add_argument("--no-page-types", dest="type_stage", action="store_false",
                   help="with --cv: fold models without the page-type classifier (its columns "
                        "empty, one cut for every page)")
    p.add_argument("--metadata", action="store_true",
                   help="also score metadata where the ground truth has it: title exact match, "
                        "author token F1, publication date (same day), for ours and, when "
                        "listed with -e, trafilatura's; one more extraction per page")
    p.set_defaults(func=run)


def dataset_names(folders: list[str]) -> list[str]:
    """The name each dataset is reported under (its folder's name); two sets may not share one."""
    from ...errors import DeclutterError

    names = [Path(f).resolve().name for f in folders]
    for name in set(names):
        if names.count(name) > 1:
            raise DeclutterError(f"two datasets are named {name!r}; "
                                 "give folders with distinct names")
    return names


def run(args: argparse.Namespace) -> int:
    from ..dataset import load_dataset, load_texts

    names = args.extractors or ["default"]
    labels = dataset_names(args.datasets)
    if args.cv:
        from ..extras import require

        require("evaluate --cv", "sklearn")
    if args.site_learning:
        return _site_learning(args, names, [load_texts(d, args.limit) for d in args.datasets])
    sets = [load_dataset(d, args.limit) for d in args.datasets]
    if args.stages:
        from ..evaluation.stages import format_stages, stage_times

        for folder, samples in zip(args.datasets, sets):
            for name in names:
                print(f"{name} on {folder}: {len(samples)} pages (CPU time)")
                print(format_stages(stage_times(samples, name)))
        return 0
    samples = [s for group in sets for s in group]
    if args.cv:
        from ..evaluation.crossval import evaluate_cv

        scores = evaluate_cv(samples, names, args.cv, progress=not args.no_progress,
                             jobs=args.jobs, models_dir=args.cv_models,
                             second_stage=args.second_stage, type_stage=args.type_stage)
    else:
        from ..evaluation.runner import run as run_eval

        scores = run_eval(samples, names, jobs=args.jobs, progress=not args.no_progress,
                          as_bytes=args.as_bytes)
    _print_tables(args.datasets, labels, scores)
    if args.metadata:
        _print_metadata(args.datasets, sets, peers="trafilatura" in names)
    if args.json_out:
        from dataclasses import asdict

        with open(args.json_out, "w", encoding="utf-8") as fh:
            for s in scores:
                fh.write(json.dumps(asdict(s)) + "\n")
    return 0


def _print_tables(folders: list[str], labels: list[str], scores: list) -> None:
    from ..evaluation.tables import (
        by_dataset,
        format_summary,
        format_table,
        lxml_ms_per_page,
        summarise,
    )

    groups = by_dataset(scores)
    tables = {}
    for folder, label in zip(folders, labels):
        group = groups[label]
        tables[label] = rows = summarise(group)
        pages = max((r.pages for r in rows), default=0)
        print(f"{pages} pages from {folder}")
        print(format_table(rows, lxml_ms_per_page(group)))
        print()
    if len(tables) > 1:
        print(format_summary(tables))


def _print_metadata(folders: list[str], sets: list, *, peers: bool) -> None:
    from ..metadata_eval import evaluate, format_table

    for folder, samples in zip(folders, sets):
        print(f"metadata of {len(samples)} pages from {folder} (each score over the pages "
              "whose ground truth has the field)")
        print(format_table(evaluate(samples, peers=peers)))
        print()


def _site_learning(args: argparse.Namespace, names: list[str], sets: list) -> int:
    from dataclasses import asdict

    from ..evaluation.sitelearning import format_site_table, run_site_learning

    for folder, samples in zip(args.datasets, sets):
        for name in names:
            rows = run_site_learning(samples, name, min_pages=args.min_pages)
            print(f"{folder}:")
            print(format_site_table(rows, name))
            if args.json_out:
                with open(args.json_out, "a", encoding="utf-8") as fh:
                    for r in rows:
                        fh.write(json.dumps({"dataset": samples[0].dataset, "extractor": name,
                                             **asdict(r)}) + "\n")
    return 0
