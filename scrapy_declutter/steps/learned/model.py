"""The shipped model of the learned step: four kinds of tree ensembles, token odds, cuts.

File format 2 (``.npz``, read with ``allow_pickle=False``):

- ``blocks_*``: the block classifier, P(content) of each block
  (``trees.NODE_ARRAYS`` and ``roots`` under that prefix);
- ``second_*`` (optional): the second stage, P(content) from the block's
  features and the ``context`` columns of the first stage's probabilities;
  a model without it keeps the first stage's probabilities;
- ``type0_*`` ... ``type6_*``: the page-type classifier, one ensemble per
  ``pagetype.PAGE_TYPES``, combined by softmax;
- ``comments_*``: P(a reader comment's text) of the blocks in comment boxes;
- ``odds_tokens`` / ``odds_values``: id/class token log-odds;
- ``meta``: a UTF-8 JSON document with the format version, each ensemble's
  base score and depth, the block, context and page-vector feature names, the cuts
  (a threshold per favour and page type), the data citation and the
  command that rebuilt the file.

Pickle is never involved, so a model file cannot run code and does not
break when a library changes its internals (dragnet#109).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ModelError
from ...modelfile import read_model_file
from .pagetype import PAGE_TYPES
from .trees import NODE_ARRAYS, TreeEnsemble, joined

#: Version of the file layout; a loader refuses any other.
FORMAT_VERSION = 2
#: The model shipped with the package.
DEFAULT_MODEL = "learned-blocks.npz"
#: The command that rebuilds the shipped model.
REBUILD = "scrapy-declutter train-model"
#: The precision/recall settings a model's cuts are stored for.
FAVORS = ("precision", "balanced", "recall")
_ARRAY_TYPES = {"feature": np.int16, "threshold": np.float64, "left": np.int32,
                "right": np.int32, "value": np.float32, "missing_left": np.bool_}


@dataclass(frozen=True, eq=False)
class BlockModel:
    """Everything the learned step needs: the ensembles, token odds and decision parameters."""

    #: P(content) of each block from its feature row.
    trees: TreeEnsemble
    odds: dict[str, float]
    meta: dict[str, Any] = field(default_factory=dict)
    #: One ensemble per page type (softmax over their scores); empty: no page types.
    page_types: tuple[TreeEnsemble, ...] = ()
    #: P(comment text) of a block in a comment box; None: no comment labels.
    comments: TreeEnsemble | None = None
    #: P(content) from a block's features and its ``context`` columns; None: one stage.
    second: TreeEnsemble | None = None
    #: Odds of the id/class names and combinations seen so far, for ``page_features``'s ``memo``.
    odds_memo: dict = field(default_factory=dict, repr=False)

    @property
    def feature_names(self) -> list[str]:
        return list(self.meta.get("feature_names", []))

    @property
    def threshold(self) -> float:
        """The balanced cut of an article (the model's plain threshold)."""
        return self.cut("balanced", None)

    def type_probabilities(self, vector: np.ndarray) -> np.ndarray | None:
        """P(each of ``PAGE_TYPES``) for one page vector; None without a type classifier."""
        return softmax_probabilities(self.page_types, vector) if self.page_types else None

    def cut(self, favor: str, types: np.ndarray | None) -> float:
        """The threshold for a page: each type's cut for ``favor``, weighted by the type's
        probability (an article's when the page type is unknown); a model without cuts
        has one plain ``threshold`` (0.5 when it says none)."""
        if "cuts" not in self.meta:
            return float(self.meta.get("threshold", 0.5))
        cuts = self.meta["cuts"].get(favor)
        if cuts is None:
            raise ModelError(f"the model has no cuts for favor={favor!r}; it has "
                             f"{sorted(self.meta['cuts'])}")
        if types is None:
            return float(cuts["article"])
        return float(sum(p * cuts[t] for p, t in zip(types, PAGE_TYPES)))

    def save(self, path: str | Path) -> None:
        """Write the model as a compressed ``.npz`` of plain arrays."""
        ensembles = {"blocks": self.trees, **{f"type{k}": t for k, t in enumerate(self.page_types)}}
        if self.comments is not None:
            ensembles["comments"] = self.comments
        if self.second is not None:
            ensembles["second"] = self.second
        arrays: dict[str, np.ndarray] = {}
        for prefix, t in ensembles.items():
            for name, kind in _ARRAY_TYPES.items():
                arrays[f"{prefix}_{name}"] = getattr(t, name).astype(kind)
            arrays[f"{prefix}_roots"] = t.roots.astype(np.int32)
        meta = dict(self.meta, format=FORMAT_VERSION,
                    ensembles={p: {"base": t.base, "depth": t.depth} for p, t in ensembles.items()})
        tokens = sorted(self.odds)
        np.savez_compressed(
            path, **arrays,
            odds_tokens=np.array(tokens, dtype=np.str_),
            odds_values=np.array([self.odds[k] for k in tokens], dtype=np.float32),
            meta=np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8),
        )


