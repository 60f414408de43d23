"""``scrapy-declutter train-model``: rebuild the learned extractor's model file from dataset folders.

Prints the grouped cross-validation scores first (block-level decisions
scored with each dataset's word metric, per dataset and page type), then
trains on every page of every set and writes the ``.npz`` model. Needs the
``train`` extra (scikit-learn; LightGBM when installed). Pages of a set
without reference texts (snippets only) are trained on with weak labels
from their snippets, and scored by nothing here (``evaluate --cv`` does).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

#: Where the shipped model lives in a source checkout.
SHIPPED = Path(__file__).resolve().parents[2] / "models" / "learned-blocks.npz"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train-model", help="train the learned extractor's model on datasets in the WCXB layout",
        description="Label blocks by aligning them with the ground truth, print K-fold "
                    "cross-validation scores grouped by (dataset, domain), then train on all "
                    "pages and write the model file (needs the train extra: "
                    "pip install 'scrapy-declutter[train]').")
    p.add_argument("datasets", nargs="+", metavar="DATASET_DIR")
    p.add_argument("--out", type=Path, default=SHIPPED,
                   help="model file to write (default: the shipped %(default)s)")
    p.add_argument("--cv", type=int, default=5, metavar="K",
                   help="folds for the cross-validation report; 0 skips it (default %(default)s)")
    p.add_argument("--limit", type=int, help="only the first N pages of each dataset")
    p.add_argument("--no-second-stage", dest="second_stage", action="store_false",
                   help="train the first stage only (no context columns, no second trees)")
    p.add_argument("--no-page-types", dest="type_stage", action="store_false",
                   help="no page-type classifier (its columns empty, one cut for every page)")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..extras import require

    require("train-model", "sklearn")
    from ..dataset import load_dataset
    from ..training.learned import Corpus, by_type, out_of_fold, page_scores, train

    progress = not args.no_progress
    samples = [s for d in args.datasets for s in load_dataset(d, args.limit)]
    corpus = Corpus.build(samples, progress=progress)
    print(f"{len(corpus)} pages, {sum(len(p.blocks) for p in corpus.pages)} blocks "
          f"from {', '.join(args.datasets)}")
    if args.cv and args.cv > 1:
        scores = page_scores(corpus, out_of_fold(corpus, args.cv, progress=progress))
        scored = [f1 for f1, s in zip(scores, samples) if s.has_text]
        print(f"{args.cv}-fold CV grouped by (dataset, domain): mean word F1 "
              f"{statistics.fmean(scored):.4f} over the {len(scored)} pages with text")
        for group, f1 in by_type(corpus, scores).items():
            print(f"  {group:<32} {f1:.4f}")
    model = train(corpus, range(len(corpus)), second_stage=args.second_stage,
                  type_stage=args.type_stage, progress=progress)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    size = args.out.stat().st_size
    print(f"wrote {args.out} ({size / 1024:.0f} KiB, {model.trees.n_trees} block trees, "
          f"{len(model.page_types)} page-type ensembles, {len(model.odds)} tokens)",
          file=sys.stderr if not progress else sys.stdout)
    return 0
