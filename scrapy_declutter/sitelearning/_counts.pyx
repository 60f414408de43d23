# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""``counts.counted`` and ``counts.merged`` as C loops: a page's n-grams counted and added
to a site's tables without sorting every occurrence.

After every page site learning counts some 36,000 n-gram occurrences per class
(``np.unique``: a sort of all of them, though fewer than half are distinct)
and merges the counts into the site's table and into its delta (a binary
search of every new key, then half a dozen masked copies). Here counting is
one pass through an open-addressing hash table, so only the distinct keys
are sorted (by NumPy, whose sort is the fastest at hand), and a merge is one
linear walk down both sorted tables. The results are the reference's
(``counts.python_counted``, ``counts.python_merged``) array for array.
The loops run without the GIL, so the store's writer thread is not held up.
"""

import numpy as np

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free

#: Fibonacci hashing: the high bits of ``key * GOLDEN`` index the table.
cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL


cdef struct Slot:
    uint64_t key
    int64_t count  # 0: the slot is free (the key 0 is a key like any other)


def counted(const uint64_t[::1] keys):
    """The distinct keys, sorted, and how often each occurs (int64)."""
    cdef Py_ssize_t n = keys.shape[0], i, distinct = 0
    cdef int bits = 4
    # At most half full if every key is distinct; key and count share a cache line.
    while (<Py_ssize_t>1 << bits) < n + n // 2:
        bits += 1
    cdef uint64_t mask = (<uint64_t>1 << bits) - 1, slot, key
    cdef int shift = 64 - bits
    cdef Slot *table = <Slot *>calloc(mask + 1, sizeof(Slot))
    if table == NULL:
        raise MemoryError()
    uniq = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] u = uniq
    cdef int64_t[::1] c_view
    try:
        with nogil:
            for i in range(n):
                key = keys[i]
                slot = (key * GOLDEN) >> shift
                while table[slot].count and table[slot].key != key:
                    slot = (slot + 1) & mask
                if not table[slot].count:
                    table[slot].key = key
                    u[distinct] = key
                    distinct += 1
                table[slot].count += 1
        uniq = np.sort(uniq[:distinct])
        u = uniq
        counts = np.empty(distinct, dtype=np.int64)
        c_view = counts
        with nogil:
            for i in range(distinct):
                key = u[i]
                slot = (key * GOLDEN) >> shift
                while table[slot].key != key:
                    slot = (slot + 1) & mask
                c_view[i] = table[slot].count
    finally:
        free(table)
    return uniq, counts


def merged(const uint64_t[::1] keys, const int64_t[::1] counts,
           const uint64_t[::1] new_keys, const int64_t[::1] new_counts):
    """Two tables (sorted, unique keys) added up: every key of either, sorted, with the sum
    of its counts. One walk counts the keys of the result, a second writes them."""
    cdef Py_ssize_t n = keys.shape[0], m = new_keys.shape[0], i = 0, j = 0, k = 0, size
    with nogil:
        while i < n and j < m:
            if keys[i] < new_keys[j]:
                i += 1
            elif keys[i] > new_keys[j]:
                j += 1
            else:
                i += 1
                j += 1
            k += 1
        size = k + (n - i) + (m - j)
    out_keys = np.empty(size, dtype=np.uint64)
    out_counts = np.empty(size, dtype=np.int64)
    cdef uint64_t[::1] ok = out_keys
    cdef int64_t[::1] oc = out_counts
    i = j = k = 0
    with nogil:
        while i < n and j < m:
            if keys[i] < new_keys[j]:
                ok[k] = keys[i]
                oc[k] = counts[i]
                i += 1
            elif keys[i] > new_keys[j]:
                ok[k] = new_keys[j]
                oc[k] = new_counts[j]
                j += 1
            else:
                ok[k] = keys[i]
                oc[k] = counts[i] + new_counts[j]
                i += 1
                j += 1
            k += 1
        while i < n:
            ok[k] = keys[i]
            oc[k] = counts[i]
            i += 1
            k += 1
        while j < m:
            ok[k] = new_keys[j]
            oc[k] = new_counts[j]
            j += 1
            k += 1
    return out_keys, out_counts


#: ``ngramkeys``' FNV-1a offset basis and prime, and its key layout (context hash << 32 | char).
cdef uint64_t SEED = 0xCBF29CE484222325ULL
cdef uint64_t PRIME = 0x100000001B3ULL
cdef uint64_t LOW32 = 0xFFFFFFFFULL


def texts_keys(list texts, int order):
    """``ngramkeys.python_texts_keys`` in one loop: every n-gram key of the texts, each text on
    its own, without the ``(order, length)`` arrays and the mask the NumPy path builds (the
    keys come position by position, not order by order: the same keys, counted the same)."""
    cdef Py_ssize_t total = 0, at = 0, i, k, top
    cdef str text
    cdef Py_UCS4 ch
    cdef uint64_t c, before = 0, h
    if order < 1:
        raise ValueError(f"order must be >= 1, not {order}")
    for text in texts:
        total += len(text)
    keys = np.empty(total * order, dtype=np.uint64)
    cdef uint64_t[::1] out = keys
    cdef uint64_t *ctx = <uint64_t *>calloc(order, sizeof(uint64_t))  # context hash per length
    if ctx == NULL:
        raise MemoryError()
    try:
        for text in texts:
            i = 0
            for ch in text:
                c = <uint64_t>ch
                top = i if i < order - 1 else order - 1
                k = top
                while k >= 1:  # the contexts one character longer than at the last position
                    ctx[k] = (ctx[k - 1] ^ before) * PRIME
                    k -= 1
                ctx[0] = SEED
                for k in range(top + 1):
                    h = ctx[k]
                    out[at] = (((h >> 32) ^ (h & LOW32)) << 32) | c
                    at += 1
                before = c
                i += 1
    finally:
        free(ctx)
    return keys[:at]
