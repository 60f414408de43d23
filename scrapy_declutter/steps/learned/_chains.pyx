# cython: language_level=3, boundscheck=False, wraparound=False
# distutils: language = c++
"""``features._chains`` as compiled code: the ancestor-chain columns of a page's blocks.

The pure-Python ``features._chains`` is the reference (it runs where this
module was not built, and a test holds the two equal on every bundled
page); this is the same walk with the per-ancestor bookkeeping in C++:
ancestors summarised once per page are found by address in a hash map
instead of by ``id()`` in a dict, and the running flags and odds live in C
variables. What is learned about id and class names goes into the Python
``memo`` the reference fills (``features._own_odds``), so the two paths share
one memo. An element's names are looked up there one by one (a string keeps
its hash; the reference's ``(id, classes)`` key was a tuple built and hashed
for every element, a fifth of this walk) and folded in C; a name not in the
memo is worked out here (``_name_facts``): its tokens
(``blocks.name_tokens``) cut out of the lower-cased name by a C loop and
looked up in the odds dict, and the comment rule (``comments.name_comments``)
called only for names that hold one of ``comments.COMMENT_WORDS``, which its
pattern needs. Odds that are not a dict go through ``own_odds``, by ``(id, classes)``
as in the reference. Every sum and
comparison is made in the order and the float type the reference uses, so
the columns are the same to the last bit.

``chrome_rows`` is the other walk up kept blocks' Ancestors, the chrome-boxes rule's
(``chromenames.python_in_chrome_boxes`` its reference).
"""

from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_Check, PyTuple_GET_ITEM, PyTuple_GET_SIZE

import numpy as np


ctypedef PyObject* Ref


cdef struct Summary:
    long mask
    double hi, lo, total, own_hi, own_lo


cdef inline object _field(object record, Py_ssize_t k):
    """``record[k]`` of an Ancestor (tag, id, classes). Read from the tuple's slots: a
    NamedTuple's ``[k]`` goes through the ``__getitem__`` a Python subclass of tuple
    is given (``slot_sq_item``, a method call), a tenth of this walk's time."""
    if PyTuple_Check(record) and k < PyTuple_GET_SIZE(record):
        return <object>PyTuple_GET_ITEM(record, k)
    return record[k]


cdef inline bint _letter(Py_UCS4 c) noexcept:
    return 97 <= c <= 122  # a-z


cdef inline bint _alnum(Py_UCS4 c) noexcept:
    return 97 <= c <= 122 or 48 <= c <= 57  # a-z, 0-9


cdef tuple _name_facts(str name, dict odds, tuple comment_words, object name_comments):
    """``(max, min)`` of the odds of the name's tokens (None when none has odds), and whether
    it names a comment box: the entry ``features._own_odds`` memoises per name.

    The tokens are ``[a-z][a-z0-9]+`` runs of ``name.lower()``, as ``blocks.name_tokens``
    finds them; max and min keep the first of equal values, as Python's do.
    """
    cdef str low = name.lower()
    cdef Py_ssize_t n = len(low), i = 0, j
    cdef bint found = False
    cdef double v, hi = 0.0, lo = 0.0
    cdef object got
    while i + 1 < n:
        if _letter(low[i]) and _alnum(low[i + 1]):
            j = i + 2
            while j < n and _alnum(low[j]):
                j += 1
            got = odds.get(low[i:j])
            if got is not None:
                v = got
                if not found:
                    hi = lo = v
                    found = True
                else:
                    if v > hi:
                        hi = v
                    if v < lo:
                        lo = v
            i = j
        else:
            i += 1
    comment = False
    for word in comment_words:
        if word in low:
            comment = name_comments(name)
            break
    return ((hi, lo) if found else None, comment)


cdef struct Own:
    bint found, named
    double hi, lo


cdef inline void _add_name(Own* own, object name, dict odds, dict memo, tuple comment_words,
                           object name_comments):
    """Fold one id or class name's memo entry (``features._own_odds``'s, worked out and
    kept when missing) into ``own``: max and min keep the first of equal values, as there."""
    cdef object got = memo.get(name)
    cdef object pair
    cdef double h, l
    if got is None:
        got = _name_facts(name, odds, comment_words, name_comments)
        memo[name] = got
    if <object>PyTuple_GET_ITEM(got, 1):
        own.named = True
    pair = <object>PyTuple_GET_ITEM(got, 0)
    if pair is not None:
        h = <object>PyTuple_GET_ITEM(pair, 0)
        l = <object>PyTuple_GET_ITEM(pair, 1)
        if not own.found:
            own.hi, own.lo, own.found = h, l, True
        else:
            if h > own.hi:
                own.hi = h
            if l < own.lo:
                own.lo = l


