"""Count tables: sorted unique 64-bit keys with their counts, merged and pruned in linear time.

An n-gram language model (``ngramlm.NGramLM``) keeps its n-grams as such a
table and adds a page's n-grams to it after every page of a crawl. Doing that
with ``np.unique`` over the concatenation of the table and the page (and a
``lexsort`` to prune) sorted some 70,000 keys several times per page and
language model: a third of what site learning cost a crawl. Both inputs are
already sorted, so here a merge is one ``searchsorted`` of the new keys into
the table, counts added where they meet and the rest slotted in by position,
and pruning finds the count of the last survivor with ``np.partition``. The
results are the same arrays, key for key and count for count.

Where the package was built with a compiler, ``_counts`` does all three in
C loops (a hash count whose distinct n-grams are radix-sorted, a linear
merge, a histogram of the counts to prune): that cut what learning a page
cost by two thirds. The NumPy versions here (``python_counted``,
``python_merged``, ``python_pruned``) are the reference it is tested against,
and what runs without it.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

import numpy as np

Table = tuple[np.ndarray, np.ndarray]

try:  # by name, as ``segment`` loads ``_segment``: the import graph sees only .py modules
    _compiled: ModuleType | None = import_module(f"{__package__}._counts")
except ImportError:  # built without a compiler: the NumPy reference
    _compiled = None


def counted(keys: np.ndarray) -> Table:
    """The distinct keys, sorted, and how often each occurs (int64)."""
    if _compiled is not None and len(keys) and keys.dtype == np.uint64:
        return _compiled.counted(np.ascontiguousarray(keys))
    return python_counted(keys)


def python_counted(keys: np.ndarray) -> Table:
    """``counted`` with ``np.unique``: the reference, and the path without ``_counts``."""
    uniq, counts = np.unique(keys, return_counts=True)
    return uniq, counts.astype(np.int64)


def merged(keys: np.ndarray, counts: np.ndarray, new_keys: np.ndarray,
           new_counts: np.ndarray) -> Table:
    """Two tables added up: every key of either, sorted, with the sum of its counts.

    The inputs are left unchanged (a table may be shared, e.g. by a model
    and the scoring tables built from it).
    """
    if not len(keys):
        return new_keys, new_counts.astype(np.int64)
    if not len(new_keys):
        return keys, counts
    if _compiled is not None and keys.dtype == new_keys.dtype == np.uint64:
        return _compiled.merged(np.ascontiguousarray(keys),
                                np.ascontiguousarray(counts, dtype=np.int64),
                                np.ascontiguousarray(new_keys),
                                np.ascontiguousarray(new_counts, dtype=np.int64))
    return python_merged(keys, counts, new_keys, new_counts)


def python_merged(keys: np.ndarray, counts: np.ndarray, new_keys: np.ndarray,
                  new_counts: np.ndarray) -> Table:
    """``merged`` with ``searchsorted`` and slotting: the reference, and the path without
    ``_counts``. Both tables are non-empty."""
    at = np.searchsorted(keys, new_keys)
    hit = at < len(keys)
    hit[hit] = keys[at[hit]] == new_keys[hit]
    counts = counts.copy()
    counts[at[hit]] += new_counts[hit]  # unique keys on both sides: no index repeats
    miss = ~hit
    if not miss.any():
        return keys, counts
    # New key j goes after the table's keys below it and the new keys before it.
    slots = at[miss] + np.arange(int(miss.sum()))
    size = len(keys) + len(slots)
    old = np.ones(size, dtype=bool)
    old[slots] = False
    out_keys = np.empty(size, dtype=keys.dtype)
    out_counts = np.empty(size, dtype=np.int64)
    out_keys[slots], out_keys[old] = new_keys[miss], keys
    out_counts[slots], out_counts[old] = new_counts[miss], counts
    return out_keys, out_counts


def pruned(keys: np.ndarray, counts: np.ndarray, keep: int) -> Table:
    """The ``keep`` entries with the highest counts, ties to the lower key, in key order."""
    if len(keys) <= keep:
        return keys, counts
    if keep <= 0:
        return keys[:0], counts[:0]
    if _compiled is not None and keys.dtype == np.uint64 and counts.dtype == np.int64:
        table = _compiled.pruned(np.ascontiguousarray(keys), np.ascontiguousarray(counts), keep)
        if table is not None:  # None: a count past its histogram, which NumPy selects
            return table
    return python_pruned(keys, counts, keep)


def python_pruned(keys: np.ndarray, counts: np.ndarray, keep: int) -> Table:
    """``pruned`` with ``np.partition``: the reference, and the path without ``_counts``.

    The same entries as ``np.lexsort((keys, -counts))[:keep]`` sorted back
    into key order, without sorting: every entry above the ``keep``-th
    highest count survives, and of those at that count the first ones, whose
    keys are the lowest since the table is in key order.
    """
    if len(keys) <= keep:
        return keys, counts
    if keep <= 0:
        return keys[:0], counts[:0]
    last = np.partition(counts, len(counts) - keep)[len(counts) - keep]
    survive = counts > last
    ties = np.flatnonzero(counts == last)[: keep - int(survive.sum())]
    survive[ties] = True
    return keys[survive], counts[survive]
