# cython: language_level=3, boundscheck=False, wraparound=False
"""``columns.python_block_columns`` as one C loop over the blocks (see ``columns``).

Each block's fields are read once, where their slots lie (``_slots``; a
``getattr`` from C cost as much as the rest of the loop), and written
straight into preallocated arrays: numbers converted to double as NumPy
converts them, the XPath's ``/`` counted in C, ancestor identities taken as
``id`` gives them (the object's address). A test holds the arrays equal to
the reference's on every bundled page. ``set_labels`` writes the step's labels
back the same way, at the slots (``columns.set_labels``). ``region`` takes its
subtree sums (``subtree_sums``) and the widening of the content region over the
blocks' XPaths (``widen``) from here too; its NumPy and Python code is their reference.
"""

import numpy as np
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from scrapy_declutter._slots cimport field_of, slot_at, slot_offset, write_slot

cdef extern from "Python.h":
    bint PyObject_IS_GC(object o)
    bint PyObject_GC_IsTracked(object o)
    void PyObject_GC_UnTrack(void* op)

DEF MAX_FIELDS = 64


def block_columns(list blocks, tuple fields, dict tag_group, frozenset heading_tags,
                  tuple levels):
    """(numbers, ancestry, depth, group, heading, level_ids): see ``columns.BlockColumns``."""
    cdef Py_ssize_t n = len(blocks), n_fields = len(fields), n_levels = len(levels)
    cdef Py_ssize_t i, k, m, level, slashes
    cdef str xpath
    cdef Py_UCS4 c
    numbers = np.empty((n, n_fields), dtype=np.float64)
    depth = np.empty(n, dtype=np.float64)
    group = np.empty(n, dtype=np.intp)
    heading = np.empty(n, dtype=np.float64)
    level_ids = np.zeros((n_levels, n), dtype=np.uint64)
    cdef double[:, ::1] num = numbers
    cdef double[::1] dep = depth, head = heading
    cdef Py_ssize_t[::1] grp = group
    cdef unsigned long long[:, ::1] ids = level_ids
    cdef Py_ssize_t[64] up
    cdef list ancestry = [None] * n
    # Where the fields lie in the blocks' class (-1: read with getattr), the fields asked
    # for then xpath, tag and ancestors; blocks of another class are read with getattr.
    cdef Py_ssize_t[MAX_FIELDS + 3] at
    cdef object cls = type(blocks[0]) if n else None
    names = fields + ("xpath", "tag", "ancestors")
    if n_levels > 64 or n_fields > MAX_FIELDS:
        raise ValueError("at most 64 levels and 64 fields")
    for k in range(n_levels):
        up[k] = levels[k]
    for k in range(n_fields + 3):
        at[k] = slot_offset(cls, names[k]) if n else -1
    for i in range(n):
        b = blocks[i]
        if type(b) is not cls:
            for k in range(n_fields + 3):
                at[k] = -1
        for k in range(n_fields):
            num[i, k] = field_of(b, at[k], fields[k])
        xpath = field_of(b, at[n_fields], "xpath")
        slashes = 0
        for c in xpath:
            if c == "/":
                slashes += 1
        dep[i] = slashes
        tag = field_of(b, at[n_fields + 1], "tag")
        got = tag_group.get(tag)
        grp[i] = -1 if got is None else <Py_ssize_t>got
        head[i] = 1.0 if tag in heading_tags else 0.0
        a = field_of(b, at[n_fields + 2], "ancestors")
        ancestry[i] = a
        m = len(a)
        for k in range(n_levels):
            level = up[k]
            if m > level:
                ids[k, i] = <unsigned long long><size_t><PyObject*>a[m - 1 - level]
    return numbers, ancestry, depth, group, heading, level_ids


def same_kind(list ancestry, const Py_ssize_t[::1] depths, Py_ssize_t box_depth, object box,
              object parent):
    """``region._same_kind_siblings``'s test for one kind of box, per block: the block lies
    under a sibling of ``box`` (another child of ``parent``) with its tag and classes."""
    cdef Py_ssize_t n = len(ancestry), i, k, m
    cdef object a, other
    found = np.zeros(n, dtype=bool)
    cdef unsigned char[::1] out = found.view(np.uint8)
    tag, classes = box[0], box[2]
    for i in range(n):
        a = ancestry[i]
        m = len(a)
        k = depths[i] - box_depth
        if 0 <= k < m - 1 and a[m - 2 - k] is parent:
            other = a[m - 1 - k]
            if other is not box and other[0] == tag and other[2] == classes:
                out[i] = 1
    return found


