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

from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

#: Fibonacci hashing: the high bits of ``key * GOLDEN`` index the table.
cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL


cdef struct Slot:
    uint64_t key
    int64_t count  # 0: the slot is free (the key 0 is a key like any other)


#: The radix sort's digits, low first: 11 bits at most each, cut at the 32 bits of an
#: n-gram key's character (``hash32(context) << 32 | char``). Characters below U+0800
#: vary in the first digit only, typographic quotes and dashes (U+20xx) in the second
#: too: a page's keys sort in four or five passes, where bytes took five or six, and
#: each key is counted in six histograms, not eight.
DEF DIGITS = 6
DEF BINS = 2048
cdef int SHIFT[DIGITS]
SHIFT[:] = [0, 11, 22, 32, 43, 54]
cdef uint64_t DIGIT_MASK[DIGITS]
DIGIT_MASK[:] = [0x7FF, 0x7FF, 0x3FF, 0x7FF, 0x7FF, 0x3FF]


cdef bint radix_sort(uint64_t *keys, int64_t *counts, uint64_t *tmp_keys, int64_t *tmp_counts,
                     Py_ssize_t n, uint32_t (*hist)[BINS]) noexcept nogil:
    """Sort ``n`` (key, count) pairs by key: least significant digit (``SHIFT``) first, a
    digit that is the same in every key skipped (an n-gram key's character digits above
    the first mostly are). The result is in ``tmp_keys``/``tmp_counts`` when it returns
    True (an odd number of digits varied), else in ``keys``/``counts``; the other pair
    (room for ``n``) is scratch. ``hist[d][v]``: how many keys have the value ``v`` in
    digit ``d``, counted by the caller as it gathered the keys (a pass of its own over
    them was a fifth of the sort)."""
    cdef Py_ssize_t i, total, at
    cdef int d, shift
    cdef uint64_t mask, key
    cdef uint64_t *src_k = keys
    cdef int64_t *src_c = counts
    cdef uint64_t *dst_k = tmp_keys
    cdef int64_t *dst_c = tmp_counts
    cdef uint32_t *bins
    for d in range(DIGITS):
        shift, mask, bins = SHIFT[d], DIGIT_MASK[d], hist[d]
        if bins[(keys[0] >> shift) & mask] == n:
            continue  # every key has this digit: the order stands
        total = 0
        for i in range(mask + 1):
            at = bins[i]
            bins[i] = total
            total += at
        for i in range(n):
            key = src_k[i]
            at = bins[(key >> shift) & mask]
            bins[(key >> shift) & mask] = at + 1
            dst_k[at] = key
            dst_c[at] = src_c[i]
        src_k, dst_k = dst_k, src_k
        src_c, dst_c = dst_c, src_c
    return src_k != keys


def counted(const uint64_t[::1] keys):
    """The distinct keys, sorted, and how often each occurs (int64).

    The distinct keys are collected from the hash table with their counts and
    radix-sorted (two passes per digit that varies): sorting them with NumPy
    was two thirds of what counting a page's n-grams cost. The table starts
    at half the keys' number (a page's lesson has some 2.7 n-gram occurrences
    per distinct n-gram) and doubles when it is 3/4 full, so that it stays in
    the processor's cache: sized for every key distinct, it took 1 MB of
    fresh memory per page and class, and half the time went to touching it.
    """
    cdef Py_ssize_t n = keys.shape[0], i, distinct = 0
    cdef int bits = 4
    while (<Py_ssize_t>1 << bits) < n // 2:
        bits += 1
    cdef Slot *table = <Slot *>calloc(<size_t>1 << bits, sizeof(Slot))
    cdef bint failed = False
    if table == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(n):
                if not _count(&table, &bits, &distinct, keys[i]):
                    failed = True
                    break
        if failed:
            raise MemoryError()
        return _sorted_counts(table, bits, distinct)
    finally:
        free(table)


cdef inline bint _count(Slot **table, int *bits, Py_ssize_t *distinct,
                        uint64_t key) noexcept nogil:
    """Count one ``key`` in ``table[0]``, doubling the table when it is 3/4 full; False when
    the larger table cannot be allocated (the old one is then still the caller's to free)."""
    cdef Slot *grown
    if _add(table[0], bits[0], key, 1):
        distinct[0] += 1
        if distinct[0] * 4 > (<Py_ssize_t>3 << bits[0]):
            grown = _grown(table[0], bits[0])
            if grown == NULL:
                return False
            free(table[0])
            table[0] = grown
            bits[0] += 1
    return True


