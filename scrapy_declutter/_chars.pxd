# cython: language_level=3
"""Character classes the compiled parts share, by the rules Python's ``str`` and ``re`` use,
the hash their tables of words key code points by, and a code point's UTF-8 bytes.

A ``.pxd`` of inline functions, compiled into each module that cimports it
(``_language``, ``steps.learned._text``, ``_utf8``): no module of its own to build.
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t

cdef extern from "Python.h":
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index) nogil


cdef inline bint alnum(Py_UCS4 c) noexcept:
    """``str.isalnum`` of one character (``Py_UNICODE_ISALNUM``, which makes four
    look-ups), answered at once for ASCII."""
    if c < 128:
        return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122
    return Py_UNICODE_ISALNUM(c)


cdef inline bint ascii_alnum(unsigned int c) noexcept nogil:
    """Whether the code point is an ASCII letter or digit (``c | 32`` folds the capitals onto
    the small letters, and no other code point onto them): a byte's test where a string's
    ASCII run is read a byte at a time, the rest left to ``alnum``."""
    return c - 48 < 10 or (c | 32) - 97 < 26


cdef inline bint word(Py_UCS4 c) noexcept:
    """Whether ``re``'s ``\\w`` matches the character: "_" or alphanumeric."""
    return c == 95 or alnum(c)


cdef inline uint64_t fnv(int kind, const void* data, Py_ssize_t i, Py_ssize_t j) noexcept:
    """FNV-1a of the code points ``i`` to ``j`` of a string's data (``PyUnicode_KIND``,
    ``PyUnicode_DATA``): the key of ``_language``'s stop-word table and ``_text``'s words."""
    cdef uint64_t h = 14695981039346656037ULL
    while i < j:
        h = (h ^ <uint64_t>PyUnicode_READ(kind, data, i)) * 1099511628211ULL
        i += 1
    return h


cdef inline Py_ssize_t put_utf8(uint32_t c, uint8_t* out) noexcept nogil:
    """Write the code point's UTF-8 bytes at ``out`` (room for four); how many. A surrogate
    is written as three bytes, as ``"surrogatepass"`` writes it: a caller that must refuse
    one (``str.encode``'s strict UTF-8, ``_utf8``) tests for it first."""
    if c < 0x80:
        out[0] = <uint8_t>c
        return 1
    if c < 0x800:
        out[0] = <uint8_t>(0xC0 | (c >> 6))
        out[1] = <uint8_t>(0x80 | (c & 0x3F))
        return 2
    if c < 0x10000:
        out[0] = <uint8_t>(0xE0 | (c >> 12))
        out[1] = <uint8_t>(0x80 | ((c >> 6) & 0x3F))
        out[2] = <uint8_t>(0x80 | (c & 0x3F))
        return 3
    out[0] = <uint8_t>(0xF0 | (c >> 18))
    out[1] = <uint8_t>(0x80 | ((c >> 12) & 0x3F))
    out[2] = <uint8_t>(0x80 | ((c >> 6) & 0x3F))
    out[3] = <uint8_t>(0x80 | (c & 0x3F))
    return 4
