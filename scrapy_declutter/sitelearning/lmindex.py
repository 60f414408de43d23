"""Look-up tables that score text under one or more n-gram LMs in a few NumPy passes.

``NGramLM`` keeps its n-grams as sorted ``(key, count)`` arrays: right for
merging, pruning and serialising, slow to query (a binary search each). A
``Scorer`` compiles one or more such LMs (the keep and discard LMs of a
classifier together, so each query is looked up once for both) into:

* a bucketed hash index over the union of their n-gram keys, with each LM's
  count in bucket order, and
* the same over contexts, with each LM's context total ``C(h)`` and number of
  distinct extensions ``E(h)`` (Witten–Bell's two figures), derived from the
  n-grams so every conditional distribution sums to one.

Queries for which no key exists map to an extra zero column, so a look-up is
one gather of bucket bounds, one compare and one gather of values.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

#: A key is ``hash32(context) << SHIFT | char``.
SHIFT = np.uint64(32)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: Buckets per key: with two, about 10% of buckets hold more than one key.
BUCKETS_PER_KEY = 2


class HashIndex:
    """A bucketed hash index (CSR layout) over unique keys; ``find`` gives bucket-order positions."""

    def __init__(self, keys: np.ndarray) -> None:
        n = len(keys)
        self.bits = max(4, int(BUCKETS_PER_KEY * n - 1).bit_length() if n else 4)
        slots = self._slot(keys)
        #: ``keys[order]`` is the keys in bucket order; values are permuted the same way.
        self.order = np.argsort(slots, kind="stable").astype(np.int32)
        self.keys = keys[self.order]
        self.starts = np.zeros((1 << self.bits) + 1, dtype=np.int32)
        np.cumsum(np.bincount(slots, minlength=1 << self.bits), out=self.starts[1:])

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.starts.nbytes + self.order.nbytes

    def _slot(self, keys: np.ndarray) -> np.ndarray:
        return ((keys * _GOLDEN) >> np.uint64(64 - self.bits)).astype(np.intp)

    def find(self, queries: np.ndarray) -> np.ndarray:
        """Bucket-order position of each query, or ``len(keys)`` (the zero column) when absent.

        Written with ``np.take`` and arithmetic instead of fancy indexing and
        ``np.where``: on (6, 1000) arrays that is several times faster.
        """
        n = len(self.keys)
        if not n:
            return np.zeros(queries.shape, dtype=np.intp)
        slot = self._slot(queries)
        start = np.take(self.starts, slot)
        size = np.take(self.starts, slot + 1) - start
        pos = np.minimum(start, n - 1)
        hit = (np.take(self.keys, pos) == queries) & (size > 0)
        out = pos * hit + n * ~hit
        crowded = np.flatnonzero(~hit & (size > 1))
        if len(crowded):  # the rare buckets holding several keys
            flat = out.reshape(-1)
            q, s, e = queries.reshape(-1)[crowded], start.reshape(-1)[crowded] + 1, \
                (start + size).reshape(-1)[crowded]
            idx = crowded
            while len(idx):
                live = s < e
                idx, q, s, e = idx[live], q[live], s[live], e[live]
                found = self.keys[s] == q
                flat[idx[found]] = s[found]
                miss = ~found
                idx, q, s, e = idx[miss], q[miss], s[miss] + 1, e[miss]
        return out


#: The "character" of a context's own key in the shared index: above every code point.
CTX_TAG = np.uint64(0xFFFFFFFF)


class Scorer:
    """Witten–Bell character probabilities under several LMs that share an order.

    One hash index holds both the n-gram keys and the context keys (a context
    is keyed as ``hash << 32 | CTX_TAG``), so a text's n-grams and contexts
    are looked up in one call.
    """

    def __init__(self, lms: Sequence[tuple[np.ndarray, np.ndarray]], lambda_factors: Sequence[float],
                 alphabet_size: int) -> None:
        union = np.unique(np.concatenate([k for k, _ in lms])) if lms else np.empty(0, np.uint64)
        n_lms, n = len(lms), len(union)
        counts = np.zeros((n_lms, n), dtype=np.float64)
        for j, (keys, c) in enumerate(lms):
            counts[j, np.searchsorted(union, keys)] = c
        ctx = union >> SHIFT
        if n:
            starts = np.flatnonzero(np.r_[True, ctx[1:] != ctx[:-1]])
            totals = np.add.reduceat(counts, starts, axis=1)
            exts = np.add.reduceat((counts > 0).astype(np.float64), starts, axis=1)
            ctx_keys = (ctx[starts] << SHIFT) | CTX_TAG
        else:
            totals = exts = np.zeros((n_lms, 0))
            ctx_keys = np.empty(0, np.uint64)
        self.index = HashIndex(np.concatenate([union, ctx_keys]))
        zeros_c, zeros_n = np.zeros((n_lms, len(ctx_keys))), np.zeros((n_lms, n))
        order, zero = self.index.order, np.zeros((n_lms, 1))
        # Values in the index's bucket order, then one zero column for "absent";
        # float32 holds counts exactly up to 2**24 and halves the tables.
        def table(parts: list[np.ndarray]) -> np.ndarray:
            return np.hstack([np.hstack(parts)[:, order], zero]).astype(np.float32)

        self.counts = table([counts, zeros_c])
        self.totals = table([zeros_n, totals])
        self.exts = table([zeros_n, exts])
        self.lambdas = np.asarray(lambda_factors, dtype=np.float64)[:, None, None]
        self.base = 1.0 / alphabet_size

    @property
    def nbytes(self) -> int:
        return self.index.nbytes + self.counts.nbytes + self.totals.nbytes + self.exts.nbytes

    def probs(self, keys: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(n_lms, len)`` probabilities of each character given its context.

        ``keys`` comes from ``ngram_keys``; ``mask`` marks the (order, position)
        pairs that have that many preceding characters.
        """
        queries = np.stack([keys, ((keys >> SHIFT) << SHIFT) | CTX_TAG])
        pos = self.index.find(queries)
        pos[:, ~mask] = self.counts.shape[1] - 1  # no such context: the zero column
        c_hc = np.take(self.counts, pos[0], axis=1).astype(np.float64)  # (L, order, m)
        c_h = np.take(self.totals, pos[1], axis=1).astype(np.float64)
        weight = self.lambdas * np.take(self.exts, pos[1], axis=1)  # L·E(h)
        # Witten–Bell in one fraction: λ·C(hc)/C(h) + (1−λ)·p = (C(hc) + L·E(h)·p) / (C(h) + L·E(h)).
        # A context that never occurred has C(h) = E(h) = 0: adding 1 to both
        # L·E(h) and the denominator there leaves the shorter context's p as is.
        weight += c_h == 0
        den = c_h + weight
        p = np.full((len(self.lambdas), keys.shape[1]), self.base)
        for k in range(keys.shape[0]):
            p = (c_hc[:, k] + weight[:, k] * p) / den[:, k]
        return p
