"""Honest scores for the learned extractor: each page scored by a model that never saw its domain.

``evaluate --cv K`` deals the (dataset, domain) groups of all the given sets
into K folds, trains one model per fold on the other folds' pages, writes it
to a temporary model file, and then runs the ordinary evaluation runner page
by page, with ``default`` / ``learned`` resolved to
``learned(model=<that fold's file>)``. Peers and the lxml floor run on the
same pages in the same loop, so the speed ratios are those of the shipped
extractor (the fold models have the same shape). Pages of snippet-only sets
are trained on with weak labels (``training.labels.snippet_labels``) and
scored by their snippets, out of fold like every other page.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Sequence

from ...registry import DEFAULT
from ..dataset import Sample
from ..training.learned import Corpus, domain_folds, train
from .runner import PageScore, resolve_system, score_sample

#: Names whose model is swapped for the fold's one.
LEARNED_NAMES = ("learned",)


def uses_learned(name: str) -> bool:
    """Whether ``name`` starts with the learned extractor (directly or as ``default``)."""
    base = name.split("+")[0].split("(")[0].strip()
    if base == "default":
        base = DEFAULT.split("+")[0].split("(")[0]
    return base in LEARNED_NAMES


def fold_spec(name: str, model_path: Path) -> str:
    """The extractor spec that runs ``name`` with a fold's model file (later steps kept)."""
    first, _, rest = name.partition("+")
    if first.split("(")[0].strip() == "default":  # its parameters go to the learned step
        default_first, _, rest = DEFAULT.partition("+")
        first = first if "(" in first else default_first
    params = first.partition("(")[2].rstrip(")").strip()
    extra = f",{params}" if params else ""
    return f'learned(model="{model_path.as_posix()}"{extra})' + (f"+{rest}" if rest else "")


def evaluate_cv(samples: Sequence[Sample], systems: Sequence[str], k: int = 5, *,
                progress: bool = True) -> list[PageScore]:
    """Score ``systems`` on ``samples``, the learned ones out-of-fold (K folds of domains)."""
    for name in systems:
        if not uses_learned(name):
            resolve_system(name)  # unknown names fail before any training
    folds = domain_folds(samples, k)
    with tempfile.TemporaryDirectory(prefix="declutter-cv-") as tmp:
        corpus = Corpus.build(samples, progress=progress)
        paths = []
        for f in range(k):
            train_idx = [i for i, g in enumerate(folds) if g != f]
            path = Path(tmp) / f"fold{f}.npz"
            train(corpus, train_idx).save(path)
            paths.append(path)
            if progress:
                print(f"  fold {f + 1}/{k}: model trained on {len(train_idx)} pages "
                      f"of other domains", file=sys.stderr)
        del corpus
        scores: list[PageScore] = []
        for i, (sample, fold) in enumerate(zip(samples, folds)):
            specs = [fold_spec(n, paths[fold]) if uses_learned(n) else n for n in systems]
            for s in score_sample(sample, specs):
                if s.system in specs and uses_learned(systems[specs.index(s.system)]):
                    s.system = f"{systems[specs.index(s.system)]} (cv{k})"
                scores.append(s)
            if progress and (i + 1) % 100 == 0:
                print(f"  scored {i + 1}/{len(samples)} pages", file=sys.stderr)
    return scores