def softmax_probabilities(ensembles: tuple[TreeEnsemble, ...], vector: np.ndarray) -> np.ndarray:
    """Class probabilities of one row from a multiclass booster's per-class ensembles.

    The classes' trees walk as one ensemble (``trees.joined``, built once per
    tuple of ensembles): one pass of array operations instead of one per class.
    """
    both, ends, bases = _joined(ensembles)
    values = both.leaf_values(np.asarray(vector, dtype=np.float64)[None, :])[0]
    sums = np.add.reduceat(values, ends[:-1]) if len(values) else np.zeros(len(ensembles))
    scores = sums + bases
    scores = np.exp(scores - scores.max())
    return scores / scores.sum()


@lru_cache(maxsize=16)
def _joined(ensembles: tuple[TreeEnsemble, ...]) -> tuple[TreeEnsemble, np.ndarray, np.ndarray]:
    """The ensembles as one, where each one's trees start (then the total), and their
    base scores."""
    starts = np.cumsum([0] + [t.n_trees for t in ensembles])
    return joined(ensembles), starts, np.array([t.base for t in ensembles])


def load_model(path: str | Path | None = None) -> BlockModel:
    """Read and validate a model file (the shipped one when ``path`` is None)."""
    raw, source = read_model_file(path, DEFAULT_MODEL, rebuild=REBUILD)
    try:
        data = np.load(io.BytesIO(raw), allow_pickle=False)
        arrays = {k: data[k] for k in data.files}
        meta = json.loads(arrays.pop("meta").tobytes().decode("utf-8"))
    except (ValueError, KeyError, OSError, UnicodeDecodeError) as exc:
        raise ModelError(f"{source} is not a scrapy_declutter model file: {exc}") from exc
    if meta.get("format") != FORMAT_VERSION:
        raise ModelError(f"{source} has model format {meta.get('format')!r}; this version reads "
                         f"{FORMAT_VERSION} (rebuild it with `{REBUILD}`)")
    ensembles = meta.get("ensembles") or {}
    missing = [k for k in ("odds_tokens", "odds_values") if k not in arrays]
    missing += [f"{p}_{n}" for p in ("blocks", *ensembles) for n in (*NODE_ARRAYS, "roots")
                if f"{p}_{n}" not in arrays]
    if missing or "blocks" not in ensembles:
        raise ModelError(f"{source} lacks the arrays {missing or ['blocks']}")
    built = {p: _ensemble(arrays, p, spec) for p, spec in ensembles.items()}
    page_types = tuple(built[f"type{k}"] for k in range(len(PAGE_TYPES)) if f"type{k}" in built)
    if page_types and len(page_types) != len(PAGE_TYPES):
        raise ModelError(f"{source} has {len(page_types)} page-type ensembles, "
                         f"not {len(PAGE_TYPES)}")
    n_features = len(meta.get("feature_names") or [])
    widths = {"blocks": n_features, "comments": n_features,
              "second": n_features + len(meta.get("context_names") or []),
              "type0": len(meta.get("type_vector_names") or [])}
    for prefix, width in widths.items():
        t = built.get(prefix)
        if t is not None and len(t.feature) and t.feature.max() >= width:
            raise ModelError(f"{source}: {prefix} uses feature {t.feature.max()} "
                             f"but the model names {width}")
    odds = dict(zip(arrays["odds_tokens"].tolist(), arrays["odds_values"].astype(float).tolist()))
    return BlockModel(trees=built["blocks"], odds=odds, meta=meta, page_types=page_types,
                      comments=built.get("comments"), second=built.get("second"))


def _ensemble(arrays: dict[str, np.ndarray], prefix: str, spec: dict) -> TreeEnsemble:
    try:
        return TreeEnsemble(
            feature=arrays[f"{prefix}_feature"].astype(np.intp),
            threshold=arrays[f"{prefix}_threshold"].astype(np.float64),
            left=arrays[f"{prefix}_left"].astype(np.intp),
            right=arrays[f"{prefix}_right"].astype(np.intp),
            value=arrays[f"{prefix}_value"].astype(np.float64),
            missing_left=arrays[f"{prefix}_missing_left"].astype(bool),
            roots=arrays[f"{prefix}_roots"].astype(np.intp),
            base=float(spec["base"]), depth=int(spec["depth"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"ensemble {prefix!r} cannot be read: {exc}") from exc


@lru_cache(maxsize=8)
def cached_model(path: str | None = None) -> BlockModel:
    """Load a model once per process; the learned step calls this lazily, on its first page."""
    return load_model(path)
