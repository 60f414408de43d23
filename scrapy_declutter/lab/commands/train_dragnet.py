"""``scrapy-declutter train-dragnet``: rebuild the Dragnet model file from a WCXB folder.

Labels come from aligning each block's text with the page's ground truth.
The command prints the out-of-fold word P/R/F1 of a K-fold cross-validation
grouped by domain (the dataset's rule for models trained on it: no site in
both the training and the scored fold), then trains on every page and
writes the JSON model. NumPy only; no scikit-learn needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: Where the shipped model lives in a source checkout.
SHIPPED = Path(__file__).resolve().parents[2] / "models" / "dragnet.json"


def register(sub: argparse._SubParsersAction) -> None:
    from ..training.dragnet import FOLDS, L2, MAX_TOKENS, MIN_DOMAINS

    p = sub.add_parser(
        "train-dragnet", help="train the Dragnet classifier on a WCXB-format dataset",
        description="Label blocks by aligning them with the ground truth, print K-fold "
                    "cross-validation scores grouped by domain, then train on all pages and "
                    "write the Dragnet model (JSON).")
    p.add_argument("dataset", metavar="DATASET_DIR")
    p.add_argument("--out", type=Path, default=SHIPPED,
                   help="model file to write (default: the shipped %(default)s)")
    p.add_argument("--cv", type=int, default=FOLDS, metavar="K",
                   help="folds for the cross-validation report; 0 skips it (default %(default)s)")
    p.add_argument("--l2", type=float, default=L2, help="L2 penalty (default %(default)s)")
    p.add_argument("--min-domains", type=int, default=MIN_DOMAINS,
                   help="domains a class/id token must appear on to get odds (default %(default)s)")
    p.add_argument("--max-tokens", type=int, default=MAX_TOKENS,
                   help="size cap of the token odds table (default %(default)s)")
    p.add_argument("--ablation", action="store_true",
                   help="also cross-validate with feature families left out (the paper's table)")
    p.add_argument("--limit", type=int, help="only the first N pages")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..dataset import load_texts
    from ..training.dragnet import (
        ABLATIONS,
        CITATION,
        build_corpus,
        cross_validate,
        f1_by_type,
        mean_scores,
        train,
    )

    def tick(i: int) -> None:
        if not args.no_progress and (i + 1) % 100 == 0:
            print(f"  featurised {i + 1} pages", file=sys.stderr)

    samples = load_texts(args.dataset, args.limit)
    pages, vocab = build_corpus(samples, progress=tick)
    blocks = sum(len(pd.texts) for pd in pages)
    print(f"{len(pages)} pages, {blocks} blocks, {len(vocab)} distinct class/id tokens from {args.dataset}")
    params = {"l2": args.l2, "min_domains": args.min_domains, "max_tokens": args.max_tokens}
    meta: dict = {**CITATION, "params": params, "pages": len(pages)}
    if args.cv and args.cv > 1:
        if args.ablation:
            for name, features in ABLATIONS.items():
                mean = mean_scores(cross_validate(pages, vocab, folds=args.cv, features=features,
                                                  **params))
                print(f"{args.cv}-fold CV, {name:<24} P {mean.precision:.4f}  "
                      f"R {mean.recall:.4f}  F1 {mean.f1:.4f}")
        scores = cross_validate(pages, vocab, folds=args.cv, **params)
        mean = mean_scores(scores)
        print(f"{args.cv}-fold CV grouped by domain (out-of-fold): "
              f"P {mean.precision:.4f}  R {mean.recall:.4f}  F1 {mean.f1:.4f}")
        by_type = f1_by_type(pages, scores)
        for page_type, (n, f1) in by_type.items():
            print(f"  {page_type:<14} {n:>5} pages  F1 {f1:.4f}")
        meta["cross_validation"] = {
            "folds": args.cv, "grouped_by": "domain",
            "precision": round(mean.precision, 4), "recall": round(mean.recall, 4),
            "f1": round(mean.f1, 4),
            "f1_by_page_type": {t: round(f1, 4) for t, (_n, f1) in by_type.items()},
        }
    model = train(pages, vocab, meta=meta, **params)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model.to_dict(), indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    size = args.out.stat().st_size
    print(f"wrote {args.out} ({size / 1024:.0f} KiB, {len(model.token_odds)} tokens)")
    return 0
