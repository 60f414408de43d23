# cython: language_level=3, boundscheck=False, wraparound=False
"""The character-level text columns of ``text.text_columns``, one C loop over the blocks.

``text.python_char_columns`` is the reference (it runs where this module
was not built, and a test holds the two equal on every bundled page). There
each column is a comprehension or a NumPy pass over the texts' code points,
and the title overlap tokenises each short block with a regular expression;
here one loop reads each text's code points once. The rules are Python's:
``str.isupper`` of one character is ``Py_UNICODE_ISUPPER``, and ``\\w`` of
``re`` is ``Py_UNICODE_ISALNUM`` or ``_``, so every value is the reference's.
"""

import numpy as np
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc

from scrapy_declutter._chars cimport alnum, ascii_alnum, fnv, word
from scrapy_declutter._slots cimport field_of, slot_offset

cdef extern from "Python.h":
    bint Py_UNICODE_ISUPPER(Py_UCS4 ch)
    bint Py_UNICODE_ISDECIMAL(Py_UCS4 ch)
    int PyUnicode_KIND(object text)
    const void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index) nogil

#: The columns ``char_columns`` returns, in order.
COLUMNS = ("punct_end", "capital_start", "digits", "head_chars", "cjk", "markup_text",
           "title_share", "title_cover")


cdef class _Tokens:
    """A set of words held as spans of strings' code points, hashed by FNV-1a: ``add``
    is ``set.add`` of ``text[i:j]`` and says whether it was new, ``has`` is ``in``. The
    words are compared code point by code point, as ``==`` of two strings does, and no
    string is made for them. The texts the spans lie in must outlive the table's use."""

    cdef Py_ssize_t size, mask, count
    cdef Py_ssize_t* used  # the slots filled, for ``clear``
    cdef uint64_t* hashes
    cdef Py_ssize_t* start  # -1: an empty slot
    cdef Py_ssize_t* length
    cdef int* kinds
    cdef const void** datas

    def __cinit__(self, Py_ssize_t expected):
        cdef Py_ssize_t k
        self.size = 16
        while self.size < 2 * expected + 2:
            self.size *= 2
        self.mask = self.size - 1
        self.count = 0
        self.hashes = <uint64_t*>malloc(self.size * sizeof(uint64_t))
        self.start = <Py_ssize_t*>malloc(self.size * sizeof(Py_ssize_t))
        self.length = <Py_ssize_t*>malloc(self.size * sizeof(Py_ssize_t))
        self.kinds = <int*>malloc(self.size * sizeof(int))
        self.datas = <const void**>malloc(self.size * sizeof(void*))
        self.used = <Py_ssize_t*>malloc(self.size * sizeof(Py_ssize_t))
        if not (self.hashes and self.start and self.length and self.kinds and self.datas
                and self.used):
            raise MemoryError()
        for k in range(self.size):
            self.start[k] = -1

    def __dealloc__(self):
        free(self.hashes)
        free(self.start)
        free(self.length)
        free(self.kinds)
        free(self.datas)
        free(self.used)

    cdef void clear(self) noexcept:
        """Empty the table (the slots filled, not every slot)."""
        cdef Py_ssize_t k
        for k in range(self.count):
            self.start[self.used[k]] = -1
        self.count = 0

    cdef Py_ssize_t _slot(self, uint64_t h, int kind, const void* data, Py_ssize_t i,
                          Py_ssize_t j) noexcept:
        """The slot holding ``text[i:j]``, else the empty slot where it would go."""
        cdef Py_ssize_t slot = <Py_ssize_t>(h & <uint64_t>self.mask), k, m = j - i
        while self.start[slot] >= 0:
            if self.hashes[slot] == h and self.length[slot] == m:
                k = 0
                while k < m and (PyUnicode_READ(self.kinds[slot], self.datas[slot], self.start[slot] + k)
                                 == PyUnicode_READ(kind, data, i + k)):
                    k += 1
                if k == m:
                    return slot
            slot = (slot + 1) & self.mask
        return slot

    cdef bint has(self, uint64_t h, int kind, const void* data, Py_ssize_t i,
                  Py_ssize_t j) noexcept:
        return self.start[self._slot(h, kind, data, i, j)] >= 0

    cdef bint add(self, uint64_t h, int kind, const void* data, Py_ssize_t i,
                  Py_ssize_t j) noexcept:
        """Put ``text[i:j]`` in (the table must have room: at most ``expected`` words);
        whether it was not there yet."""
        cdef Py_ssize_t slot = self._slot(h, kind, data, i, j)
        if self.start[slot] >= 0:
            return False
        self.hashes[slot], self.start[slot], self.length[slot] = h, i, j - i
        self.kinds[slot], self.datas[slot] = kind, data
        self.used[self.count] = slot
        self.count += 1
        return True