def level_ids(list ancestry, tuple levels):
    """``columns.python_level_ids`` in one C loop: the ancestors' addresses (``id``)."""
    cdef Py_ssize_t n = len(ancestry), n_levels = len(levels), i, k, m, level
    cdef object a
    out = np.zeros((n_levels, n), dtype=np.uint64)
    cdef unsigned long long[:, ::1] ids = out
    for k in range(n_levels):
        level = levels[k]
        for i in range(n):
            a = ancestry[i]
            m = len(a)
            if m > level:
                ids[k, i] = <unsigned long long><size_t><PyObject*>a[m - 1 - level]
    return out


def subtree_spans(const unsigned long long[:, ::1] ids):
    """``region.python_subtree_spans`` with a hash table in C: for each (level, block), the
    first block and one past the last block that name the same ancestor at any level."""
    cdef Py_ssize_t levels = ids.shape[0], n = ids.shape[1], size = 16, mask, k, i, slot
    cdef Py_ssize_t total = levels * n, used = 0
    cdef unsigned long long key
    while size < 2 * total:
        size *= 2
    mask = size - 1
    keys = np.empty(size, dtype=np.uint64)
    taken = np.zeros(size, dtype=np.uint8)
    first_at = np.empty(size, dtype=np.intp)
    last_at = np.empty(size, dtype=np.intp)
    where = np.empty((levels, n), dtype=np.intp)
    cdef unsigned long long[::1] K = keys
    cdef unsigned char[::1] T = taken
    cdef Py_ssize_t[::1] F = first_at, L = last_at
    cdef Py_ssize_t[:, ::1] W = where
    for k in range(levels):
        for i in range(n):
            key = ids[k, i]
            slot = <Py_ssize_t>((key >> 4) * 11400714819323198485ULL >> 20) & mask
            while T[slot] and K[slot] != key:
                slot = (slot + 1) & mask
            if not T[slot]:
                T[slot], K[slot], F[slot], L[slot] = 1, key, i, i
            else:
                if i < F[slot]:
                    F[slot] = i
                if i > L[slot]:
                    L[slot] = i
            W[k, i] = slot
    lo = np.empty((levels, n), dtype=np.intp)
    hi = np.empty((levels, n), dtype=np.intp)
    cdef Py_ssize_t[:, ::1] lo_v = lo, hi_v = hi
    for k in range(levels):
        for i in range(n):
            slot = W[k, i]
            lo_v[k, i] = F[slot]
            hi_v[k, i] = L[slot] + 1
    return lo, hi


def set_labels(list blocks, list labels, list scores, str step, object plain):
    """``block.set_label(label, score, step)`` on each block, written at the slots of a
    ``plain`` class (``Block``) where it keeps that class's ``set_label``.

    The first block of each label goes through ``set_label`` itself (its checks, its
    trail entry); later ones take that entry, the same ``(step, label)`` pair, and
    have label, score, step and the longer trail written where the slots lie. A
    block of any other class, or a class whose fields are not plain slots, gets
    ``set_label`` called.
    """
    cdef Py_ssize_t n = len(blocks), i, k, m
    cdef Py_ssize_t at_label = slot_offset(plain, "label"), at_score = slot_offset(plain, "score")
    cdef Py_ssize_t at_step = slot_offset(plain, "step"), at_trail = slot_offset(plain, "trail")
    cdef bint by_slot = at_label >= 0 and at_score >= 0 and at_step >= 0 and at_trail >= 0
    cdef dict pairs = {}
    cdef PyObject* value
    cdef tuple trail, longer
    if len(labels) != n or len(scores) != n:
        raise ValueError("one label and one score per block")
    for i in range(n):
        b, label, score = blocks[i], labels[i], scores[i]
        pair = pairs.get(label) if by_slot and type(b) is plain else None
        if pair is None:
            b.set_label(label, score, step)
            if by_slot and type(b) is plain:
                pairs[label] = _atomic(b.trail[len(b.trail) - 1])
            continue
        value = slot_at(b, at_trail)[0]
        if value == NULL or type(<object>value) is not tuple:
            b.set_label(label, score, step)
            continue
        trail = <tuple>value
        m = len(trail)
        longer = PyTuple_New(m + 1)
        for k in range(m):
            item = trail[k]
            Py_INCREF(item)
            PyTuple_SET_ITEM(longer, k, item)
        Py_INCREF(pair)
        PyTuple_SET_ITEM(longer, m, pair)
        write_slot(b, at_label, label)
        write_slot(b, at_score, score if type(score) is float else float(score))
        write_slot(b, at_step, step)
        write_slot(b, at_trail, _atomic(longer))


