"""Fitting the per-page confidence to out-of-fold F1, and measuring it honestly.

Each page of a full-text set is extracted with the block model of the fold
that did not see its domain (``page_row``, given that fold's extractor spec),
so its signals are those of a page the model never saw, and its word F1 is
scored against the gold. The confidence model is then cross-validated over
the pages, grouped by (dataset, domain) again, so every figure of the report
(ROC AUC for telling pages with F1 < ``BAD_F1`` from the rest, the calibration
table) comes from a model that saw neither the page's blocks nor its F1.
The shipped model is fitted on every page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...api import extract
from ...metadata.confidence import ConfidenceModel
from ...metadata.signals import SIGNAL_NAMES, margin_substance, page_signals
from ...page import decode_html
from ..dataset import Sample
from ..metric import word_prf
from .boosting import export_trees, fit_trees
from .learned import domain_folds

#: A page under this F1 is a failed extraction (the issue's line; the calibration table's too).
BAD_F1 = 0.7
#: The confidence's trees: few and shallow, as a few thousand pages can fit (see
#: docs/results.md, "A calibrated confidence", for what else was tried).
PARAMS = dict(max_iter=60, learning_rate=0.1, max_leaf_nodes=3, max_depth=2,
              min_samples_leaf=30, l2_regularization=1.0, early_stopping=False)
#: The calibration table's bins of confidence.
BINS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001)
CITATION = (
    "WCXB, the Web Content eXtraction Benchmark, by Murrough Foley (2026), dev split, CC-BY-4.0; "
    "L3S-GN1 (Kohlschütter, Fankhauser, Nejdl, WSDM 2010), research use; Mozilla Readability's "
    "test pages, Apache-2.0; CleanEval 2007 (Baroni et al., LREC 2008), research use; "
    "CleanPortalEval (Endrédy and Novák, Polibits 48, 2013), research use; Big9 (Utomo and Leu), "
    "research use; block labels out of fold from models also trained on trafilatura's "
    "evaluation set (snippets), Apache-2.0 repository, pages for research use"
)


@dataclass
class PageRow:
    """One page's out-of-fold signals, its F1 and the confidence it had before the model."""

    dataset: str
    domain: str
    file_id: str
    page_type: str
    signals: np.ndarray
    f1: float
    #: ``margin_substance``: the confidence before this model, for the before/after table.
    before: float
    #: The page's word precision and recall (the F1's), for the report's mean P/R/F1.
    precision: float = 0.0
    recall: float = 0.0


def page_row(sample: Sample, spec: str) -> PageRow:
    """Extract a page with extractor ``spec`` (its fold's model) and score it against the gold;
    the page is decoded as ``evaluate`` decodes it, so the F1s are the evaluation's."""
    result = extract(decode_html(sample.html_bytes()), sample.url, extractor=spec)
    signals = page_signals(result.blocks, result.page_type, result.page_type_probability)
    score = word_prf(result.text, sample.main_content or "")
    return PageRow(sample.dataset, sample.domain, sample.file_id, sample.page_type, signals,
                   score.f1, round(margin_substance(result.blocks), 4), score.precision,
                   score.recall)


def fit(rows: Sequence[PageRow], meta: dict | None = None) -> ConfidenceModel:
    """Trees whose probability is each page's F1: every page is a positive of weight F1 and a
    negative of weight 1 − F1 (cross-entropy with F1 as a soft target)."""
    x = np.vstack([r.signals for r in rows])
    f1 = np.array([r.f1 for r in rows])
    both = np.vstack([x, x])
    labels = np.r_[np.ones(len(rows)), np.zeros(len(rows))].astype(int)
    weights = np.r_[f1, 1.0 - f1] + 1e-9  # a zero weight is refused by some boosters
    trees = export_trees(fit_trees(both, labels, weights, PARAMS))
    return ConfidenceModel(SIGNAL_NAMES, trees, dict(meta or {}))


def out_of_fold(rows: Sequence[PageRow], k: int = 5) -> np.ndarray:
    """Each page's confidence from the model fitted on the other folds' (dataset, domain) groups."""
    folds = np.array(domain_folds(rows, k))  # type: ignore[arg-type]
    x = np.vstack([r.signals for r in rows])
    out = np.zeros(len(rows))
    for f in range(k):
        held = folds == f
        if held.any():
            out[held] = fit([r for r, g in zip(rows, folds) if g != f]).predict(x[held])
    return out


