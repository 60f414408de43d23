# cython: boundscheck=False, wraparound=False, cdivision=True
"""Compiled ``signature.python_word_hashes``: the same words and hashes, in one pass over the bytes.

The rules are the reference's (see ``signature``): a word is a run of word
bytes (ASCII letters and digits, bytes of non-ASCII characters) outside the
punctuation sequences; a three-byte character U+3000..U+9FFF starts a word
and so does the byte after it; a word's hash is the polynomial of its bytes
(ASCII upper case folded, each plus one) in ``_BASE``, the powers capped at
the 64th byte, then mixed.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free

import numpy as np

from .signature import _BASE, _MAX_WORD_BYTES, _MIX

cdef uint64_t BASE = _BASE
cdef uint64_t MIX = _MIX
cdef int LAST_POWER = _MAX_WORD_BYTES - 1


cdef inline bint word_byte(unsigned char c) noexcept nogil:
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c >= 128


cdef inline uint64_t finished(uint64_t total) noexcept nogil:
    return (total ^ (total >> 29)) * MIX


def word_hashes(bytes data):
    """One 64-bit hash per word of UTF-8 ``data``, in order (a uint64 array)."""
    cdef const unsigned char *d = data
    cdef Py_ssize_t n = len(data), i, count = -1
    cdef unsigned char *marks = <unsigned char *>calloc(2 * n + 3, 1)
    if marks == NULL:
        raise MemoryError()
    cdef unsigned char *punct = marks
    cdef unsigned char *unspaced = marks + n + 3
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] words = out
    cdef uint64_t total = 0, power = 1
    cdef int offset = 0
    cdef unsigned char c
    cdef bint inside, before = False
    try:
        with nogil:
            for i in range(n - 1):
                if d[i] == 0xC2:
                    punct[i] = punct[i + 1] = 1
            for i in range(n - 2):
                if (d[i] == 0xE2 and d[i + 1] <= 0x81) or (d[i] == 0xE3 and d[i + 1] == 0x80):
                    punct[i] = punct[i + 1] = punct[i + 2] = 1
            for i in range(n):
                c = d[i]
                inside = word_byte(c) and not punct[i]
                if not inside:
                    before = False
                    continue
                unspaced[i] = 0xE3 <= c <= 0xE9
                if not before or unspaced[i] or (i >= 3 and unspaced[i - 3]):
                    if count >= 0:
                        words[count] = finished(total)
                    count += 1
                    total, power, offset = 0, 1, 0
                total += (c + 1 + (32 if 65 <= c <= 90 else 0)) * power
                if offset < LAST_POWER:
                    power *= BASE
                    offset += 1
                before = True
            if count >= 0:
                words[count] = finished(total)
    finally:
        free(marks)
    return out[:count + 1]
