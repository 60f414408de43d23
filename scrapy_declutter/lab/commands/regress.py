"""``scrapy-declutter regress save|compare``: prove a refactor changes no label, score or text.

``save`` runs every registered extractor, the composed chains and the
site-learning runs of ``lab.regress`` over a dataset and writes the records;
``compare`` runs them again and compares with a saved file: a table per
system of pages whose text, labels or scores differ, and exit status 1 on any
difference. With ``--limit`` or ``-e`` only those pages and systems are
compared, so a quick check can run against a full saved run.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "regress", help="save a run of every extractor over a dataset, or compare against one",
        description="save: run every registered extractor, composition and site-learning run "
                    "over DATASET_DIR and write RUN (gzip'd JSON lines). compare: run them again "
                    "and compare with RUN; print a table per system and exit 1 on any difference.")
    p.add_argument("action", choices=["save", "compare"])
    p.add_argument("dataset", metavar="DATASET_DIR")
    p.add_argument("run_file", metavar="RUN.jsonl.gz",
                   help="the saved run to write or to compare against")
    p.add_argument("--limit", type=int, help="only the first N pages")
    p.add_argument("-e", "--extractor", action="append", dest="systems", metavar="NAME",
                   help="only this system (repeatable; default: all, see lab.regress.systems)")
    p.add_argument("--jobs", "-j", type=int, default=2,
                   help="worker processes (default %(default)s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    from ...errors import DeclutterError
    from ..dataset import load_dataset
    from ..regress import compare_runs, differences, format_comparison, save_run

    pages = {s.file_id for s in load_dataset(args.dataset, args.limit)}  # refuses a non-dataset
    if args.action == "compare" and not Path(args.run_file).is_file():
        raise DeclutterError(f"no saved run at {args.run_file}; make one with `regress save`")
    if args.action == "save":
        n = save_run(args.dataset, args.run_file, limit=args.limit, jobs=args.jobs,
                     names=args.systems)
        print(f"{n} records ({len(pages)} pages) written to {args.run_file}")
        return 0
    with tempfile.TemporaryDirectory(prefix="declutter-regress-") as tmp:
        now = Path(tmp) / "now.jsonl.gz"
        save_run(args.dataset, now, limit=args.limit, jobs=args.jobs, names=args.systems)
        table = compare_runs(args.run_file, now, pages=pages, names=args.systems)
    print(format_comparison(table))
    compared = sum(row["pages"] for row in table.values())
    diff = differences(table)
    print(f"{compared} (system, page) pairs compared over {len(pages)} pages: "
          + (f"{diff} differ or are missing" if diff else "identical"))
    return 1 if diff else 0
