"""``scrapy-declutter train-confidence``: rebuild the per-page confidence model from dataset folders.

One command does it all: the block model's K fold models (kept in
``--cv-models`` and used again when ``evaluate --cv K --cv-models`` with the
same sets left them there), every full-text page extracted with the fold
model that never saw its domain, the confidence's own grouped cross-validation
(AUC before and after, calibration table), then the fit on every page and the
JSON file. Snippet-only sets train the fold models, as they train the
shipped one, but have no F1 to fit to.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

#: Where the shipped model lives in a source checkout.
SHIPPED = Path(__file__).resolve().parents[2] / "models" / "confidence.json"
#: The command that rebuilt the shipped file, cited in it.
COMMAND = ("scrapy-declutter train-confidence ../shared/data/wcxb-dev ../shared/data/l3s-gn1 "
           "../shared/data/readability-tests ../shared/data/cleaneval ../shared/data/sites-dev "
           "../shared/data/big9-dev ../shared/data/trafilatura-eval --cv-models DIR -j 2")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train-confidence", help="train the per-page confidence on datasets in the WCXB layout",
        description="Extract every full-text page with a block model that did not see its domain "
                    "(K folds, as evaluate --cv), fit the confidence to the pages' F1, print its "
                    "grouped out-of-fold ROC AUC (F1 < 0.7) against margin x substance, its "
                    "calibration table and the extraction's out-of-fold mean P/R/F1, then write "
                    "the model fitted on every page (needs the train extra: pip install "
                    "'scrapy-declutter[train]').")
    p.add_argument("datasets", nargs="+", metavar="DATASET_DIR")
    p.add_argument("--out", type=Path, default=SHIPPED,
                   help="model file to write (default: the shipped %(default)s)")
    p.add_argument("--cv", type=int, default=5, metavar="K",
                   help="folds of the block model and of the confidence's own cross-validation "
                        "(default %(default)s)")
    p.add_argument("--cv-models", metavar="DIR",
                   help="keep the block model's fold models in DIR, or use those an earlier "
                        "run (or evaluate --cv K --cv-models DIR on the same sets) left there")
    p.add_argument("--pages-out", metavar="FILE",
                   help="also write every page's signals, F1 and out-of-fold confidence as "
                        "JSON lines")
    p.add_argument("--limit", type=int, help="only the first N pages of each dataset")
    p.add_argument("--jobs", "-j", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..extras import require

    require("train-confidence", "sklearn")
    from ..dataset import load_dataset
    from ..evaluation.crossval import fold_models, fold_spec
    from ..training.confidence import CITATION, fit, format_report, out_of_fold
    from ..training.learned import domain_folds

    started = time.process_time(), time.perf_counter()
    progress = not args.no_progress
    samples = [s for d in args.datasets for s in load_dataset(d, args.limit)]
    folds = domain_folds(samples, args.cv)
    with fold_models(samples, folds, args.cv, args.cv_models, progress) as paths:
        todo = [(s, fold_spec("default", paths[f])) for s, f in zip(samples, folds) if s.has_text]
        rows = _rows(todo, args.jobs, progress)
    confidence = out_of_fold(rows, args.cv)
    print(f"{len(rows)} full-text pages of {', '.join(args.datasets)}; confidence out of fold "
          f"({args.cv} folds by (dataset, domain)), block labels out of fold too")
    print(format_report(rows, confidence))
    if args.pages_out:
        _write_pages(args.pages_out, rows, confidence)
    model = fit(rows, {"data": CITATION, "command": COMMAND, "pages": len(rows)})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    cpu, wall = time.process_time() - started[0], time.perf_counter() - started[1]
    print(f"wrote {args.out} ({len(model.names)} signals); {wall:.0f} s wall, "
          f"{cpu:.0f} s CPU in this process", file=sys.stderr)
    return 0


def _rows(todo: list, jobs: int, progress: bool) -> list:
    """``page_row`` of every (sample, spec), in order, on ``jobs`` processes."""
    from concurrent.futures import ProcessPoolExecutor

    from ..training.confidence import page_row

    if jobs <= 1:
        rows = []
        for i, (s, spec) in enumerate(todo):
            rows.append(page_row(s, spec))
            if progress and i % 500 == 499:
                print(f"  {i + 1}/{len(todo)} pages extracted", file=sys.stderr)
        return rows
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(page_row, *zip(*todo), chunksize=8))


def _write_pages(path: str, rows: list, confidence) -> None:
    """One JSON line per page: which page, its F1, both confidences and its named signals."""
    import json

    from ...metadata.signals import SIGNAL_NAMES

    with open(path, "w", encoding="utf-8") as fh:
        for r, c in zip(rows, confidence):
            fh.write(json.dumps({"dataset": r.dataset, "domain": r.domain, "file_id": r.file_id,
                                 "page_type": r.page_type, "f1": r.f1, "before": r.before,
                                 "confidence": round(float(c), 4),
                                 "signals": dict(zip(SIGNAL_NAMES, r.signals.tolist()))}) + "\n")
