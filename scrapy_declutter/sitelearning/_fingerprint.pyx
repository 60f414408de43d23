# cython: language_level=3, boundscheck=False, wraparound=False
"""``model.python_normalise`` and ``model.python_fingerprint`` as one pass per text in C.

Site learning fingerprints every block of every page (a crawl's pages hold a
few hundred each): lower case, then three regular expressions (URLs, month
names, digit runs), a split and a join, UTF-8 and blake2b. The expressions
scan the text once each, and the month names' ``\\b`` alternation costs the
most, though a month name is exactly a whole word. Here, after ``str.lower``
(Python's, for its special cases), one loop folds URLs and a second folds
month names and digit runs and collapses whitespace as it copies, with the
character classes the ``re`` module uses for ``str`` patterns (``\\w``:
``Py_UNICODE_ISALNUM`` or ``_``; ``\\d``: ``Py_UNICODE_ISDECIMAL``; ``\\s``
and ``str.split``: ``Py_UNICODE_ISSPACE``); the UTF-8 bytes (surrogates
passed, as ``surrogatepass`` does) are written straight from the result. The
strings and hashes are the reference's (a test compares them on tricky texts
and on every block of the bundled pages).
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport Py_UNICODE_ISALNUM, Py_UNICODE_ISDECIMAL, Py_UNICODE_ISSPACE
from libc.stdint cimport uint64_t

from hashlib import blake2b

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

#: ``model.HASH_MASK``: 63 bits, so a fingerprint fits SQLite INTEGER and JSON exactly.
cdef uint64_t MASK = (<uint64_t>1 << 63) - 1

#: The words ``model._MONTHS`` folds: a month name or abbreviation, alone as a word.
cdef const char *MONTHS[24]
MONTHS[:] = [b"jan", b"january", b"feb", b"february", b"mar", b"march", b"apr", b"april",
             b"may", b"jun", b"june", b"jul", b"july", b"aug", b"august", b"sep", b"sept",
             b"september", b"oct", b"october", b"nov", b"november", b"dec", b"december"]


cdef inline bint is_word(Py_UCS4 ch) noexcept:
    if ch < 128:  # most characters: no table look-up
        return (u'a' <= ch <= u'z') or (u'0' <= ch <= u'9') or (u'A' <= ch <= u'Z') or ch == u'_'
    return Py_UNICODE_ISALNUM(ch)


cdef bint is_month(Py_UCS4 *word, Py_ssize_t n) noexcept:
    """Whether the word is one of ``MONTHS``."""
    cdef Py_ssize_t m, k
    cdef const char *name
    if n < 3 or n > 9:
        return False
    for m in range(24):
        name = MONTHS[m]
        if <Py_UCS4>name[0] != word[0]:
            continue
        k = 0
        while k < n and name[k] != 0 and <Py_UCS4>name[k] == word[k]:
            k += 1
        if k == n and name[k] == 0:
            return True
    return False


cdef inline bint starts(Py_UCS4 *s, Py_ssize_t i, Py_ssize_t n, str prefix) noexcept:
    cdef Py_ssize_t k
    if i + len(prefix) > n:
        return False
    for k in range(len(prefix)):
        if s[i + k] != <Py_UCS4>prefix[k]:
            return False
    return True


cdef Py_ssize_t url_at(Py_UCS4 *s, Py_ssize_t i, Py_ssize_t n) noexcept:
    """End of the URL (``(?:https?://|www\\.)\\S+``) starting at ``i``, or -1."""
    cdef Py_ssize_t p
    if s[i] != u'h' and s[i] != u'w':
        return -1
    if starts(s, i, n, "https://"):
        p = i + 8
    elif starts(s, i, n, "http://"):
        p = i + 7
    elif starts(s, i, n, "www."):
        p = i + 4
    else:
        return -1
    if p >= n or Py_UNICODE_ISSPACE(s[p]):
        return -1
    while p < n and not Py_UNICODE_ISSPACE(s[p]):
        p += 1
    return p


cdef Py_ssize_t put(Py_UCS4 *out, Py_ssize_t o, str text) noexcept:
    cdef Py_UCS4 ch
    for ch in text:
        out[o] = ch
        o += 1
    return o


cdef Py_ssize_t fold(str text, Py_UCS4 *out) except -1:
    """Write the normalised ``text`` to ``out`` (room for ``3 * len(text) + 8``); its length."""
    cdef str low = text.lower()
    cdef Py_ssize_t n = len(low), i = 0, j, k, o = 0, end
    cdef Py_UCS4 ch
    cdef bint pending = False  # a run of spaces since the last character written
    cdef Py_UCS4 *s = <Py_UCS4 *>PyMem_Malloc((n + 1) * sizeof(Py_UCS4))
    if s == NULL:
        raise MemoryError()
    try:
        for ch in low:  # URLs first, as the reference: "<url>" then reads as words
            s[i] = ch
            i += 1
        if "http" in low or "www." in low:
            i = j = 0
            while i < n:
                end = url_at(s, i, n)
                if end < 0:
                    s[j] = s[i]
                    j += 1
                    i += 1
                else:
                    for ch in "<url>":
                        s[j] = ch
                        j += 1
                    i = end
            n = j
        i = 0
        while i < n:
            ch = s[i]
            if Py_UNICODE_ISSPACE(ch):
                pending = o > 0
                i += 1
                continue
            if pending:
                out[o] = u' '
                o += 1
                pending = False
            if not is_word(ch):
                out[o] = ch
                o += 1
                i += 1
                continue
            j = i
            while j < n and is_word(s[j]):
                j += 1
            if is_month(s + i, j - i):
                o = put(out, o, "<month>")
            else:
                k = i
                while k < j:  # digits are word characters: a digit run is inside one word
                    if Py_UNICODE_ISDECIMAL(s[k]):
                        out[o] = u'0'
                        o += 1
                        while k < j and Py_UNICODE_ISDECIMAL(s[k]):
                            k += 1
                    else:
                        out[o] = s[k]
                        o += 1
                        k += 1
            i = j
    finally:
        PyMem_Free(s)
    return o


def normalise(str text):
    """``model.python_normalise``: the text as fingerprints see it."""
    cdef Py_UCS4 *out = <Py_UCS4 *>PyMem_Malloc((3 * len(text) + 8) * sizeof(Py_UCS4))
    if out == NULL:
        raise MemoryError()
    try:
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, fold(text, out))
    finally:
        PyMem_Free(out)


def fingerprint(str text):
    """``model.python_fingerprint``: blake2b of the normalised text's UTF-8, 63 bits."""
    cdef Py_ssize_t cap = 3 * len(text) + 8, n, i, b = 0
    cdef Py_UCS4 *out = <Py_UCS4 *>PyMem_Malloc(cap * sizeof(Py_UCS4))
    cdef unsigned char *utf8 = NULL
    cdef unsigned int ch  # a code point, as a number
    cdef const unsigned char *d
    cdef uint64_t h = 0
    if out == NULL:
        raise MemoryError()
    try:
        n = fold(text, out)
        utf8 = <unsigned char *>PyMem_Malloc(4 * n + 1)
        if utf8 == NULL:
            raise MemoryError()
        for i in range(n):
            ch = out[i]
            if ch < 0x80:
                utf8[b] = ch
                b += 1
            elif ch < 0x800:
                utf8[b] = 0xC0 | (ch >> 6)
                utf8[b + 1] = 0x80 | (ch & 0x3F)
                b += 2
            elif ch < 0x10000:  # surrogates too, as "surrogatepass" writes them
                utf8[b] = 0xE0 | (ch >> 12)
                utf8[b + 1] = 0x80 | ((ch >> 6) & 0x3F)
                utf8[b + 2] = 0x80 | (ch & 0x3F)
                b += 3
            else:
                utf8[b] = 0xF0 | (ch >> 18)
                utf8[b + 1] = 0x80 | ((ch >> 12) & 0x3F)
                utf8[b + 2] = 0x80 | ((ch >> 6) & 0x3F)
                utf8[b + 3] = 0x80 | (ch & 0x3F)
                b += 4
        digest = blake2b((<char *>utf8)[:b], digest_size=8).digest()
    finally:
        PyMem_Free(out)
        PyMem_Free(utf8)
    d = digest
    for i in range(7, -1, -1):  # little-endian
        h = (h << 8) | d[i]
    return h & MASK