def roc_auc(confidence: Sequence[float], f1: Sequence[float], bad: float = BAD_F1) -> float:
    """ROC AUC of the confidence for telling pages with F1 < ``bad`` (low confidence) from the
    rest; NaN when a set has only one kind of page."""
    from sklearn.metrics import roc_auc_score

    is_bad = np.asarray(f1) < bad
    if is_bad.all() or not is_bad.any():
        return float("nan")
    return float(roc_auc_score(is_bad, -np.asarray(confidence)))


@dataclass
class CalibrationBin:
    """Pages whose confidence fell in [low, high): how many, their mean F1, the share of failures."""

    low: float
    high: float
    pages: int
    mean_f1: float
    bad_share: float


def calibration(confidence: Sequence[float], f1: Sequence[float],
                bins: Sequence[float] = BINS) -> list[CalibrationBin]:
    """The calibration table: pages binned by confidence, against their F1."""
    c, y = np.asarray(confidence), np.asarray(f1)
    out = []
    for low, high in zip(bins, bins[1:]):
        inside = (c >= low) & (c < high)
        n = int(inside.sum())
        out.append(CalibrationBin(low, min(high, 1.0), n, float(y[inside].mean()) if n else 0.0,
                                  float((y[inside] < BAD_F1).mean()) if n else 0.0))
    return out


def by_dataset(rows: Sequence[PageRow]) -> dict[str, list[int]]:
    """Row indices of each dataset, in order of first appearance."""
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.dataset, []).append(i)
    return groups


def format_report(rows: Sequence[PageRow], confidence: np.ndarray) -> str:
    """Per set: pages, share with F1 < ``BAD_F1``, AUC before (margin × substance) and after;
    then the calibration table of every set together and of each, and the extraction's
    own out-of-fold mean P/R/F1 per set and per page type of the sets that name several."""
    f1 = np.array([r.f1 for r in rows])
    before = np.array([r.before for r in rows])
    groups = {"all": list(range(len(rows))), **by_dataset(rows)}
    lines = [f"{'set':<20} {'pages':>6} {'F1<' + str(BAD_F1):>7} {'AUC before':>10} "
             f"{'AUC after':>9}"]
    for name, idx in groups.items():
        lines.append(f"{name:<20} {len(idx):>6} {float((f1[idx] < BAD_F1).mean()):>7.3f} "
                     f"{roc_auc(before[idx], f1[idx]):>10.3f} {roc_auc(confidence[idx], f1[idx]):>9.3f}")
    for name, idx in groups.items():
        lines += ["", f"calibration, {name} (out of fold): confidence bin, pages, mean F1, "
                      f"share with F1 < {BAD_F1}"]
        for b in calibration(confidence[idx], f1[idx]):
            lines.append(f"  [{b.low:.1f}, {b.high:.1f}{']' if b.high >= 1 else ')'} {b.pages:>6} "
                         f"{b.mean_f1:>7.3f} {b.bad_share:>7.3f}")
    lines += ["", "the extraction, out of fold (block labels from the fold model that did not see "
                  "the page's domain): mean word P / R / F1"]
    for name, idx in groups.items():
        lines.append(_prf_line(name, [rows[i] for i in idx]))
        types = by_type([rows[i] for i in idx]) if name != "all" else {}
        if len(types) > 1:
            lines += [_prf_line(f"  {t}", group) for t, group in types.items()]
    return "\n".join(lines)


def by_type(rows: Sequence[PageRow]) -> dict[str, list[PageRow]]:
    """The rows of each page type the dataset names, largest first."""
    groups: dict[str, list[PageRow]] = {}
    for r in rows:
        groups.setdefault(r.page_type or "-", []).append(r)
    return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def _prf_line(name: str, rows: Sequence[PageRow]) -> str:
    p, r, f = (float(np.mean([getattr(x, k) for x in rows])) for k in ("precision", "recall", "f1"))
    return f"{name:<20} {len(rows):>6} {p:.4f} / {r:.4f} / {f:.4f}"