cdef tuple _sorted_counts(Slot *table, int bits, Py_ssize_t distinct):
    """The ``distinct`` keys of a table of ``1 << bits`` slots, sorted, and their counts."""
    uniq = np.empty(distinct, dtype=np.uint64)
    counts = np.empty(distinct, dtype=np.int64)
    scratch_keys = np.empty(distinct, dtype=np.uint64)
    scratch_counts = np.empty(distinct, dtype=np.int64)
    if _collect_sorted(table, <Py_ssize_t>1 << bits, uniq, counts, scratch_keys, scratch_counts):
        return scratch_keys, scratch_counts
    return uniq, counts


cdef inline bint _add(Slot *table, int bits, uint64_t key, int64_t count) noexcept nogil:
    """Add ``count`` to ``key``'s slot of a table of ``1 << bits`` slots; whether it was new."""
    cdef uint64_t mask = (<uint64_t>1 << bits) - 1
    cdef uint64_t slot = (key * GOLDEN) >> (64 - bits)
    while table[slot].count and table[slot].key != key:
        slot = (slot + 1) & mask
    if table[slot].count:
        table[slot].count += count
        return False
    table[slot].key = key
    table[slot].count = count
    return True


cdef Slot *_grown(Slot *table, int bits) noexcept nogil:
    """A table twice the size with every entry of ``table`` (NULL: out of memory)."""
    cdef Py_ssize_t i
    cdef Slot *grown = <Slot *>calloc(<size_t>2 << bits, sizeof(Slot))
    if grown != NULL:
        for i in range(<Py_ssize_t>1 << bits):
            if table[i].count:
                _add(grown, bits + 1, table[i].key, table[i].count)
    return grown


cdef bint _collect_sorted(Slot *table, Py_ssize_t size, uint64_t[::1] keys, int64_t[::1] counts,
                          uint64_t[::1] tmp_keys, int64_t[::1] tmp_counts) noexcept:
    """The table's (key, count) pairs, sorted by key, into ``tmp_keys``/``tmp_counts`` when
    it returns True, else into ``keys``/``counts`` (``radix_sort``); the table is left empty
    (all zero), so that ``texts_counted`` can use it again without clearing it."""
    cdef Py_ssize_t i, k = 0, n = keys.shape[0]
    cdef uint32_t hist[DIGITS][BINS]  # 48 KB: a table's keys number under 2**32
    cdef uint64_t key
    if n == 0:
        return False
    with nogil:
        memset(hist, 0, sizeof(hist))
        for i in range(size):
            if table[i].count:
                key = table[i].key
                keys[k] = key
                counts[k] = table[i].count
                table[i].count = 0
                hist[0][key & 0x7FF] += 1
                hist[1][(key >> 11) & 0x7FF] += 1
                hist[2][(key >> 22) & 0x3FF] += 1
                hist[3][(key >> 32) & 0x7FF] += 1
                hist[4][(key >> 43) & 0x7FF] += 1
                hist[5][key >> 54] += 1
                k += 1
        return radix_sort(&keys[0], &counts[0], &tmp_keys[0], &tmp_counts[0], n, hist)


#: Counts up to this are selected by a histogram in ``pruned``; a table with a higher
#: count at the cut falls back to the NumPy reference (``np.partition``).
cdef Py_ssize_t HISTOGRAM = 4096


def pruned(const uint64_t[::1] keys, const int64_t[::1] counts, Py_ssize_t keep):
    """``counts.python_pruned``: the ``keep`` entries with the highest counts, ties to the
    lower key, in key order, with a histogram of the counts (a site's n-gram counts are
    small) instead of a partition and three masks. None when the count at the cut is past
    ``HISTOGRAM`` or a count is negative: the caller uses the reference then."""
    cdef Py_ssize_t n = keys.shape[0], i, k = 0, above = 0, ties
    cdef int64_t c, last = -1
    cdef Py_ssize_t *hist = <Py_ssize_t *>calloc(HISTOGRAM + 1, sizeof(Py_ssize_t))
    if hist == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(n):
                c = counts[i]
                if c < 0:
                    break
                hist[c if c < HISTOGRAM else HISTOGRAM] += 1
            else:
                i = HISTOGRAM
                while i >= 0:
                    if above + hist[i] >= keep:
                        last = i
                        break
                    above += hist[i]
                    i -= 1
    finally:
        free(hist)
    if last < 0 or last >= HISTOGRAM:
        return None
    out_keys = np.empty(keep, dtype=np.uint64)
    out_counts = np.empty(keep, dtype=np.int64)
    cdef uint64_t[::1] ok = out_keys
    cdef int64_t[::1] oc = out_counts
    ties = keep - above  # entries at the cut's count that survive: the first, lowest keys
    with nogil:
        for i in range(n):
            c = counts[i]
            if c > last or (c == last and ties > 0):
                if c == last:
                    ties -= 1
                ok[k] = keys[i]
                oc[k] = c
                k += 1
    return out_keys, out_counts


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


