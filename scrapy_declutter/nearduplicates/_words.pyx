# cython: boundscheck=False, wraparound=False, cdivision=True
"""Compiled ``signature.python_word_hashes``: the same words and hashes, in one pass over the bytes.

The rules are the reference's (see ``signature``): a word is a run of word
bytes (ASCII letters and digits, bytes of non-ASCII characters) outside the
punctuation sequences; a three-byte character U+3000..U+9FFF starts a word
and so does the byte after it; a word's hash is the polynomial of its bytes
(ASCII upper case folded, each plus one) in ``_BASE``, the powers capped at
the 64th byte, then mixed. Each byte is looked up in two tables made from the
reference's, so a plain letter costs one test; only the lead bytes of the
punctuation and unspaced characters look further.
"""

from libc.stdint cimport uint64_t

import numpy as np

from .signature import _BASE, _BYTE_VALUE, _MAX_WORD_BYTES, _MIX, _UNSPACED_LEAD, _WORD_BYTE

cdef uint64_t BASE = _BASE
cdef uint64_t MIX = _MIX
cdef int LAST_POWER = _MAX_WORD_BYTES - 1

cdef enum:
    SEPARATOR, WORD, LEAD  # LEAD: may start a punctuation sequence or an unspaced character
cdef unsigned char KIND[256]
cdef uint64_t VALUE[256]  # the byte's term in a word's hash, before its power
for _byte in range(256):
    VALUE[_byte] = _BYTE_VALUE[_byte]
    KIND[_byte] = (LEAD if _byte in (0xC2, 0xE2) or _UNSPACED_LEAD[_byte]
                   else WORD if _WORD_BYTE[_byte] else SEPARATOR)


cdef inline uint64_t finished(uint64_t total) noexcept nogil:
    return (total ^ (total >> 29)) * MIX


def word_hashes(bytes data):
    """One 64-bit hash per word of UTF-8 ``data``, in order (a uint64 array).

    ``data`` is valid UTF-8 (``str.encode``): a punctuation sequence starts
    at a character's first byte, so it is skipped whole, and the byte after
    an unspaced character is the first of the next character.
    """
    cdef const unsigned char *d = data
    cdef Py_ssize_t n = len(data), i = 0, count = -1, after_unspaced = -1
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] words = out
    cdef uint64_t total = 0, power = 1
    cdef int offset = 0
    cdef unsigned char c, kind
    cdef bint before = False
    with nogil:
        while i < n:
            c = d[i]
            kind = KIND[c]
            if kind == SEPARATOR:
                before = False
                i += 1
                continue
            if kind == LEAD:
                if c == 0xC2 and i + 1 < n:
                    before = False
                    i += 2
                    continue
                if i + 2 < n and ((c == 0xE2 and d[i + 1] <= 0x81)
                                  or (c == 0xE3 and d[i + 1] == 0x80)):
                    before = False
                    i += 3
                    continue
                if c != 0xC2 and c != 0xE2:  # an unspaced character: a word of its own
                    before = False
                    after_unspaced = i + 3
            if not before or i == after_unspaced:
                if count >= 0:
                    words[count] = finished(total)
                count += 1
                total, power, offset = 0, 1, 0
            total += VALUE[c] * power
            if offset < LAST_POWER:
                power *= BASE
                offset += 1
            before = True
            i += 1
        if count >= 0:
            words[count] = finished(total)
    return out[:count + 1]
