# cython: language_level=3, boundscheck=False, wraparound=False
"""``language.stopword_counts`` over all the blocks of a page, as one C loop.

Called per block, the reference costs a Python call, a ``split`` into a
list, a ``map`` over it and a second pass for the words with punctuation:
a fifth of making a Page. Here each lower-cased text is read once (an ASCII
text as it is, its capitals folded where words are looked up: no copy): words
are cut at ``Py_UNICODE_ISSPACE`` (``str.split``'s rule), and whether a word
is alphanumeric (``str.isalnum``: ``Py_UNICODE_ISALNUM`` throughout) is
known from the same pass. For a word with punctuation that is no stop word
as it stands, the reference's ``\\w+`` search (a regex call per word: a
thousand a page, most of this loop's time) is its first run of word
characters, cut out here by the rule ``re`` applies (``Py_UNICODE_ISALNUM``
or ``_``). The counts are the reference's, which a test holds on every
bundled page.

A word is looked up where it lies in the lower-cased text, not cut out as a
string and hashed by Python (an allocation, SipHash and a free for each of
the page's thousands of words): ``_StopTable`` holds the stop list's words
as code points in an open-addressing table hashed by FNV-1a, made once per
stop list, and a hit compares the code points one by one, as ``==`` of two
strings does.

``set_stopword_fields`` writes the counts into the blocks at their slots
(``_slots``), where a Python loop of three ``setattr`` and a division per
block cost a third as much as the counting.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc

from scrapy_declutter._chars cimport alnum, ascii_alnum, fnv, word
from scrapy_declutter._slots cimport field_of, slot_offset, write_slot

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    bint PyUnicode_IS_ASCII(object text)
    int PyUnicode_KIND(object text)
    const void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index) nogil


cdef inline unsigned int _fold(unsigned int c) noexcept nogil:
    """An ASCII code point lower-cased (``A``-``Z`` to ``a``-``z``)."""
    return c + 32 if c - 65 < 26 else c


cdef class _StopTable:
    """A stop list as a table of code points: ``has`` is ``text[i:j] in stops``."""

    cdef object stops  # the frozenset, kept alive: the table is found by its id
    cdef Py_UCS4* chars
    cdef Py_ssize_t* start  # a slot's word in ``chars``; -1: empty slot
    cdef Py_ssize_t* length
    cdef uint64_t* hashes
    cdef Py_ssize_t mask

    def __cinit__(self, frozenset stops):
        cdef Py_ssize_t size = 16, total = 0, at = 0, slot, k, m
        cdef uint64_t h
        cdef str w
        self.stops = stops
        words = list(stops)
        if not all(type(w) is str for w in words):
            raise TypeError("a stop list holds plain strings")
        while size < 2 * len(words) + 2:
            size *= 2
        self.mask = size - 1
        for w in words:
            total += len(w)
        self.chars = <Py_UCS4*>malloc((total + 1) * sizeof(Py_UCS4))
        self.start = <Py_ssize_t*>malloc(size * sizeof(Py_ssize_t))
        self.length = <Py_ssize_t*>malloc(size * sizeof(Py_ssize_t))
        self.hashes = <uint64_t*>malloc(size * sizeof(uint64_t))
        if not (self.chars and self.start and self.length and self.hashes):
            raise MemoryError()
        for slot in range(size):
            self.start[slot] = -1
        for w in words:
            m = len(w)
            h = fnv(PyUnicode_KIND(w), PyUnicode_DATA(w), 0, m)
            slot = <Py_ssize_t>(h & <uint64_t>self.mask)
            while self.start[slot] >= 0:
                slot = (slot + 1) & self.mask
            self.start[slot], self.length[slot], self.hashes[slot] = at, m, h
            for k in range(m):
                self.chars[at + k] = w[k]
            at += m

    def __dealloc__(self):
        free(self.chars)
        free(self.start)
        free(self.length)
        free(self.hashes)

    cdef bint has(self, int kind, const void* data, Py_ssize_t i, Py_ssize_t j) noexcept:
        cdef uint64_t h = fnv(kind, data, i, j)
        cdef Py_ssize_t slot = <Py_ssize_t>(h & <uint64_t>self.mask), k, m = j - i
        cdef const Py_UCS4* w
        while self.start[slot] >= 0:
            if self.hashes[slot] == h and self.length[slot] == m:
                w = self.chars + self.start[slot]
                k = 0
                while k < m and w[k] == PyUnicode_READ(kind, data, i + k):
                    k += 1
                if k == m:
                    return True
            slot = (slot + 1) & self.mask
        return False

    cdef bint has_folded(self, const unsigned char* s, Py_ssize_t i, Py_ssize_t j) noexcept:
        """``has`` of ``text[i:j].lower()`` for an ASCII ``text`` (its bytes ``s``): the
        capitals folded as they are read, as ``str.lower`` folds them in ASCII text,
        so the text need not be lower-cased into a copy first."""
        cdef uint64_t h = 14695981039346656037ULL  # ``_chars.fnv``'s, over the folded bytes
        cdef Py_ssize_t slot, k, m = j - i
        cdef const Py_UCS4* w
        for k in range(i, j):
            h = (h ^ <uint64_t>_fold(s[k])) * 1099511628211ULL
        slot = <Py_ssize_t>(h & <uint64_t>self.mask)
        while self.start[slot] >= 0:
            if self.hashes[slot] == h and self.length[slot] == m:
                w = self.chars + self.start[slot]
                k = 0
                while k < m and w[k] == _fold(s[i + k]):
                    k += 1
                if k == m:
                    return True
            slot = (slot + 1) & self.mask
        return False


#: The table of each stop list met so far, by the frozenset's id (the table keeps it alive).
_tables = {}


cdef _StopTable _table(frozenset stops):
    """The table of ``stops``; None when it holds anything but plain strings (whose
    equality the table cannot stand in for): then words are looked up in ``stops``."""
    cdef _StopTable table = _tables.get(id(stops))
    if table is None or table.stops is not stops:
        if len(_tables) > 64:  # stop lists are few; a caller making new sets must not grow this
            _tables.clear()
        try:
            table = _StopTable(stops)
        except TypeError:
            return None
        _tables[id(stops)] = table
    return table


def stopword_counts(list texts, frozenset stops):
    """[(bare, all)] per text: see ``language.stopword_counts``."""
    cdef list out = []
    cdef str low
    cdef Py_ssize_t i, j, k, m, start
    cdef long bare, n
    cdef bint all_alnum
    cdef Py_UCS4 c
    cdef int kind
    cdef const void* data
    cdef _StopTable table = _table(stops)
    cdef bint folded
    for text in texts:
        # ASCII text is read as it is and its capitals folded where words are looked up
        # (``has_folded``): spaces, letters and digits are the same in either case.
        folded = type(text) is str and PyUnicode_IS_ASCII(text) and table is not None
        low = text if folded else text.lower()
        m, kind, data = len(low), PyUnicode_KIND(low), PyUnicode_DATA(low)
        bare = n = 0
        i = 0
        while i < m:
            while i < m and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
                i += 1
            if i == m:
                break
            start = i
            all_alnum = True
            if kind == 1:  # the word's ASCII letters and digits first, one byte each
                while i < m and ascii_alnum((<const unsigned char*>data)[i]):
                    i += 1
            while i < m:
                c = PyUnicode_READ(kind, data, i)
                if Py_UNICODE_ISSPACE(c):
                    break
                if all_alnum and not alnum(c):
                    all_alnum = False
                i += 1
            if (table.has_folded(<const unsigned char*>data, start, i) if folded
                    else table.has(kind, data, start, i) if table is not None
                    else low[start:i] in stops):
                bare += 1
                n += 1
            elif not all_alnum:
                # The reference's ``_WORD.search``: the first run of \w characters.
                j = start
                while j < i and not word(PyUnicode_READ(kind, data, j)):
                    j += 1
                k = j
                while k < i and word(PyUnicode_READ(kind, data, k)):
                    k += 1
                if k > j and (table.has_folded(<const unsigned char*>data, j, k) if folded
                              else table.has(kind, data, j, k) if table is not None
                              else low[j:k] in stops):
                    n += 1
        out.append((bare, n))
    return out


def set_stopword_fields(list blocks, list counts, object plain):
    """``language.set_stopword_fields`` in one C loop: each block's ``bare_stopwords``,
    ``stopwords`` and ``stopword_density`` written where a ``plain`` class's (``Block``'s)
    slots lie, its ``words`` read there; a block of another class, or a class
    without plain slots, is set with ``setattr``."""
    cdef Py_ssize_t n = len(blocks), i
    cdef Py_ssize_t at_bare = slot_offset(plain, "bare_stopwords")
    cdef Py_ssize_t at_all = slot_offset(plain, "stopwords")
    cdef Py_ssize_t at_density = slot_offset(plain, "stopword_density")
    cdef Py_ssize_t at_words = slot_offset(plain, "words")
    cdef bint by_slot = at_bare >= 0 and at_all >= 0 and at_density >= 0 and at_words >= 0
    if len(counts) != n:
        raise ValueError("one count per block")
    for i in range(n):
        b = blocks[i]
        bare, found = counts[i]
        if not (by_slot and type(b) is plain):
            b.bare_stopwords, b.stopwords = bare, found
            b.stopword_density = found / b.words if b.words else 0.0
            continue
        words = field_of(b, at_words, "words")
        density = found / words if words else 0.0
        write_slot(b, at_bare, bare)
        write_slot(b, at_all, found)
        write_slot(b, at_density, density)
