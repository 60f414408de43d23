# cython: language_level=3, boundscheck=False, wraparound=False
"""``model.python_normalise`` and ``model.python_fingerprint`` as one pass per text in C, and
``places.python_names_someone`` (whether a text names someone) as one scan.

Site learning fingerprints every block of every page (a crawl's pages hold a
few hundred each): lower case, then three regular expressions (URLs, month
names, digit runs), a split and a join, UTF-8 and blake2b (``_blake2b.pxi``, in C). The expressions
scan the text once each, and the month names' ``\\b`` alternation costs the
most, though a month name is exactly a whole word. Here, after lowering (an
ASCII text's A-Z in the copy, any other's by ``str.lower``, for its special
cases), into buffers on the stack for the short texts most blocks hold, one
loop folds URLs and a second folds month names and digit runs and collapses
whitespace as it copies, with the character classes the ``re`` module uses
for ``str`` patterns (``\\w``:
``Py_UNICODE_ISALNUM`` or ``_``; ``\\d``: ``Py_UNICODE_ISDECIMAL``; ``\\s``
and ``str.split``: ``Py_UNICODE_ISSPACE``); the UTF-8 bytes (surrogates
passed, as ``surrogatepass`` does) are written straight from the result. The
strings and hashes are the reference's (a test compares them on tricky texts
and on every block of the bundled pages).

Every block short and unlinked enough for a structural key is also asked
whether it names someone (``places.folded_hash``), with a regular expression
whose search cost a site-learning page more than its fingerprints did;
``names_someone`` gives the same answer in one scan (the test compares it too).
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport (Py_UNICODE_ISALNUM, Py_UNICODE_ISDECIMAL, Py_UNICODE_ISSPACE,
                              Py_UNICODE_TOLOWER)
from libc.stdint cimport uint64_t

from scrapy_declutter._chars cimport put_utf8

include "_blake2b.pxi"

cdef extern from "Python.h":
    ctypedef unsigned char Py_UCS1
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND
    int PyUnicode_1BYTE_KIND
    bint PyUnicode_IS_ASCII(object text)
    int PyUnicode_KIND(object text)
    const void *PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, const void *data, Py_ssize_t index) noexcept

#: ``model.HASH_MASK``: 63 bits, so a fingerprint fits SQLite INTEGER and JSON exactly.
cdef uint64_t MASK = (<uint64_t>1 << 63) - 1

#: The words ``model._MONTHS`` folds: a month name or abbreviation, alone as a word.
cdef const char *MONTHS[24]
MONTHS[:] = [b"jan", b"january", b"feb", b"february", b"mar", b"march", b"apr", b"april",
             b"may", b"jun", b"june", b"jul", b"july", b"aug", b"august", b"sep", b"sept",
             b"september", b"oct", b"october", b"nov", b"november", b"dec", b"december"]


#: Per first letter of ``MONTHS`` (its place after "a"), the second letters that follow it
#: there, one bit each from "a": a word is compared with the names only past both (the
#: first letter alone let through a word in six, each compared with all 24 names).
cdef unsigned int SECONDS[26]
SECONDS[:] = [0] * 26
for _name in (b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct",
              b"nov", b"dec"):
    SECONDS[_name[0] - ord("a")] |= 1u << (_name[1] - ord("a"))


cdef inline bint is_word(Py_UCS4 ch) noexcept:
    if ch < 128:  # most characters: no table look-up
        return (u'a' <= ch <= u'z') or (u'0' <= ch <= u'9') or (u'A' <= ch <= u'Z') or ch == u'_'
    return Py_UNICODE_ISALNUM(ch)


cdef bint is_month(Py_UCS4 *word, Py_ssize_t n) noexcept:
    """Whether the word is one of ``MONTHS``."""
    cdef Py_ssize_t m, k
    cdef const char *name
    cdef unsigned int first = <unsigned int>word[0] - 97  # its letter's place after "a"
    cdef unsigned int second
    if n < 3 or n > 9 or first >= 26:
        return False
    second = <unsigned int>word[1] - 97
    if second >= 26 or not (SECONDS[first] >> second) & 1:
        return False  # most words: no month name starts so
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


cdef inline bint is_decimal(Py_UCS4 ch) noexcept:
    if ch < 128:  # ``Py_UNICODE_ISDECIMAL`` is a function call per character
        return u'0' <= ch <= u'9'
    return Py_UNICODE_ISDECIMAL(ch)


cdef inline bint has_url(Py_UCS4 *s, Py_ssize_t n) noexcept:
    """``"http" in s or "www." in s``: where the reference's URL pattern can match."""
    cdef Py_ssize_t i
    for i in range(n - 3):
        if (s[i] == u'h' and s[i + 1] == u't' and s[i + 2] == u't' and s[i + 3] == u'p') or (
                s[i] == u'w' and s[i + 1] == u'w' and s[i + 2] == u'w' and s[i + 3] == u'.'):
            return True
    return False