def chains(list ancestry, object odds, dict memo, object own_odds, dict flag_bits,
           long comment_bit, frozenset page_tags, tuple comment_words, object name_comments):
    """The ``features.CHAIN_FIELDS`` of each block (one row per block): see ``features._chains``."""
    cdef Py_ssize_t n = len(ancestry), i, j, k, m, count
    cdef unordered_map[Ref, Py_ssize_t] where
    cdef vector[Summary] done
    cdef Summary s, parent
    cdef object ancestors, a, key, got, own, bit
    cdef long mask
    cdef double hi, lo, total, own_hi, own_lo, near
    cdef Own named
    cdef bint by_name = type(odds) is dict
    out = np.zeros((n, 7), dtype=np.float64)
    cdef double[:, ::1] rows = out
    for i in range(n):
        ancestors = ancestry[i]
        m = len(ancestors)
        if m == 0:
            continue
        if where.count(<Ref>ancestors[m - 1]):
            s = done[where[<Ref>ancestors[m - 1]]]
        else:
            # Up to the nearest ancestor already summarised, then down again.
            j = m - 1
            while j > 0 and not where.count(<Ref>ancestors[j - 1]):
                j -= 1
            if j > 0:
                s = done[where[<Ref>ancestors[j - 1]]]
                mask, hi, lo, total = s.mask, s.hi, s.lo, s.total
            else:
                mask, hi, lo, total = 0, 0.0, 0.0, 0.0
            for k in range(j, m):
                a = ancestors[k]
                own_hi = own_lo = 0.0
                ident, classes, tag = _field(a, 1), _field(a, 2), _field(a, 0)
                if not (ident or classes):
                    pass
                elif by_name:
                    # Name by name: a name's memo entry is one lookup of a string that
                    # keeps its hash, where the (id, classes) key was a tuple to build
                    # and hash each time; the names' combinations are not kept.
                    named.found = named.named = False
                    if ident:
                        _add_name(&named, ident, odds, memo, comment_words, name_comments)
                    for c in classes:
                        if c:
                            _add_name(&named, c, odds, memo, comment_words, name_comments)
                    if named.found:
                        own_hi, own_lo = named.hi, named.lo
                        if own_hi > hi:
                            hi = own_hi
                        if own_lo < lo:
                            lo = own_lo
                        total = total + own_hi + own_lo
                    if named.named and tag not in page_tags:
                        mask |= comment_bit
                else:
                    key = (ident, classes)
                    got = memo.get(key)
                    if got is None:
                        got = memo[key] = own_odds(a, odds, memo)
                    own = got[0]
                    if own is not None:
                        own_hi, own_lo = own
                        if own_hi > hi:
                            hi = own_hi
                        if own_lo < lo:
                            lo = own_lo
                        total = total + own_hi + own_lo
                    if got[1] and tag not in page_tags:
                        mask |= comment_bit
                bit = flag_bits.get(tag)
                if bit is not None:
                    mask |= <long>bit
                s.mask, s.hi, s.lo, s.total, s.own_hi, s.own_lo = mask, hi, lo, total, own_hi, own_lo
                where[<Ref>a] = done.size()
                done.push_back(s)
        near = s.own_hi + s.own_lo
        count = 2 if (s.own_hi != 0.0 or s.own_lo != 0.0) else 0
        if m > 1 and where.count(<Ref>ancestors[m - 2]):
            parent = done[where[<Ref>ancestors[m - 2]]]
            if parent.own_hi != 0.0 or parent.own_lo != 0.0:
                near += parent.own_hi + parent.own_lo
                count += 2
        rows[i, 0] = s.mask
        rows[i, 1] = s.own_hi
        rows[i, 2] = s.own_lo
        rows[i, 3] = s.hi
        rows[i, 4] = s.lo
        rows[i, 5] = near / count if count else 0.0
        rows[i, 6] = s.total
    return out


def chrome_rows(list blocks, list rows, object names_chrome, frozenset exempt_tags,
                frozenset never_boxes, char chrome, char exempt):
    """``chromenames.python_in_chrome_boxes`` compiled: those of ``rows`` whose block has,
    among its elements, one named chrome and none that is a table or code.

    The same walk along the paths the kept blocks share, with what each depth's elements
    said in a C++ vector and the paths' Ancestors compared and read in their tuples'
    slots (``_field``): a Python loop over a hundred kept blocks cost 0.1 ms an article.
    An element's names are asked of ``names_chrome`` (remembered there) where the
    reference asks them, but for an element without an id or a class: no name there,
    nothing to find (``names_chrome("", ())`` is False), and no call.
    """
    cdef list found = []
    cdef vector[char] said
    cdef tuple path, before = ()
    cdef Py_ssize_t size, depth, most, k
    cdef char state
    cdef object a, tag, got, ident, classes
    for i in rows:
        got = blocks[i].ancestors
        path = got if type(got) is tuple else tuple(got)
        size = PyTuple_GET_SIZE(path)
        if (size == PyTuple_GET_SIZE(before) and size > 1
                and PyTuple_GET_ITEM(path, size - 2) == PyTuple_GET_ITEM(before, size - 2)):
            depth = size - 1  # a sibling of the block before
        else:
            depth, most = 0, min(size, PyTuple_GET_SIZE(before))
            while depth < most and PyTuple_GET_ITEM(path, depth) == PyTuple_GET_ITEM(before, depth):
                depth += 1
        said.resize(depth)
        state = said.back() if depth else 0
        for k in range(depth, size):
            if state != exempt:
                a = <object>PyTuple_GET_ITEM(path, k)
                tag = _field(a, 0)
                if tag in exempt_tags:
                    state = exempt
                elif not state and tag not in never_boxes:
                    ident, classes = _field(a, 1), _field(a, 2)
                    if (ident or classes) and names_chrome(ident, classes):
                        state = chrome
            said.push_back(state)
        before = path
        if state == chrome:
            found.append(i)
    return found
