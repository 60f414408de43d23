"""Gradient-boosted trees as plain arrays, evaluated with NumPy.

The nodes of all trees are concatenated (``feature``, ``threshold``,
``left``, ``right``, ``value``, ``missing_left``; child indices are global
and a leaf points to itself) and ``roots`` holds each tree's first node.
Evaluation walks every tree at once: one array of current nodes, shape
(rows × trees), advanced level by level with fancy indexing. A page of 400
blocks through 150 trees of depth 8 is a handful of array operations.

Where the package was built with a C compiler, the compiled walk
(``_trees``, Cython) does the same per (row, tree) pair in a C loop that
stops at each leaf: about ten times faster than the NumPy passes, which
stay as the reference (``numpy_leaf_values``) and run where it was not
built. Both give the same leaf values, so every score is bit for bit the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ...errors import ModelError

try:
    from . import _trees as _compiled
except ImportError:  # built without a C compiler: the NumPy walk below
    _compiled = None

#: The compiled float32 walk reads a group of this many rows feature by feature
#: (``_trees.leaf_values_f32``): ``_CArrays.perfect`` holds features times it.
_ROW_LANES = _compiled.ROW_LANES if _compiled is not None else 1
#: Trees up to this deep are laid out complete for the float32 walk (``_CArrays.perfect``:
#: 2**depth slots a tree); deeper ones take the general walk.
MAX_PERFECT_DEPTH = 12
#: The node arrays of an ensemble, as a model file stores them.
NODE_ARRAYS = ("feature", "threshold", "left", "right", "value", "missing_left")


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
        for name in NODE_ARRAYS:
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
        """Log-odds of content for each row of ``X`` (rows × features)."""
        if len(X) == 0 or self.n_trees == 0:
            return np.full(len(X), self.base)
        return self.leaf_values(X).sum(axis=1) + self.base

    def leaf_values(self, X: np.ndarray) -> np.ndarray:
        """The value of the leaf each row of ``X`` reaches in each tree (rows × trees)."""
        c = self._c_arrays
        # The compiled walk reads float32 rows (what ``features`` makes) as they are and
        # anything else as float64, as NumPy does; splits on negative features (only
        # NumPy's wrap-around reads those) go to NumPy. Rows without a NaN walk the trees
        # laid out complete (float32: ``perfect``; float64, the page-type vector: ``_perfect64``).
        if _compiled is None or c.min_feature < 0:
            return self.numpy_leaf_values(X)
        X = np.ascontiguousarray(X, dtype=np.float32 if X.dtype == np.float32 else np.float64)
        if X.ndim != 2 or X.shape[1] <= c.max_feature:
            raise ModelError(f"the trees read feature {c.max_feature}; rows have shape {X.shape}")
        out = np.empty((len(X), self.n_trees))
        depth = max(self.depth, 1)
        if c.perfect is not None:
            if X.dtype == np.float32:
                if _compiled.leaf_values_f32(X, c.perfect, c.perfect_value, depth, out):
                    return out
            elif _compiled.leaf_values_f64(X, self._perfect64, c.perfect_value, depth, out):
                return out
        _compiled.leaf_values(X, c.feature, c.threshold, c.children, c.missing_right,
                              c.value, c.roots, depth, out)
        return out

    def numpy_leaf_values(self, X: np.ndarray) -> np.ndarray:
        """``leaf_values`` in NumPy: the reference, and the walk where ``_trees`` is not built.

        Every (row, tree) pair walks down one level per pass; indices are flat
        (row offset + feature) so each pass is a few 1-D ``take`` calls, the
        cheapest gathers NumPy has. Nodes go by twice their index (``_Walk``),
        so the child taken is ``node + went-right`` with no multiplication, and
        the roots' split, the same for every row, is one column gather.
        """
        n = len(X)
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
        return w.value.take(node)

    # Built on first use and kept: ``cached_property`` writes the instance's
    # ``__dict__`` directly, which a frozen dataclass allows.
    @cached_property
    def _walk(self) -> "_Walk":
        return _Walk.of(self)

    @cached_property
    def _c_arrays(self) -> "_CArrays":
        return _CArrays.of(self)

    @cached_property
    def _perfect64(self) -> np.ndarray:
        """The trees laid out complete, as ``_CArrays.perfect``, for float64 rows
        (``_trees.leaf_values_f64``), each node's words side by side (one load of 16 bytes:
        that walk waits on memory, not on instructions): (trees x ``2**depth - 1`` x 2)
        int64, the feature (0 under a leaf) and the bits of the
        float64 threshold (+inf under a leaf: always left). Made on the first float64 rows:
        only the page-type ensemble gets them."""
        inner, _ = _complete_slots(self)
        is_split = _is_split(self)
        perfect = np.empty((*inner.shape, 2), dtype=np.int64)
        perfect[..., 0] = np.where(is_split, self.feature, 0)[inner]
        threshold = np.where(is_split, np.asarray(self.threshold, dtype=np.float64), np.inf)
        perfect[..., 1] = threshold.view(np.int64)[inner]
        return perfect

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


class _CArrays(NamedTuple):
    """The node arrays in the exact types the compiled walk takes (made once per ensemble)."""

    feature: np.ndarray
    threshold: np.ndarray
    #: Node ``k``'s left child at ``2k``, its right child at ``2k + 1``.
    children: np.ndarray
    missing_right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    #: The lowest and highest feature a split (not a leaf) reads.
    min_feature: int
    max_feature: int
    #: The trees laid out complete to the walk's depth for float32 rows
    #: (``_trees.leaf_values_f32``): (trees x 2 x ``2**depth - 1``) int32, a tree's nodes'
    #: features (0 under a leaf) times ``_trees.ROW_LANES`` (where its values start in a
    #: group of rows), then the integer keys (``_float32_keys``) of the largest float32s
    #: not above their thresholds (+inf under a leaf: always left), node ``k``'s children
    #: at ``2k + 1`` and ``2k + 2``; None for trees deeper than ``MAX_PERFECT_DEPTH``.
    perfect: np.ndarray | None
    #: (trees x ``2**depth``) the value reached at each bottom slot of ``perfect``.
    perfect_value: np.ndarray | None

    @classmethod
    def of(cls, t: TreeEnsemble) -> "_CArrays":
        def index(a: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(a, dtype=np.int32)

        is_split = _is_split(t)
        split = t.feature[is_split]
        children = np.empty(2 * len(t.left), dtype=np.int32)
        children[0::2], children[1::2] = t.left, t.right
        threshold = np.asarray(t.threshold, dtype=np.float64)
        with np.errstate(over="ignore"):  # beyond float32's range: the infinity is the bound
            below = threshold.astype(np.float32)
        # Rounded up: step down to the float32 just below (x > that <=> x > threshold).
        up = below.astype(np.float64) > threshold
        below[up] = np.nextafter(below[up], np.float32(-np.inf))
        perfect = perfect_value = None
        depth = max(t.depth, 1)
        if depth <= MAX_PERFECT_DEPTH:
            inner, at = _complete_slots(t)
            perfect = np.empty((len(inner), 2, inner.shape[1]), dtype=np.int32)
            perfect[:, 0] = np.where(is_split, t.feature, 0)[inner] * _ROW_LANES
            perfect[:, 1] = _float32_keys(np.where(is_split, below, np.float32(np.inf)))[inner]
            perfect_value = np.ascontiguousarray(np.asarray(t.value, dtype=np.float64)[at])
        return cls(
            index(t.feature), np.ascontiguousarray(threshold), children,
            (~np.asarray(t.missing_left, dtype=np.bool_)).view(np.uint8),
            np.ascontiguousarray(t.value, dtype=np.float64), index(t.roots),
            int(split.min()) if len(split) else 0, int(split.max()) if len(split) else -1,
            perfect, perfect_value,
        )


def _is_split(t: TreeEnsemble) -> np.ndarray:
    """Which nodes split (a leaf's children are itself)."""
    nodes = np.arange(len(t.feature))
    return (t.left != nodes) | (t.right != nodes)


def _float32_keys(values: np.ndarray) -> np.ndarray:
    """Float32 values (no NaN) as the unsigned integer keys ``_trees._key`` compares (held
    in int32): ordered as the floats are, -0 the same key as +0. The compiled walk turns
    the rows into keys as it copies them, and the thresholds are keys once per model."""
    bits = (np.asarray(values, dtype=np.float32) + np.float32(0)).view(np.uint32)
    flip = np.where(bits >> 31, np.uint32(0xFFFFFFFF), np.uint32(0x80000000))
    return (bits ^ flip).view(np.int32)


def _complete_slots(t: TreeEnsemble) -> tuple[np.ndarray, np.ndarray]:
    """The node each slot of the trees laid out complete to their depth holds: (trees x
    ``2**depth - 1``) inner slots, node ``k``'s children at ``2k + 1`` and ``2k + 2``, and
    (trees x ``2**depth``) bottom slots. Level by level: a leaf's children are itself, so
    under a leaf every slot holds it (and its +inf threshold sends rows left)."""
    at = np.asarray(t.roots, dtype=np.intp)[:, None]
    slots = []
    for _ in range(max(t.depth, 1)):
        slots.append(at)
        at = np.stack([t.left[at], t.right[at]], axis=-1).reshape(len(at), -1)
    return np.concatenate(slots, axis=1), at


def joined(ensembles: tuple[TreeEnsemble, ...]) -> TreeEnsemble:
    """One ensemble holding the trees of several (a multiclass booster's classes), so they
    walk together: ``leaf_values`` gives each tree's value, in the order given, base 0."""
    feature, threshold, left, right, value, missing_left, roots = [], [], [], [], [], [], []
    offset = 0
    for t in ensembles:
        feature.append(t.feature), threshold.append(t.threshold), value.append(t.value)
        left.append(t.left + offset), right.append(t.right + offset)
        missing_left.append(t.missing_left), roots.append(t.roots + offset)
        offset += len(t.feature)
    return TreeEnsemble(
        feature=np.concatenate(feature), threshold=np.concatenate(threshold),
        left=np.concatenate(left), right=np.concatenate(right), value=np.concatenate(value),
        missing_left=np.concatenate(missing_left), roots=np.concatenate(roots), base=0.0,
        depth=max(t.depth for t in ensembles),
    )