cdef Py_ssize_t fold(Py_UCS4 *s, Py_ssize_t n, Py_UCS4 *out) noexcept:
    """Write the normalised lowered text ``s`` (``n`` characters, changed in place) to
    ``out`` (room for ``3 * n + 8``); its length."""
    cdef Py_ssize_t i = 0, j, k, o = 0, end
    cdef Py_UCS4 ch
    cdef bint pending = False  # a run of spaces since the last character written
    if has_url(s, n):  # URLs first, as the reference: "<url>" then reads as words
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
        # The word is copied as it is read, each digit run as one 0 (digits are word
        # characters: a run is inside one word), and written over if it is a month name.
        j, k = i, o
        while j < n:
            ch = s[j]
            if is_decimal(ch):
                out[o] = u'0'
                o += 1
                j += 1
                while j < n and is_decimal(s[j]):
                    j += 1
            elif is_word(ch):
                out[o] = ch
                o += 1
                j += 1
            else:
                break
        if is_month(s + i, j - i):
            o = put(out, k, "<month>")
        i = j
    return o


#: Texts up to this many characters are normalised in buffers on the stack (most blocks'
#: texts are shorter); a longer one gets them allocated. Three allocations per text were a
#: fifth of what a fingerprint cost.
DEF STACK = 256


cdef struct Room:
    Py_UCS4 *low  # the lowered text (``fold`` changes it in place)
    Py_UCS4 *out  # the normalised text: ``n`` characters once ``normalised`` ran
    Py_ssize_t n


cdef inline Py_UCS4 lower(Py_UCS4 ch) noexcept:
    """``str.lower`` of one character but İ (two characters) and Σ (by its context)."""
    if ch < 128:
        return <Py_UCS4>(<unsigned int>ch + 32) if u"A" <= ch <= u"Z" else ch
    return Py_UNICODE_TOLOWER(ch)


cdef bint lowers_by_context(int kind, const void *data, Py_ssize_t n) noexcept:
    """Whether the text has a character ``lower`` does not lower as ``str.lower`` does:
    İ (U+0130), whose lower case is two characters, or Σ (U+03A3), σ or ς by what follows.
    Every other character's lower case is its one-character mapping (a test holds it to
    ``str.lower`` for every code point)."""
    cdef Py_ssize_t i
    cdef Py_UCS4 ch
    if kind == PyUnicode_1BYTE_KIND:  # both are past U+00FF
        return False
    for i in range(n):
        ch = PyUnicode_READ(kind, data, i)
        if ch == 0x130 or ch == 0x3A3:
            return True
    return False


cdef int normalised(str text, Room *room, Py_UCS4 *low_stack, Py_UCS4 *out_stack) except -1:
    """Normalise ``text`` into ``room`` (``room.out``, ``room.n``), in the buffers on the
    stack given (room for ``STACK + 1`` and ``3 * STACK + 8`` characters) when it fits,
    else in allocated ones (``release`` frees them). The text is lowered here a character
    at a time (``lower``), one with İ or Σ by ``str.lower`` (``lowers_by_context``): a
    copy of every text that was not ASCII, lowered by ``str.lower``, was a fifth of what
    fingerprinting cost."""
    cdef Py_ssize_t n = len(text), i = 0
    cdef Py_UCS4 ch
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef const Py_UCS1 *latin1 = <const Py_UCS1 *>data
    cdef str low = None
    if not PyUnicode_IS_ASCII(text) and lowers_by_context(kind, data, n):
        low = text.lower()
        n = max(n, len(low))
    room.low, room.out = low_stack, out_stack
    if n > STACK:
        room.low = <Py_UCS4 *>PyMem_Malloc((n + 1) * sizeof(Py_UCS4))
        room.out = <Py_UCS4 *>PyMem_Malloc((3 * n + 8) * sizeof(Py_UCS4))
        if room.low == NULL or room.out == NULL:
            release(room, low_stack, out_stack)
            raise MemoryError()
    if low is None:
        if kind == PyUnicode_1BYTE_KIND:
            for i in range(n):
                room.low[i] = lower(latin1[i])
        else:
            for i in range(n):
                room.low[i] = lower(PyUnicode_READ(kind, data, i))
        i = n
    else:
        for ch in low:
            room.low[i] = ch
            i += 1
    room.n = fold(room.low, i, room.out)
    return 0


cdef void release(Room *room, Py_UCS4 *low_stack, Py_UCS4 *out_stack) noexcept:
    """Free the buffers ``normalised`` allocated (none when the text fitted on the stack)."""
    if room.low != low_stack:
        PyMem_Free(room.low)
    if room.out != out_stack:
        PyMem_Free(room.out)
    room.low, room.out = low_stack, out_stack


cpdef str normalise(str text):
    """``model.python_normalise``: the text as fingerprints see it."""
    cdef Py_UCS4 low[STACK + 1]
    cdef Py_UCS4 out[3 * STACK + 8]
    cdef Room room
    normalised(text, &room, low, out)
    try:
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, room.out, room.n)
    finally:
        release(&room, low, out)


