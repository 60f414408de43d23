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

cdef extern from "Python.h":
    bint Py_UNICODE_ISUPPER(Py_UCS4 ch)
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)

#: The columns ``char_columns`` returns, in order.
COLUMNS = ("punct_end", "capital_start", "digits", "head_chars", "cjk", "markup_text",
           "title_share", "title_cover")


cdef inline bint _word(Py_UCS4 c) noexcept:
    return c == 95 or Py_UNICODE_ISALNUM(c)  # "_" or alphanumeric: re's \w


def char_columns(list texts, list low, const double[::1] words, double title_max_words,
                 set title_tokens, Py_ssize_t prefix, str end_punct, tuple unspaced_ranges):
    """(blocks x ``COLUMNS``) float64: see ``text.python_char_columns``."""
    cdef Py_ssize_t n = len(texts), i, k, m, j, start
    cdef Py_ssize_t n_ranges = len(unspaced_ranges)
    cdef long lo0 = 0, hi0 = -1, lo1 = 0, hi1 = -1, lo2 = 0, hi2 = -1
    cdef long digits, cjk
    cdef Py_UCS4 c
    cdef str t, lt
    cdef set btoks
    cdef Py_ssize_t common, n_title = len(title_tokens)
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
        m = len(t)
        if m:
            c = t[m - 1]
            o[i, 0] = 1.0 if c in end_punct else 0.0
            o[i, 1] = 1.0 if Py_UNICODE_ISUPPER(t[0]) else 0.0
        digits = cjk = 0
        k = min(m, prefix)
        for j in range(k):
            c = t[j]
            if 48 <= c <= 57:
                digits += 1
            if (lo0 <= c <= hi0) or (lo1 <= c <= hi1) or (lo2 <= c <= hi2):
                cjk += 1
        o[i, 2] = digits
        o[i, 3] = k
        o[i, 4] = 1.0 if cjk > 0 else 0.0
        if k >= 1 and t[0] == "<":
            o[i, 5] = 1.0
        else:
            for j in range(k - 1):
                if t[j] == "<" and t[j + 1] == "/":
                    o[i, 5] = 1.0
                    break
        if n_title == 0 or words[i] > title_max_words:
            continue
        lt = low[i]
        # A block none of whose title words even occurs in it shares none with the title.
        for tok in title_tokens:
            if tok in lt:
                break
        else:
            continue
        btoks = set()
        m = len(lt)
        j = 0
        while j < m:
            if _word(lt[j]):
                start = j
                while j < m and _word(lt[j]):
                    j += 1
                btoks.add(lt[start:j])
            else:
                j += 1
        common = len(btoks & title_tokens)
        o[i, 6] = common / <double>len(btoks) if btoks else 0.0
        o[i, 7] = common / <double>n_title
    return out
