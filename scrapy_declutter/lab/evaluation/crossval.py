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

With ``models_dir`` the fold models are kept there and used again by a later
run on the same pages and folds (``folds.json`` says which): training is
most of a run's time, and a change after the model (a rule of ``decide``,
a peer) is then measured in minutes. A change to blocks or features makes
the kept models stale; the manifest catches a change of the feature
columns, not of their values, so such a change needs a fresh folder.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterator, Sequence

from ...registry import DEFAULT
from ...steps.learned.context import context_names
from ...steps.learned.features import feature_names
from ..dataset import Sample
from ..training.learned import Corpus, domain_folds, train
from .runner import PageScore, resolve_system, run

#: The file in a models folder that says which pages, folds and feature columns its models are of.
MANIFEST = "folds.json"

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
                progress: bool = True, jobs: int = 1,
                models_dir: str | Path | None = None, second_stage: bool = True,
                type_stage: bool = True) -> list[PageScore]:
    """Score ``systems`` on ``samples``, the learned ones out-of-fold (K folds of domains).

    Pages are scored fold by fold (``jobs`` processes each) and returned in
    the order of ``samples``; ``models_dir`` keeps the fold models (module docstring);
    without ``second_stage`` or ``type_stage`` they lack that stage (issue 42's lighter model).
    """
    for name in systems:
        if not uses_learned(name):
            resolve_system(name)  # unknown names fail before any training
    folds = domain_folds(samples, k)
    scores: list[PageScore] = []
    with fold_models(samples, folds, k, models_dir, progress, second_stage,
                     type_stage) as paths:
        for f in range(k):
            specs = [fold_spec(n, paths[f]) if uses_learned(n) else n for n in systems]
            names = dict(zip(specs, systems))
            fold = run([s for s, g in zip(samples, folds) if g == f], specs, jobs=jobs,
                       progress=progress)
            for s in fold:
                if uses_learned(names.get(s.system, "")):
                    s.system = f"{names[s.system]} (cv{k})"
            scores += fold
    position = {(s.dataset, s.file_id): i for i, s in enumerate(samples)}
    return sorted(scores, key=lambda s: position[s.dataset, s.file_id])  # stable: systems keep order


def fold_manifest(samples: Sequence[Sample], folds: Sequence[int], k: int,
                  second_stage: bool = True, type_stage: bool = True) -> dict:
    """What a folder's fold models were trained for: the pages and their folds, the columns."""
    pages = "\n".join(f"{s.dataset}/{s.file_id}:{f}" for s, f in zip(samples, folds))
    columns = "\n".join(feature_names() + (context_names() if second_stage else []))
    manifest = {"k": k, "pages": hashlib.sha256(pages.encode()).hexdigest(),
                "columns": hashlib.sha256(columns.encode()).hexdigest()}
    return manifest if type_stage else {**manifest, "page_types": False}


@contextmanager
def fold_models(samples: Sequence[Sample], folds: Sequence[int], k: int,
                 models_dir: str | Path | None, progress: bool,
                 second_stage: bool = True, type_stage: bool = True) -> Iterator[list[Path]]:
    """The K fold models' paths: kept ones reused when their manifest matches, else trained."""
    kept_dir = nullcontext(models_dir) if models_dir else tempfile.TemporaryDirectory(
        prefix="declutter-cv-")
    with kept_dir as where:
        folder = Path(where)
        folder.mkdir(parents=True, exist_ok=True)
        paths = [folder / f"fold{f}.npz" for f in range(k)]
        manifest = fold_manifest(samples, folds, k, second_stage, type_stage)
        kept = folder / MANIFEST
        if kept.is_file() and json.loads(kept.read_text()) == manifest and all(
                p.is_file() for p in paths):
            if progress:
                print(f"  fold models of {folder} used again", file=sys.stderr)
            yield paths
            return
        kept.unlink(missing_ok=True)
        corpus = Corpus.build(samples, progress=progress)
        for f, path in enumerate(paths):
            train_idx = [i for i, g in enumerate(folds) if g != f]
            train(corpus, train_idx, second_stage=second_stage,
                  type_stage=type_stage).save(path)
            if progress:
                print(f"  fold {f + 1}/{k}: model trained on {len(train_idx)} pages "
                      f"of other domains", file=sys.stderr)
        del corpus
        kept.write_text(json.dumps(manifest))
        yield paths
