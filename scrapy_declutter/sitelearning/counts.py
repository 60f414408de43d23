"""Count tables: sorted unique 64-bit keys with their counts, merged and pruned in linear time.

An n-gram language model (``ngramlm.NGramLM``) keeps its n-grams as such a
table and adds a page's n-grams to it after every page it learns. Both inputs
are already sorted, so a merge is one ``searchsorted`` of the new keys into
the table, counts added where they meet and the rest slotted in by position,
and pruning finds the count of the last survivor with ``np.partition``: the
same arrays, key for key, as ``np.unique`` and ``lexsort`` over everything.
"""

from __future__ import annotations

import numpy as np

Table = tuple[np.ndarray, np.ndarray]


def counted(keys: np.ndarray) -> Table:
    """The distinct keys, sorted, and how often each occurs (int64)."""
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
    """The ``keep`` entries with the highest counts, ties to the lower key, in key order.

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