cdef object _atomic(object t):
    """``t`` no longer tracked by the garbage collector when it is a tuple of which no item
    is tracked (strings, the pairs untracked here): CPython's own rule for tuples, which
    it applies only when a collection first looks at one. A page's trails then never
    count towards a collection."""
    if type(t) is not tuple:
        return t
    for item in <tuple>t:
        if PyObject_IS_GC(item) and PyObject_GC_IsTracked(item):
            return t
    PyObject_GC_UnTrack(<void*>t)
    return t


def under_paths(list blocks, tuple prefixes):
    """``columns.python_under_paths``: ``(xpath + "/").startswith(prefixes)`` of each block,
    as float64, compared where the XPath lies: a prefix no longer than the XPath is a
    ``startswith``, one a character longer must be the XPath and a ``/``."""
    cdef Py_ssize_t n = len(blocks), i, k, m, length, n_prefixes = len(prefixes)
    cdef object cls = type(blocks[0]) if n else None
    cdef Py_ssize_t at = slot_offset(cls, "xpath") if n else -1
    cdef str xpath, p
    out = np.zeros(n, dtype=np.float64)
    cdef double[::1] o = out
    for k in range(n_prefixes):
        if type(prefixes[k]) is not str:
            raise TypeError("the prefixes must be strings")
    for i in range(n):
        b = blocks[i]
        xpath = field_of(b, at if type(b) is cls else -1, "xpath")
        m = len(xpath)
        for k in range(n_prefixes):
            p = <str>prefixes[k]
            length = len(p)
            if length <= m:
                if xpath.startswith(p):
                    o[i] = 1.0
                    break
            elif length == m + 1 and p[m] == "/" and p.startswith(xpath):
                o[i] = 1.0
                break
    return out


def subtree_sums(const unsigned long long[:, ::1] ids, const double[:, ::1] values):
    """``region.python_subtree_sums`` in C: (levels x (values + 1) x blocks), the sums of each
    row of ``values`` over each block's subtree at each level (``subtree_spans``), then the
    subtree's blocks. The prefix sums are NumPy's ``cumsum``, left to right from the first
    value, and each sum the difference of two of them, so every value is the reference's."""
    cdef Py_ssize_t levels = ids.shape[0], n = ids.shape[1], k = values.shape[0]
    cdef Py_ssize_t v, i, level, a, b
    if values.shape[1] != n:
        raise ValueError("one value per block in each row")
    lo, hi = subtree_spans(ids)
    prefix = np.empty((k, n + 1), dtype=np.float64)
    out = np.empty((levels, k + 1, n), dtype=np.float64)
    cdef double[:, ::1] P = prefix
    cdef double[:, :, ::1] o = out
    cdef Py_ssize_t[:, ::1] lo_v = lo, hi_v = hi
    for v in range(k):
        P[v, 0] = 0.0
        if n:
            P[v, 1] = values[v, 0]
        for i in range(1, n):
            P[v, i + 1] = P[v, i] + values[v, i]
    for level in range(levels):
        for i in range(n):
            a, b = lo_v[level, i], hi_v[level, i]
            for v in range(k):
                o[level, v, i] = P[v, b] - P[v, a]
            o[level, k, i] = <double>(b - a)
    return out


def widen(list blocks, Py_ssize_t lo, Py_ssize_t hi, str path):
    """``region._region``'s widening of the span of blocks ``lo`` to ``hi`` to the blocks
    around it whose XPath is ``path`` or runs below it (``region._inside``), compared where
    each XPath lies: (lo, hi) widened."""
    cdef Py_ssize_t n = len(blocks), m = len(path)
    cdef object cls = type(blocks[0]) if n else None
    cdef Py_ssize_t at = slot_offset(cls, "xpath") if n else -1
    while lo > 0 and _under(blocks[lo - 1], cls, at, path, m):
        lo -= 1
    while hi < n - 1 and _under(blocks[hi + 1], cls, at, path, m):
        hi += 1
    return lo, hi


cdef inline bint _under(object b, object cls, Py_ssize_t at, str path, Py_ssize_t m) except -1:
    """Whether the block's XPath is ``path`` (``m`` characters) or starts with it and a ``/``."""
    cdef str xpath = field_of(b, at if type(b) is cls else -1, "xpath")
    if len(xpath) < m or not xpath.startswith(path):
        return False
    return len(xpath) == m or xpath[m] == "/"


