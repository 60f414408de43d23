# cython: language_level=3
"""Character classes the compiled parts share, by the rules Python's ``str`` and ``re`` use.

A ``.pxd`` of inline functions, compiled into each module that cimports it
(``_language``, ``steps.learned._text``): no module of its own to build.
"""

cdef extern from "Python.h":
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)


cdef inline bint alnum(Py_UCS4 c) noexcept:
    """``str.isalnum`` of one character (``Py_UNICODE_ISALNUM``, which makes four
    look-ups), answered at once for ASCII."""
    if c < 128:
        return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122
    return Py_UNICODE_ISALNUM(c)


cdef inline bint word(Py_UCS4 c) noexcept:
    """Whether ``re``'s ``\\w`` matches the character: "_" or alphanumeric."""
    return c == 95 or alnum(c)
