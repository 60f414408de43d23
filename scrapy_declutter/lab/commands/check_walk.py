"""``scrapy-declutter check-walk``: the compiled parts (the walk, the learned step's) against their references.

Builds every page of a dataset on both walks and compares blocks, learned
features and labels (``lab.walks``); prints ``identical on N/N pages`` and
both walks' segmentation time, and exits 1 on any difference.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check-walk", help="compare the compiled walk and feature parts with the pure-Python ones",
        description="Build every page of DATASET_DIR on the compiled parts and on their pure-Python "
                    "references; compare blocks (every field), learned features and the "
                    "extractor's labels. Exit 1 on any difference.")
    p.add_argument("dataset", metavar="DATASET_DIR")
    p.add_argument("--limit", type=int, help="only the first N pages")
    p.add_argument("-e", "--extractor", default="default",
                   help="the chain whose labels are compared (default %(default)s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ...errors import DeclutterError
    from ..dataset import load_dataset
    from ..walks import check_walks

    samples = load_dataset(args.dataset, args.limit)
    try:
        check = check_walks(samples, args.extractor)
    except RuntimeError as exc:
        raise DeclutterError(str(exc)) from exc
    print(check.summary())
    return 1 if check.differing else 0