def block_rows(double[:, ::1] matrix, const double[:, ::1] chains, const double[::1] depth,
               const Py_ssize_t[::1] group, const double[::1] heading, const double[:, ::1] numbers,
               const double[::1] words, double total, object r, tuple plain_fields,
               Py_ssize_t n_flags, long comment_bit, Py_ssize_t n_groups, Py_ssize_t n_containers):
    """``features._block_rows`` in one C loop: the columns of the (blocks x features)
    ``matrix`` a page's block columns and ancestor chains give as they are, each
    value computed as NumPy computes it there (``numbers``' plain fields, the words'
    running and page shares, the flags of each chain's mask, the tag group's one-hot)."""
    cdef Py_ssize_t n = matrix.shape[0], i, k
    cdef Py_ssize_t n_odds = len(r.odds), n_plain = len(plain_fields)
    cdef Py_ssize_t depth_at = r.depth, heading_at = r.heading, comment_at = r.in_comment
    cdef Py_ssize_t flags_at = r.flags, tags_at = r.tags, containers_at = r.containers
    cdef Py_ssize_t context_at = r.context, page_at = r.page
    cdef Py_ssize_t before_at = r.words[1], share_at = r.words[2], rel_at = r.words[3]
    cdef Py_ssize_t[16] odds_at
    cdef Py_ssize_t[16] plain_at
    cdef Py_ssize_t[16] plain_of
    cdef long long mask
    cdef double running = 0.0, top = 0.0, w
    if (chains.shape[0] != n or chains.shape[1] != n_odds + 1 or depth.shape[0] != n
            or group.shape[0] != n or heading.shape[0] != n or numbers.shape[0] != n
            or words.shape[0] != n or n_odds > 16 or n_plain > 16 or n_flags > 62):
        raise ValueError("one row per block, and at most 16 odds and plain columns")
    for k in range(n_odds):
        odds_at[k] = r.odds[k]
    for k in range(n_plain):
        plain_at[k], plain_of[k] = r.plain[k], plain_fields[k]
    for i in range(n):
        if words[i] > top or i == 0:
            top = words[i]
    if top == 0.0:  # ``words.max() or 1.0``
        top = 1.0
    for i in range(n):
        for k in range(containers_at, containers_at + n_containers):
            matrix[i, k] = 0.0
        for k in range(context_at, page_at):
            matrix[i, k] = 0.0
        for k in range(n_odds):
            matrix[i, odds_at[k]] = chains[i, k + 1]
        matrix[i, depth_at] = depth[i]
        for k in range(n_groups):
            matrix[i, tags_at + k] = 1.0 if group[i] == k else 0.0
        matrix[i, heading_at] = heading[i]
        for k in range(n_plain):
            matrix[i, plain_at[k]] = numbers[i, plain_of[k]]
        w = words[i]
        running = running + w if i else w  # ``np.cumsum``: left to right
        matrix[i, before_at] = (running - w) / total
        matrix[i, share_at] = w / total
        matrix[i, rel_at] = w / top
        mask = <long long>chains[i, 0]
        matrix[i, comment_at] = 1.0 if (mask & comment_bit) > 0 else 0.0
        for k in range(n_flags):
            matrix[i, flags_at + k] = <double>((mask >> k) & 1)


def tail_rows(double[:, ::1] matrix, const Py_ssize_t[::1] sources, Py_ssize_t context_at,
              const Py_ssize_t[::1] offsets, Py_ssize_t page_at, const double[::1] page):
    """``features._tail_rows`` in one C loop: the neighbours' copies of the ``sources``
    columns (zero where a block has no neighbour at that offset, as left), then the page's
    own values, the same in every row."""
    cdef Py_ssize_t n = matrix.shape[0], width = matrix.shape[1], i, j, k, s
    cdef Py_ssize_t n_src = sources.shape[0], n_off = offsets.shape[0]
    if page_at + page.shape[0] != width or context_at + n_off * n_src > page_at:
        raise ValueError("the page's values fill the last columns, after the neighbours'")
    for i in range(n):
        for k in range(n_off):
            j = i + offsets[k]
            if offsets[k] != 0 and 0 <= j < n:  # offset 0 is no neighbour: left as it is
                for s in range(n_src):
                    matrix[i, context_at + k * n_src + s] = matrix[j, sources[s]]
        for k in range(page.shape[0]):
            matrix[i, page_at + k] = page[k]
