# cython: language_level=3, boundscheck=False, wraparound=False
"""``language.stopword_counts`` over all the blocks of a page, as one C loop.

Called per block, the reference costs a Python call, a ``split`` into a
list, a ``map`` over it and a second pass for the words with punctuation:
a fifth of making a Page. Here each lower-cased text is read once: words
are cut at ``Py_UNICODE_ISSPACE`` (``str.split``'s rule), and whether a word
is alphanumeric (``str.isalnum``: ``Py_UNICODE_ISALNUM`` throughout) is
known from the same pass. For a word with punctuation that is no stop word
as it stands, the reference's ``\\w+`` search (a regex call per word: a
thousand a page, most of this loop's time) is its first run of word
characters, cut out here by the rule ``re`` applies (``Py_UNICODE_ISALNUM``
or ``_``). The counts are the reference's, which a test holds on every
bundled page.
"""

from scrapy_declutter._chars cimport alnum, word

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    int PyUnicode_KIND(object text)
    const void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index) nogil


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
    for text in texts:
        low = text.lower()
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
            while i < m:
                c = PyUnicode_READ(kind, data, i)
                if Py_UNICODE_ISSPACE(c):
                    break
                if all_alnum and not alnum(c):
                    all_alnum = False
                i += 1
            if low[start:i] in stops:
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
                if k > j and low[j:k] in stops:
                    n += 1
        out.append((bare, n))
    return out