#: ``texts_counted``'s table, kept empty between calls (``_collect_sorted`` clears what it
#: reads): a fresh one per call was cleared by ``calloc``, which cost as much as counting
#: a lesson's n-grams once more in a few pages. Lent to one call at a time (the GIL is
#: held while it is lent); a table past ``SPARE_MAX_BITS`` is allocated and freed.
cdef Slot *_spare = NULL
cdef int _spare_bits = -1
cdef bint _spare_lent = False
cdef int SPARE_MAX_BITS = 18  # 4 MB


cdef Slot *_borrow(int bits):
    """The spare table, empty, with at least ``1 << bits`` slots; NULL when it is lent, or
    too large to keep."""
    global _spare, _spare_bits, _spare_lent
    if _spare_lent or bits > SPARE_MAX_BITS:
        return NULL
    if _spare_bits < bits:
        free(_spare)
        _spare = <Slot *>calloc(<size_t>1 << bits, sizeof(Slot))
        _spare_bits = bits if _spare != NULL else -1
        if _spare == NULL:
            return NULL
    _spare_lent = True
    return _spare


cdef void _give_back(bint cleared):
    """Return the spare table; ``cleared``: nothing is left in it."""
    global _spare_lent
    if not cleared:
        memset(_spare, 0, (<size_t>1 << _spare_bits) * sizeof(Slot))
    _spare_lent = False


#: ``ngramkeys``' FNV-1a offset basis and prime, and its key layout (context hash << 32 | char).
cdef uint64_t SEED = 0xCBF29CE484222325ULL
cdef uint64_t PRIME = 0x100000001B3ULL
cdef uint64_t LOW32 = 0xFFFFFFFFULL


def texts_counted(list texts, int order):
    """``counts.counted(ngramkeys.python_texts_keys(texts, order))`` in one loop: every n-gram
    key of the texts (each text on its own) goes straight to the hash count as it is rolled,
    without the array of every occurrence (its writing and reading back was a fifth of what
    counting a lesson cost) nor the ``(order, length)`` arrays and mask of the NumPy path.
    The probe is ``_add``'s, written out with the table's size in locals: through ``_count``
    (they passed by address) each of a page's 40,000 keys loaded and stored them again."""
    cdef Py_ssize_t total = 0, i, k, top, distinct = 0, limit
    cdef str text
    cdef Py_UCS4 ch
    cdef uint64_t c, before = 0, h, key, slot, mask
    cdef int bits = 4, shift
    cdef Slot *at
    cdef Slot *grown
    if order < 1:
        raise ValueError(f"order must be >= 1, not {order}")
    for text in texts:
        total += len(text)
    while (<Py_ssize_t>1 << bits) < total * order // 2:  # as ``counted`` sizes it
        bits += 1
    cdef uint64_t *ctx = <uint64_t *>calloc(order, sizeof(uint64_t))  # context hash per length
    cdef Slot *spare = _borrow(bits)
    cdef Slot *table = spare if spare != NULL else <Slot *>calloc(<size_t>1 << bits, sizeof(Slot))
    cdef bint cleared = False
    try:
        if ctx == NULL or table == NULL:
            raise MemoryError()
        mask, shift, limit = (<uint64_t>1 << bits) - 1, 64 - bits, <Py_ssize_t>3 << bits
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
                    key = (((h >> 32) ^ (h & LOW32)) << 32) | c
                    slot = (key * GOLDEN) >> shift
                    while True:
                        at = &table[slot]
                        if not at.count:  # new: counted, and the table doubled at 3/4 full
                            at.key, at.count = key, 1
                            distinct += 1
                            if distinct * 4 > limit:
                                grown = _grown(table, bits)
                                if grown == NULL:
                                    raise MemoryError()
                                if table == spare:
                                    memset(spare, 0, (<size_t>1 << bits) * sizeof(Slot))
                                else:
                                    free(table)
                                table = grown
                                bits += 1
                                mask, shift, limit = (mask << 1) | 1, shift - 1, limit << 1
                            break
                        if at.key == key:
                            at.count += 1
                            break
                        slot = (slot + 1) & mask
                before = c
                i += 1
        result = _sorted_counts(table, bits, distinct)
        cleared = True
        return result
    finally:
        free(ctx)
        if spare != NULL:
            _give_back(cleared or table != spare)  # a grown table took over from it
        if table != spare:
            free(table)
