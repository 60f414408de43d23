"""CETR features (Weninger, Hsu & Han, WWW '10), as the Dragnet seed uses them.

Content sits in blocks with many text characters per tag, and the chrome comes
in runs of blocks whose ratios barely change. So, along the block sequence:

1. tag ratio ``T_i`` = text characters / tags of block *i* (a block always has
   at least one tag, its own element);
2. ``T'`` = ``T`` smoothed with a Gaussian kernel (σ = 1, radius ⌈3σ⌉, the
   kernel renormalised at the page edges so edge blocks are not shrunk);
3. the derivative ``G_i`` = | mean(T'_{i+1} … T'_{i+α}) − T'_i | with α = 3
   (CETR's look-ahead difference; the last block has no successors, so 0),
   itself smoothed with the same kernel;
4. k-means with k = 3 on the points (T', G); the cluster whose centre lies
   nearest the origin is non-content, the other two are content.

Both coordinates are divided by their page maximum before clustering so
neither dominates the distance (a page's ratios can run into the hundreds
while its derivatives stay small); the smoothed values themselves are what
the classifier sees. Pure NumPy, deterministic: k-means starts from fixed
quantile points, never from random draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Width of the Gaussian kernel, in blocks (Dragnet's ``sigma=1``).
SIGMA = 1.0
#: How many following blocks the derivative averages over (CETR's α).
ALPHA = 3
#: Clusters in CETR's k-means; one of them is the non-content cluster.
N_CLUSTERS = 3
#: Lloyd iterations at most; pages converge in a handful.
MAX_ITER = 50


def tag_ratios(text_chars: Sequence[int], tag_counts: Sequence[int]) -> np.ndarray:
    """Text characters per tag of each block; a block with no counted tag counts as one."""
    chars = np.asarray(text_chars, dtype=float)
    tags = np.maximum(np.asarray(tag_counts, dtype=float), 1.0)
    return chars / tags


def gaussian_kernel(sigma: float = SIGMA) -> np.ndarray:
    """Normalised Gaussian weights over offsets −⌈3σ⌉ … ⌈3σ⌉."""
    if sigma <= 0:
        return np.ones(1)
    radius = math.ceil(3 * sigma)
    offsets = np.arange(-radius, radius + 1, dtype=float)
    weights = np.exp(-(offsets**2) / (2 * sigma**2))
    return weights / weights.sum()


def smooth(values: Sequence[float] | np.ndarray, sigma: float = SIGMA) -> np.ndarray:
    """Gaussian smoothing along the sequence; at the edges the kernel is cut and renormalised."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return x.copy()
    kernel = gaussian_kernel(sigma)
    return _centred(x, kernel) / _centred(np.ones_like(x), kernel)


def _centred(x: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    # The full convolution, cut to x's length and centred on it, for any length of x.
    radius = kernel.size // 2
    return np.convolve(x, kernel, mode="full")[radius : radius + x.size]


def derivative(smoothed: Sequence[float] | np.ndarray, alpha: int = ALPHA) -> np.ndarray:
    """|mean of the next ``alpha`` values − the value|; fewer successors near the end, 0 for the last."""
    s = np.asarray(smoothed, dtype=float)
    n = s.size
    cum = np.concatenate([[0.0], np.cumsum(s)])
    start = np.arange(1, n + 1)
    stop = np.minimum(start + alpha, n)
    count = stop - start  # successors in the window: alpha, fewer near the end, 0 for the last
    out = np.zeros(n)
    has = count > 0
    out[has] = np.abs((cum[stop[has]] - cum[start[has]]) / count[has] - s[has])
    return out


@dataclass(frozen=True)
class KMeansResult:
    """Cluster of each point, the centres, and which cluster sits nearest the origin."""

    labels: np.ndarray
    centres: np.ndarray
    origin_cluster: int

    @property
    def content(self) -> np.ndarray:
        """True for points outside the cluster nearest the origin (CETR's content)."""
        return self.labels != self.origin_cluster


def kmeans(points: np.ndarray, k: int = N_CLUSTERS, *, max_iter: int = MAX_ITER) -> KMeansResult:
    """Lloyd's k-means from deterministic starts: the origin-most point, then quantiles of the norm.

    Starting one centre on the point nearest the origin and the others along
    the spread of norms gives the same answer on every run and keeps an empty
    cluster from swallowing the non-content one. An emptied cluster keeps its
    previous centre.
    """
    pts = np.asarray(points, dtype=float)
    n = pts.shape[0]
    if n == 0:
        return KMeansResult(np.zeros(0, dtype=int), np.zeros((0, pts.shape[1] if pts.ndim == 2 else 2)), 0)
    k = max(1, min(k, n))
    norms = np.linalg.norm(pts, axis=1)
    order = np.argsort(norms, kind="stable")
    starts = [order[round(q * (n - 1))] for q in np.linspace(0.0, 1.0, k)]
    centres = pts[starts].copy()
    labels = np.full(n, -1)
    for _ in range(max_iter):
        dist = ((pts[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = dist.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        for c in range(k):
            members = pts[labels == c]
            if len(members):
                centres[c] = members.mean(axis=0)
    origin = int(np.linalg.norm(centres, axis=1).argmin())
    return KMeansResult(labels, centres, origin)


@dataclass(frozen=True)
class CetrFeatures:
    """Per block: raw and smoothed tag ratio, smoothed derivative, and the k-means content flag."""

    ratio: np.ndarray
    smoothed: np.ndarray
    derivative: np.ndarray
    content: np.ndarray


def cetr_features(
    text_chars: Sequence[int],
    tag_counts: Sequence[int],
    *,
    sigma: float = SIGMA,
    alpha: int = ALPHA,
    k: int = N_CLUSTERS,
) -> CetrFeatures:
    """The whole CETR pipeline over one page's blocks, in document order."""
    ratio = tag_ratios(text_chars, tag_counts)
    smoothed = smooth(ratio, sigma)
    deriv = smooth(derivative(smoothed, alpha), sigma)
    if ratio.size == 0:
        return CetrFeatures(ratio, smoothed, deriv, np.zeros(0, dtype=bool))
    points = np.column_stack([_unit(smoothed), _unit(deriv)])
    return CetrFeatures(ratio, smoothed, deriv, kmeans(points, k).content)


def _unit(x: np.ndarray) -> np.ndarray:
    top = float(np.max(np.abs(x))) if x.size else 0.0
    return x / top if top > 0 else x