cpdef fingerprint(str text):
    """``model.python_fingerprint``: blake2b of the normalised text's UTF-8, 63 bits."""
    cdef Py_UCS4 low[STACK + 1]
    cdef Py_UCS4 out[3 * STACK + 8]
    cdef unsigned char utf8_stack[4 * (3 * STACK + 8)]
    cdef unsigned char *utf8 = utf8_stack
    cdef Room room
    cdef Py_ssize_t i, b = 0
    cdef uint64_t h
    normalised(text, &room, low, out)
    try:
        if room.n > 3 * STACK + 8:
            utf8 = <unsigned char *>PyMem_Malloc(4 * room.n + 1)
            if utf8 == NULL:
                raise MemoryError()
        for i in range(room.n):  # surrogates too, as "surrogatepass" writes them
            b += put_utf8(room.out[i], utf8 + b)
        h = blake2b_64(utf8, b)
    finally:
        release(&room, low, out)
        if utf8 != utf8_stack:
            PyMem_Free(utf8)
    return h & MASK


cpdef hash_text(str text):
    """``model.hash_text``: blake2b of the text's UTF-8 (surrogates passed), 63 bits, without
    ``hashlib``'s object and digest: ``_pagekeys`` hashes the paths of a page's
    structural keys so, where ``model.hash_text`` was a Python call per path."""
    cdef bytes raw = text.encode("utf-8", "surrogatepass")
    return blake2b_64(<const uint8_t *><const char *>raw, len(raw)) & MASK


cdef inline bint in_name(Py_UCS4 ch) noexcept:
    """``[\\w'-]``: a character of a word of ``places._NAMES``."""
    return is_word(ch) or ch == u"'" or ch == u"-"


cpdef bint names_someone(str text) noexcept:
    """``places.python_names_someone``: whether ``places._NAMES`` finds a name, in one pass.

    ``_NAMES`` (``(\\b[a-z][\\w'-]*\\s+)[A-Z]...``) matches where a lower-case
    ASCII letter starts a word, its run of ``[\\w'-]`` ends at white space, and the
    white space ends at an upper-case ASCII letter. Each run is maximal (white space is
    not in ``[\\w'-]``, nor is a capital white space), so there is nothing to
    backtrack; and a start inside a run ends where the run does, so the scan goes on
    past it. ``\\b``, ``\\w`` and ``\\s`` are the ``re`` module's for ``str``
    (``is_word``, ``Py_UNICODE_ISSPACE``).
    """
    cdef Py_ssize_t n = len(text), i = 0, j
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef Py_UCS4 ch
    while i < n:
        ch = PyUnicode_READ(kind, data, i)
        if not (u"a" <= ch <= u"z") or (i > 0 and is_word(PyUnicode_READ(kind, data, i - 1))):
            i += 1
            continue
        j = i + 1
        while j < n and in_name(PyUnicode_READ(kind, data, j)):
            j += 1
        if j < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, j)):
            while j < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, j)):
                j += 1
            if j < n and u"A" <= PyUnicode_READ(kind, data, j) <= u"Z":
                return True
        i = j
    return False


cdef inline Py_ssize_t name_run(int kind, const void *data, Py_ssize_t i, Py_ssize_t n) noexcept:
    """End of the run of ``[\\w'-]`` starting at ``i``."""
    while i < n and in_name(PyUnicode_READ(kind, data, i)):
        i += 1
    return i


cdef inline Py_ssize_t space_run(int kind, const void *data, Py_ssize_t i, Py_ssize_t n) noexcept:
    """End of the run of white space starting at ``i``."""
    while i < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
        i += 1
    return i


cpdef str fold_names(str text):
    """``places.python_fold_names``: ``places._NAMES.sub(r"\\1<name>", text)``, in one scan.

    The matches ``names_someone`` finds (the first one as it does), each with
    its capitalised words replaced by ``<name>``: after the first, every
    ``\\s+[A-Z][\\w'-]*`` that follows is part of it (each run maximal, as there).
    The regular expression's replacement calls Python per match (its template
    names a group), and it ran on every text a site learned a structural key of.
    """
    cdef Py_ssize_t n = len(text), i = 0, j, k, m, p, last = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef Py_UCS4 ch
    cdef list pieces = None
    while i < n:
        ch = PyUnicode_READ(kind, data, i)
        if not (u"a" <= ch <= u"z") or (i > 0 and is_word(PyUnicode_READ(kind, data, i - 1))):
            i += 1
            continue
        j = name_run(kind, data, i + 1, n)
        k = space_run(kind, data, j, n)
        if k == j or k == n or not (u"A" <= PyUnicode_READ(kind, data, k) <= u"Z"):
            i = j
            continue
        m = name_run(kind, data, k + 1, n)
        while True:  # more capitalised words after white space
            p = space_run(kind, data, m, n)
            if p == m or p == n or not (u"A" <= PyUnicode_READ(kind, data, p) <= u"Z"):
                break
            m = name_run(kind, data, p + 1, n)
        if pieces is None:
            pieces = []
        pieces.append(text[last:k])
        pieces.append("<name>")
        last = i = m
    if pieces is None:
        return text
    pieces.append(text[last:])
    return "".join(pieces)
