# cython: language_level=3, boundscheck=False, wraparound=False
"""A page's text as UTF-8 bytes, for the parser (``page.parse_html``): ``str.encode("utf-8")``
with the ASCII runs of wide text copied sixteen characters at a time; and whether a page's
bytes are valid UTF-8 (``is_utf8``), when the parser can take them as they are.

A page with one character beyond Latin-1 (a curly quote, a dash) is held by
Python two bytes a character, and CPython's encoder then takes every
character on its own, ASCII or not: a twentieth of ``extract()``, more than
a page's stop words. Markup is ASCII, so here a run of sixteen characters is
tested at once (SSE2: their code points OR-ed, masked and compared, then
packed into bytes; a plain loop where there is no SSE2) and copied as bytes; a run that holds another
character is encoded character by character as CPython does. Latin-1 text
goes to CPython's encoder, which already copies ASCII a word at a time.

The bytes are ``str.encode("utf-8")``'s (a test holds the two equal on every
bundled page and on runs cut at every offset); a text with a surrogate,
which UTF-8 cannot hold, gives None, and the caller takes ``str.encode``,
which raises its error as before.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

from scrapy_declutter._chars cimport put_utf8

cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    const void* PyUnicode_DATA(object text)
    int _PyBytes_Resize(PyObject** data, Py_ssize_t size) except -1

# Sixteen code points tested and copied as bytes if all are ASCII: SSE2 (every x86-64)
# packs them with saturation, which leaves code points under 0x80 as they are; elsewhere
# a plain loop, the same bytes.
cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    static inline int ascii_run16(const uint16_t* src, uint8_t* out) {
        __m128i a = _mm_loadu_si128((const __m128i*)src);
        __m128i b = _mm_loadu_si128((const __m128i*)(src + 8));
        if (_mm_movemask_epi8(_mm_cmpeq_epi16(
                _mm_and_si128(_mm_or_si128(a, b), _mm_set1_epi16((short)0xFF80)),
                _mm_setzero_si128())) != 0xFFFF)
            return 0;
        _mm_storeu_si128((__m128i*)out, _mm_packus_epi16(a, b));
        return 1;
    }
    static inline int ascii_run32(const uint32_t* src, uint8_t* out) {
        __m128i a = _mm_loadu_si128((const __m128i*)src);
        __m128i b = _mm_loadu_si128((const __m128i*)(src + 4));
        __m128i c = _mm_loadu_si128((const __m128i*)(src + 8));
        __m128i d = _mm_loadu_si128((const __m128i*)(src + 12));
        __m128i any = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(
                _mm_and_si128(any, _mm_set1_epi32((int)0xFFFFFF80)), _mm_setzero_si128())) != 0xFFFF)
            return 0;
        _mm_storeu_si128((__m128i*)out, _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
        return 1;
    }
    #else
    #define ASCII_RUN(name, unit) \
        static inline int name(const unit* src, uint8_t* out) { \
            unit seen = 0; \
            for (int k = 0; k < 16; k++) seen |= src[k]; \
            if (seen >= 0x80) return 0; \
            for (int k = 0; k < 16; k++) out[k] = (uint8_t)src[k]; \
            return 1; \
        }
    ASCII_RUN(ascii_run16, uint16_t)
    ASCII_RUN(ascii_run32, uint32_t)
    #endif
    """
    bint ascii_run16(const uint16_t* src, uint8_t* out) nogil
    bint ascii_run32(const uint32_t* src, uint8_t* out) nogil

DEF RUN = 16


ctypedef fused unit:
    uint16_t
    uint32_t


cdef Py_ssize_t _encode(const unit* src, Py_ssize_t n, uint8_t* out) noexcept nogil:
    """UTF-8 of ``n`` UCS-2 or UCS-4 code points into ``out`` (room for three or four bytes
    each); the bytes written, or -1 at a surrogate."""
    cdef Py_ssize_t i = 0, m, w = 0
    cdef bint ascii
    while i < n:
        if i + RUN <= n:
            if unit is uint16_t:
                ascii = ascii_run16(src + i, out + w)
            else:
                ascii = ascii_run32(src + i, out + w)
            if ascii:
                i += RUN
                w += RUN
                continue
            m = i + RUN
        else:
            m = n
        while i < m:
            if 0xD800 <= src[i] < 0xE000:  # a surrogate: not UTF-8 (``str.encode`` raises)
                return -1
            w += put_utf8(src[i], out + w)
            i += 1
    return w


def utf8(str text):
    """``text.encode("utf-8")``, or None when the text holds a surrogate."""
    cdef int kind = PyUnicode_KIND(text)
    cdef Py_ssize_t n = len(text), size
    cdef const void* data = PyUnicode_DATA(text)
    cdef uint8_t* out
    cdef PyObject* body
    if kind == 1:
        return text.encode("utf-8")
    # Room for the longest encoding, cut to the bytes written (as CPython's encoder does).
    encoded = PyBytes_FromStringAndSize(NULL, (3 if kind == 2 else 4) * n)
    out = <uint8_t*>PyBytes_AS_STRING(encoded)
    with nogil:
        if kind == 2:
            size = _encode(<const uint16_t*>data, n, out)
        else:
            size = _encode(<const uint32_t*>data, n, out)
    if size < 0:
        return None
    # Resized in place, which needs the one reference to it: ``body`` holds it meanwhile.
    body = <PyObject*>encoded
    Py_INCREF(encoded)
    encoded = None
    _PyBytes_Resize(&body, size)
    encoded = <object>body
    Py_DECREF(encoded)
    return encoded


cdef bint _valid(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """Whether the ``n`` bytes at ``s`` are UTF-8 as CPython's strict decoder takes it
    (RFC 3629's table: no overlong form, no surrogate, nothing past U+10FFFF), eight
    ASCII bytes at a time."""
    cdef Py_ssize_t i = 0, k, length
    cdef uint8_t c, low, high
    cdef uint64_t word
    while i < n:
        if i + 8 <= n:
            memcpy(&word, s + i, 8)
            if word & 0x8080808080808080ULL == 0:
                i += 8
                continue
        c = s[i]
        if c < 0x80:
            i += 1
            continue
        # The sequence's length, and the range of its second byte: narrower than a
        # continuation byte's after E0 and F0 (overlong), ED (surrogates) and F4 (past U+10FFFF).
        if c < 0xC2 or c > 0xF4:
            return False
        low, high = 0x80, 0xBF
        if c < 0xE0:
            length = 2
        elif c < 0xF0:
            length = 3
            if c == 0xE0:
                low = 0xA0
            elif c == 0xED:
                high = 0x9F
        else:
            length = 4
            if c == 0xF0:
                low = 0x90
            elif c == 0xF4:
                high = 0x8F
        if i + length > n or not low <= s[i + 1] <= high:
            return False
        for k in range(i + 2, i + length):
            if s[k] & 0xC0 != 0x80:
                return False
        i += length
    return True


def is_utf8(bytes body):
    """Whether ``body.decode("utf-8")`` succeeds, without making the text: a page whose
    bytes are UTF-8 goes to the parser as it came (``page.parse_utf8``), where decoding
    it and encoding the text again gives the same bytes at the cost of two passes and
    a text of up to four bytes a character."""
    cdef const uint8_t* data = <const uint8_t*>PyBytes_AS_STRING(body)
    cdef Py_ssize_t n = len(body)
    cdef bint valid
    with nogil:
        valid = _valid(data, n)
    return valid
