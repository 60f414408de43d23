"""The shipped block model: a gradient-boosted tree ensemble as plain arrays, evaluated with NumPy.

File format (``.npz``, read with ``allow_pickle=False``): the nodes of all
trees concatenated (``feature``, ``threshold``, ``left``, ``right``,
``value``, ``missing_left``; child indices are global and a leaf points to
itself), ``roots`` (each tree's first node), the id/class token odds
(``odds_tokens``, ``odds_values``) and ``meta``, a UTF-8 JSON document with the
format version, the feature names, the base score, the decision threshold,
the smoothing parameters, the citation of the training data and the command
that rebuilt the file. Pickle is never involved, so a model file cannot run
code and does not break when a library changes its internals (dragnet#109).

Evaluation walks every tree at once: one array of current nodes, shape
(blocks × trees), advanced level by level with fancy indexing. A page of 400
blocks through 150 trees of depth 8 is a handful of array operations.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ...errors import ModelError
from ...modelfile import read_model_file

#: Version of the file layout; a loader refuses any other.
FORMAT_VERSION = 1
#: The model shipped with the package.
DEFAULT_MODEL = "learned-blocks.npz"
#: The command that rebuilds the shipped model.
REBUILD = "scrapy-declutter train-model"
_NODE_ARRAYS = ("feature", "threshold", "left", "right", "value", "missing_left")


@dataclass(frozen=True, eq=False)
class TreeEnsemble:
    """Binary gradient boosting: raw score = base + sum of one leaf value per tree."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    missing_left: np.ndarray
    roots: np.ndarray
    base: float
    depth: int

    def __post_init__(self) -> None:
        n = len(self.feature)
        for name in _NODE_ARRAYS:
            if len(getattr(self, name)) != n:
                raise ModelError(f"tree array {name!r} has {len(getattr(self, name))} nodes, not {n}")
        for name in ("left", "right", "roots"):
            arr = getattr(self, name)
            if len(arr) and (arr.min() < 0 or arr.max() >= n):
                raise ModelError(f"tree array {name!r} points outside the {n} nodes")

    @property
    def n_trees(self) -> int:
        return len(self.roots)

    def raw_scores(self, X: np.ndarray) -> np.ndarray:
        """Log-odds of content for each row of ``X`` (rows × features).

        Every (row, tree) pair walks down one level per pass; indices are flat
        (row offset + feature) so each pass is a few 1-D ``take`` calls, the
        cheapest gathers NumPy has. Nodes go by twice their index (``_Walk``),
        so the child taken is ``node + went-right`` with no multiplication, and
        the roots' split, the same for every row, is one column gather.
        """
        n = len(X)
        if n == 0 or self.n_trees == 0:
            return np.full(n, self.base)
        w = self._walk
        X = np.ascontiguousarray(X, dtype=np.float64)
        flat = X.ravel()
        has_nan = bool(np.isnan(flat).any())
        x = X.take(w.root_feature, axis=1)
        right = x > w.root_threshold
        if has_nan:
            right = np.where(np.isnan(x), ~w.root_missing_left, right)
        node = w.children.take(w.roots + right)
        offsets = (np.arange(n, dtype=np.intp) * X.shape[1])[:, None]
        for _ in range(self.depth - 1):
            x = flat.take(offsets + w.feature.take(node))
            right = x > w.threshold.take(node)
            if has_nan:
                right = np.where(np.isnan(x), ~w.missing_left.take(node), right)
            node = w.children.take(node + right)
        return w.value.take(node).sum(axis=1) + self.base

    @property
    def _walk(self) -> "_Walk":
        cached = self.__dict__.get("_walk_cache")
        if cached is None:
            cached = _Walk.of(self)
            object.__setattr__(self, "_walk_cache", cached)
        return cached

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """P(content) of each row."""
        return 1.0 / (1.0 + np.exp(-self.raw_scores(X)))


class _Walk(NamedTuple):
    """The node arrays as ``raw_scores`` reads them: node ``k`` lives at ``2k`` and
    ``2k + 1`` (the two slots of ``children`` hold its left and right child, as
    doubled indices), and the roots' split is pulled out once."""

    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    children: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    root_feature: np.ndarray
    root_threshold: np.ndarray
    root_missing_left: np.ndarray

    @classmethod
    def of(cls, t: TreeEnsemble) -> "_Walk":
        children = np.empty(2 * len(t.left), dtype=np.intp)
        children[0::2], children[1::2] = 2 * t.left, 2 * t.right
        return cls(
            np.repeat(t.feature, 2), np.repeat(t.threshold, 2), np.repeat(t.missing_left, 2),
            children, np.repeat(t.value, 2), 2 * t.roots,
            t.feature[t.roots], t.threshold[t.roots], t.missing_left[t.roots],
        )


@dataclass(frozen=True, eq=False)
class BlockModel:
    """Everything the learned step needs: trees, token odds and decision parameters."""

    trees: TreeEnsemble
    odds: dict[str, float]
    meta: dict[str, Any] = field(default_factory=dict)
    #: Odds of the id/class names and combinations seen so far, for ``page_features``'s ``memo``.
    odds_memo: dict = field(default_factory=dict, repr=False)

    @property
    def feature_names(self) -> list[str]:
        return list(self.meta.get("feature_names", []))

    @property
    def threshold(self) -> float:
        return float(self.meta.get("threshold", 0.5))

    def save(self, path: str | Path) -> None:
        """Write the model as a compressed ``.npz`` of plain arrays."""
        t = self.trees
        meta = dict(self.meta, format=FORMAT_VERSION, base=t.base, depth=t.depth)
        tokens = sorted(self.odds)
        np.savez_compressed(
            path,
            feature=t.feature.astype(np.int16), threshold=t.threshold.astype(np.float64),
            left=t.left.astype(np.int32), right=t.right.astype(np.int32),
            value=t.value.astype(np.float32), missing_left=t.missing_left.astype(np.bool_),
            roots=t.roots.astype(np.int32),
            odds_tokens=np.array(tokens, dtype=np.str_),
            odds_values=np.array([self.odds[k] for k in tokens], dtype=np.float32),
            meta=np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8),
        )


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
    missing = [k for k in (*_NODE_ARRAYS, "roots", "odds_tokens", "odds_values") if k not in arrays]
    if missing:
        raise ModelError(f"{source} lacks the arrays {missing}")
    trees = TreeEnsemble(
        feature=arrays["feature"].astype(np.intp), threshold=arrays["threshold"].astype(np.float64),
        left=arrays["left"].astype(np.intp), right=arrays["right"].astype(np.intp),
        value=arrays["value"].astype(np.float64), missing_left=arrays["missing_left"].astype(bool),
        roots=arrays["roots"].astype(np.intp), base=float(meta["base"]), depth=int(meta["depth"]),
    )
    names = meta.get("feature_names") or []
    if len(trees.feature) and trees.feature.max() >= len(names):
        raise ModelError(
            f"{source} uses feature {trees.feature.max()} but names {len(names)} features")
    odds = dict(zip(arrays["odds_tokens"].tolist(), arrays["odds_values"].astype(float).tolist()))
    return BlockModel(trees=trees, odds=odds, meta=meta)


@lru_cache(maxsize=8)
def cached_model(path: str | None = None) -> BlockModel:
    """Load a model once per process; the learned step calls this lazily, on its first page."""
    return load_model(path)