def char_columns(list texts, list low, const double[::1] words, double title_max_words,
                 set title_tokens, Py_ssize_t prefix, str end_punct, tuple unspaced_ranges):
    """(blocks x ``COLUMNS``) float64: see ``text.python_char_columns``."""
    cdef Py_ssize_t n = len(texts), i, k, m, j, start
    cdef Py_ssize_t n_ranges = len(unspaced_ranges)
    cdef long lo0 = 0, hi0 = -1, lo1 = 0, hi1 = -1, lo2 = 0, hi2 = -1
    cdef long digits, cjk
    cdef Py_UCS4 c
    cdef str t, lt, tok
    cdef Py_ssize_t common, n_title = len(title_tokens), block_room = 0
    cdef int kind
    cdef const void* data
    cdef uint64_t h
    cdef _Tokens block_words = None
    # The title's words as spans of the tokens themselves (kept alive by ``tokens``).
    cdef list tokens = [tok for tok in title_tokens]
    cdef _Tokens title_words = _Tokens(len(tokens))
    for tok in tokens:
        title_words.add(fnv(PyUnicode_KIND(tok), PyUnicode_DATA(tok), 0, len(tok)),
                        PyUnicode_KIND(tok), PyUnicode_DATA(tok), 0, len(tok))
    out = np.zeros((n, len(COLUMNS)), dtype=np.float64)
    cdef double[:, ::1] o = out
    if n_ranges > 3:
        raise ValueError("at most three unspaced ranges")
    if n_ranges > 0:
        lo0, hi0 = unspaced_ranges[0]
    if n_ranges > 1:
        lo1, hi1 = unspaced_ranges[1]
    if n_ranges > 2:
        lo2, hi2 = unspaced_ranges[2]
    for i in range(n):
        t = texts[i]
        m, kind, data = len(t), PyUnicode_KIND(t), PyUnicode_DATA(t)
        if m:
            c = PyUnicode_READ(kind, data, m - 1)
            o[i, 0] = 1.0 if c in end_punct else 0.0
            o[i, 1] = 1.0 if Py_UNICODE_ISUPPER(PyUnicode_READ(kind, data, 0)) else 0.0
        digits = cjk = 0
        k = min(m, prefix)
        for j in range(k):
            c = PyUnicode_READ(kind, data, j)
            if 48 <= c <= 57:
                digits += 1
            if (lo0 <= c <= hi0) or (lo1 <= c <= hi1) or (lo2 <= c <= hi2):
                cjk += 1
        o[i, 2] = digits
        o[i, 3] = k
        o[i, 4] = 1.0 if cjk > 0 else 0.0
        if k >= 1 and PyUnicode_READ(kind, data, 0) == 60:  # "<"
            o[i, 5] = 1.0
        else:
            for j in range(k - 1):
                if (PyUnicode_READ(kind, data, j) == 60
                        and PyUnicode_READ(kind, data, j + 1) == 47):  # "</"
                    o[i, 5] = 1.0
                    break
        if n_title == 0 or words[i] > title_max_words:
            continue
        # The block's distinct \\w+ words (``set(WORD.findall(low))``), and how many of them
        # are title words, counted in tables of spans rather than sets of new strings. A
        # block without a title word gets 0 and 0, as the reference's early exit gives.
        lt = low[i]
        m, kind, data = len(lt), PyUnicode_KIND(lt), PyUnicode_DATA(lt)
        if block_words is None or (m + 1) // 2 > block_room:
            block_room = max((m + 1) // 2, 64)
            block_words = _Tokens(block_room)
        else:
            block_words.clear()
        common = 0
        j = 0
        while j < m:
            if word(PyUnicode_READ(kind, data, j)):
                start = j
                if kind == 1:  # the word's ASCII letters, digits and "_", a byte each
                    while j < m and (ascii_alnum((<const unsigned char*>data)[j]) or (<const unsigned char*>data)[j] == 95):
                        j += 1
                while j < m and word(PyUnicode_READ(kind, data, j)):
                    j += 1
                h = fnv(kind, data, start, j)
                if block_words.add(h, kind, data, start, j) and title_words.has(h, kind, data, start, j):
                    common += 1
            else:
                j += 1
        if common:
            o[i, 6] = common / <double>block_words.count
            o[i, 7] = common / <double>n_title
    return out


cdef extern from *:
    int __builtin_ctzll(unsigned long long x) nogil

DEF MAX_PHRASES = 64
DEF MAX_CHARS = 2048


cdef class Phrases:
    """A few literal phrases found in one pass over a text: at each character only the
    phrases that start with it are compared (a table by first character), where a
    regular expression alternating them tries every branch and ``str.count`` scans the
    text once per phrase. ``found`` is ``re.search`` of their alternation on each text,
    ``counts`` is ``str.count`` of each phrase (occurrences that do not overlap, left
    to right)."""

    cdef Py_ssize_t n
    cdef unsigned long long by_first[256]
    cdef unsigned long long others
    # By second character: the phrases it may be the second character of (those with
    # another below 256 are left out), those longer than one.
    cdef unsigned long long by_second[256]
    cdef unsigned long long wide_second, long_ones
    cdef Py_UCS4 chars[MAX_CHARS]
    cdef Py_ssize_t start[MAX_PHRASES]
    cdef Py_ssize_t length[MAX_PHRASES]

    def __init__(self, phrases):
        cdef Py_ssize_t j, k, at = 0
        cdef str p
        phrases = list(phrases)
        self.n = len(phrases)
        if self.n > MAX_PHRASES or not all(phrases) or sum(map(len, phrases)) > MAX_CHARS:
            raise ValueError(f"from 1 to {MAX_PHRASES} phrases, none empty, {MAX_CHARS} "
                             "characters in all")
        self.others = self.wide_second = self.long_ones = 0
        for j in range(256):
            self.by_first[j] = 0
            self.by_second[j] = 0
        for j in range(self.n):
            p = phrases[j]
            self.start[j], self.length[j] = at, len(p)
            for k in range(len(p)):
                self.chars[at + k] = p[k]
            at += len(p)
            if self.chars[self.start[j]] < 256:
                self.by_first[self.chars[self.start[j]]] |= 1ULL << j
            else:
                self.others |= 1ULL << j
            if len(p) > 1:
                self.long_ones |= 1ULL << j
                if self.chars[self.start[j] + 1] < 256:
                    self.by_second[self.chars[self.start[j] + 1]] |= 1ULL << j
                else:
                    self.wide_second |= 1ULL << j

    cdef inline unsigned long long _starting(self, Py_UCS4 c) noexcept:
        """The phrases (bits) whose first character is ``c``."""
        cdef unsigned long long cand = 0, rest
        cdef int j
        if c < 256:
            return self.by_first[c]
        rest = self.others
        while rest:
            j = __builtin_ctzll(rest)
            rest &= rest - 1
            if self.chars[self.start[j]] == c:
                cand |= 1ULL << j
        return cand

    cdef inline unsigned long long _candidates(self, int kind, const void* data, Py_ssize_t i,
                                              Py_ssize_t size) noexcept:
        """The phrases that may occur at ``i``: those starting with its character, less the
        longer ones whose second character is not the next one (most, where a phrase
        shares its first letter with common words), so few are compared in full."""
        cdef unsigned long long cand = self._starting(PyUnicode_READ(kind, data, i))
        cdef Py_UCS4 c
        if cand & self.long_ones:
            if i + 1 < size:
                c = PyUnicode_READ(kind, data, i + 1)
                cand &= ~self.long_ones | (self.by_second[c] if c < 256 else self.wide_second)
            else:
                cand &= ~self.long_ones
        return cand

    cdef inline bint _at(self, int kind, const void* data, Py_ssize_t i, Py_ssize_t size,
                         int j) noexcept:
        """Whether phrase ``j`` occurs in the text (``kind``, ``data``: ``PyUnicode_READ``'s)
        at ``i`` (its first character does)."""
        cdef Py_ssize_t m = self.length[j], k
        cdef const Py_UCS4* p = self.chars + self.start[j]
        if i + m > size:
            return False
        for k in range(1, m):
            if PyUnicode_READ(kind, data, i + k) != p[k]:
                return False
        return True

    def found(self, list texts, const Py_ssize_t[::1] rows):
        """1.0 for each of ``texts[rows]`` that holds one of the phrases (float64, one per
        text: the rows not asked about are 0)."""
        cdef Py_ssize_t r, i, size
        cdef unsigned long long cand
        cdef int j
        cdef str t
        cdef int kind
        cdef const void* data
        out = np.zeros(len(texts), dtype=np.float64)
        cdef double[::1] o = out
        for r in range(rows.shape[0]):
            t = texts[rows[r]]
            size, kind, data = len(t), PyUnicode_KIND(t), PyUnicode_DATA(t)
            for i in range(size):
                cand = self._candidates(kind, data, i, size)
                while cand:
                    j = __builtin_ctzll(cand)
                    cand &= cand - 1
                    if self._at(kind, data, i, size, j):
                        o[rows[r]] = 1.0
                        break
                if o[rows[r]]:
                    break
        return out

    def counts(self, str text):
        """How many times each phrase occurs in ``text``, as ``text.count(phrase)`` says."""
        cdef Py_ssize_t i, size = len(text)
        cdef unsigned long long cand
        cdef int j, kind = PyUnicode_KIND(text)
        cdef const void* data = PyUnicode_DATA(text)
        cdef Py_ssize_t[MAX_PHRASES] free_from  # where the phrase may next start (no overlaps)
        cdef Py_ssize_t[MAX_PHRASES] found
        for j in range(self.n):
            free_from[j] = found[j] = 0
        for i in range(size):
            cand = self._candidates(kind, data, i, size)
            while cand:
                j = __builtin_ctzll(cand)
                cand &= cand - 1
                if i >= free_from[j] and self._at(kind, data, i, size, j):
                    found[j] += 1
                    free_from[j] = i + self.length[j]
        return [found[j] for j in range(self.n)]


_SHAPE_FIELDS = ("words", "link_words", "link_density", "tag", "text")


def shape(list blocks, frozenset heading_tags, Py_ssize_t short_line, Py_ssize_t prose_words,
          double prose_links, Py_ssize_t tiny_words):
    """``pagetype.python_shape``'s figures in one C loop over the blocks, and the short
    lines holding a decimal digit (the only ones a date can be found in)."""
    cdef Py_ssize_t n = len(blocks), i, k, w, m, top_n = 0
    cdef long long total = 0, link_words = 0, prose = 0, prose_blocks = 0, headings = 0
    cdef long long items = 0, pre = 0, tiny = 0, sentences = 0
    cdef long long[5] top
    cdef Py_UCS4 c
    cdef str text
    cdef list short = [], dated = []
    # Where the fields read lie in the blocks' class (``_slots``; -1: getattr).
    cdef Py_ssize_t[5] at
    cdef object cls = type(blocks[0]) if n else None
    for k, name in enumerate(_SHAPE_FIELDS):
        at[k] = slot_offset(cls, name) if n else -1
    for i in range(n):
        b = blocks[i]
        if type(b) is not cls:
            at[0] = at[1] = at[2] = at[3] = at[4] = -1
        w = field_of(b, at[0], "words")
        total += w
        # The five largest word counts, largest first (``sorted(..., reverse=True)[:5]``).
        k = top_n
        while k > 0 and top[k - 1] < w:
            if k < 5:
                top[k] = top[k - 1]
            k -= 1
        if k < 5:
            top[k] = w
            if top_n < 5:
                top_n += 1
        link_words += <long long>field_of(b, at[1], "link_words")
        if w >= prose_words and <double>field_of(b, at[2], "link_density") < prose_links:
            prose += w
            prose_blocks += 1
        tag = field_of(b, at[3], "tag")
        if tag in heading_tags:
            headings += 1
        elif tag == "li":
            items += 1
        elif tag == "pre":
            pre += w
        if w <= tiny_words:
            tiny += 1
        text = field_of(b, at[4], "text")
        m = len(text)
        if m:
            c = text[m - 1]
            if c == "." or c == "!" or c == "?":
                sentences += 1
        if m <= short_line:
            short.append(text)
            for k in range(m):
                if Py_UNICODE_ISDECIMAL(text[k]):
                    dated.append(text)
                    break
    cdef long long top5 = 0
    for k in range(top_n):
        top5 += top[k]
    return ((total, top[0] if top_n else 0, top5, link_words, prose, prose_blocks, headings,
             items, pre, tiny, sentences), short, dated)
