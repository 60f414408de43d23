# cython: language_level=3, boundscheck=False, wraparound=False
"""``language.stopword_counts`` over all the blocks of a page, as one C loop.

Called per block, the reference costs a Python call, a ``split`` into a
list, a ``map`` over it and a second pass for the words with punctuation:
a fifth of making a Page. Here each lower-cased text is read once: words
are cut at ``Py_UNICODE_ISSPACE`` (``str.split``'s rule), and whether a word
is alphanumeric (``str.isalnum``: ``Py_UNICODE_ISALNUM`` throughout) is
known from the same pass, so only words with punctuation that are not stop
words as they stand go to the reference's regular expression. The counts
are the reference's, which a test holds on every bundled page.
"""

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)


def stopword_counts(list texts, frozenset stops, object word):
    """[(bare, all)] per text: see ``language.stopword_counts``; ``word`` is its ``\\w+``."""
    cdef list out = []
    cdef str low
    cdef Py_ssize_t i, m, start
    cdef long bare, n
    cdef bint alnum
    cdef Py_UCS4 c
    for text in texts:
        low = text.lower()
        m = len(low)
        bare = n = 0
        i = 0
        while i < m:
            while i < m and Py_UNICODE_ISSPACE(low[i]):
                i += 1
            if i == m:
                break
            start = i
            alnum = True
            while i < m:
                c = low[i]
                if Py_UNICODE_ISSPACE(c):
                    break
                if alnum and not Py_UNICODE_ISALNUM(c):
                    alnum = False
                i += 1
            w = low[start:i]
            if w in stops:
                bare += 1
                n += 1
            elif not alnum:
                found = word.search(w)
                if found is not None and found.group() in stops:
                    n += 1
        out.append((bare, n))
    return out
