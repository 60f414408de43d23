# cython: language_level=3, boundscheck=False, wraparound=False
"""``fingerprints.fold_words`` in one scan: its two regular expressions and the split were
most of site learning's cost on pages whose blocks are new to the site."""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport Py_UNICODE_ISDECIMAL, Py_UNICODE_ISSPACE

from scrapy_declutter._chars cimport word

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

#: The words ``fingerprints._MONTHS`` matches: a whole run of ``\w`` equal to one.
cdef frozenset MONTHS = frozenset("jan january feb february mar march apr april may jun june "
                                  "jul july aug august sep sept september oct october nov "
                                  "november dec december".split())
#: The letters a month name starts with, one bit each from "a".
cdef unsigned int FIRSTS = sum(1 << (ord(c) - 97) for c in "adfjmnos")


cdef inline bint decimal(Py_UCS4 c) noexcept:
    """``re``'s ``\\d`` for ``str`` patterns."""
    return 48 <= c <= 57 if c < 128 else Py_UNICODE_ISDECIMAL(c)


def fold(str text):
    """``fingerprints.fold_words(text)``: month names ``<month>``, digit runs ``0``, single
    spaces (``str.split``'s whitespace)."""
    cdef Py_ssize_t n = len(text), i = 0, j, o = 0
    cdef Py_UCS4 c
    cdef unsigned int letter
    cdef bint space = False
    cdef Py_UCS4 *out = <Py_UCS4 *>PyMem_Malloc((3 * n + 8) * sizeof(Py_UCS4))
    if out == NULL:
        raise MemoryError()
    try:
        while i < n:
            c = text[i]
            if Py_UNICODE_ISSPACE(c):
                space = o > 0
                i += 1
                continue
            if space:
                out[o] = 32
                o += 1
                space = False
            if not word(c):
                out[o] = c
                o += 1
                i += 1
                continue
            j = i + 1
            while j < n and word(text[j]):
                j += 1
            letter = <unsigned int>c - 97  # wraps past 26 below "a"
            if 3 <= j - i <= 9 and letter < 26 and (FIRSTS >> letter) & 1 and text[i:j] in MONTHS:
                for c in "<month>":
                    out[o] = c
                    o += 1
                i = j
                continue
            while i < j:  # digits are word characters: a digit run lies inside one word
                c = text[i]
                i += 1
                out[o] = 48 if decimal(c) else c
                o += 1
                if decimal(c):
                    while i < j and decimal(text[i]):
                        i += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, o)
    finally:
        PyMem_Free(out)


cdef inline bint in_token(Py_UCS4 c) noexcept:
    """``[\\w'-]``: a character of a word in ``places._NAMES``."""
    return c == 39 or c == 45 or word(c)


def names_someone(str text):
    """``places._NAMES.search(text) is not None``: a word that starts with [a-z] (after a
    non-word character) runs up to white space followed by [A-Z]."""
    cdef Py_ssize_t n = len(text), i = 0
    cdef Py_UCS4 c, before = 32  # the character before ``i``: none is not a word character
    cdef bint starts = False  # the token that ends at ``i`` holds a word start in [a-z]
    while i < n:
        c = text[i]
        if Py_UNICODE_ISSPACE(c):
            while i < n and Py_UNICODE_ISSPACE(text[i]):
                i += 1
            if starts and i < n and 65 <= <unsigned int>text[i] <= 90:
                return True
            starts, before = False, 32
            continue
        if in_token(c):
            starts = starts or (97 <= c <= 122 and not word(before))
        else:
            starts = False
        before = c
        i += 1
    return False


def fold_names(str text):
    """``places.fold_names(text)``: each name after a lower-case word is ``<name>``."""
    cdef Py_ssize_t n = len(text), pos = 0, s = 0, j, k, e, m
    cdef list out = []
    while s < n:
        if not (97 <= <unsigned int>text[s] <= 122 and (s == 0 or not word(text[s - 1]))):
            s += 1
            continue
        j = s + 1
        while j < n and in_token(text[j]):
            j += 1
        k = j
        while k < n and Py_UNICODE_ISSPACE(text[k]):
            k += 1
        if k == j or k == n or not 65 <= <unsigned int>text[k] <= 90:
            s += 1
            continue
        e = k + 1  # the name: capitalised words, white space between them
        while True:
            while e < n and in_token(text[e]):
                e += 1
            m = e
            while m < n and Py_UNICODE_ISSPACE(text[m]):
                m += 1
            if m == e or m == n or not 65 <= <unsigned int>text[m] <= 90:
                break
            e = m + 1
        out.append(text[pos:k])
        out.append("<name>")
        pos = s = e
    out.append(text[pos:])
    return "".join(out)
