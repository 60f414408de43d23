# An ASCII text's fingerprint bytes in one pass, for ``_fingerprint.fingerprint``.
#
# Most blocks' texts are ASCII. The general path copies such a text into a buffer of
# code points to lower it, scans it for a URL, folds it into a second buffer of code
# points, and writes that as UTF-8: four passes, with 4-byte characters in between.
# Here one pass reads the text's bytes and writes the normalised text's bytes (ASCII
# stays ASCII: its UTF-8 is itself), with the same rules as ``fold``: A-Z lowered,
# white space (``Py_UNICODE_ISSPACE``: tab to carriage return, 0x1C-0x1F, space)
# collapsed and trimmed, a month name alone as a word (``\w``: a-z, 0-9, ``_``) folded to
# ``<month>``, a digit run to ``0``. A text with a URL (``http`` or ``www.`` in any
# case) takes the general path, which folds URLs first.

cdef unsigned char ASCII_SPACE[128]
cdef unsigned char ASCII_WORD[128]
for _c in range(128):
    ASCII_SPACE[_c] = (9 <= _c <= 13) or (0x1C <= _c <= 0x20)
    ASCII_WORD[_c] = chr(_c).isalnum() or _c == ord("_")


cdef inline unsigned char lower_ascii(unsigned char ch) noexcept nogil:
    return ch + 32 if 65 <= ch <= 90 else ch


cdef bint has_url_ascii(const unsigned char *s, Py_ssize_t n) noexcept nogil:
    """``has_url`` of the lowered text: "http" or "www." in it, A-Z matching a-z."""
    cdef Py_ssize_t i
    for i in range(n - 3):
        if ((s[i] | 32) == 104 and (s[i + 1] | 32) == 116 and (s[i + 2] | 32) == 116
                and (s[i + 3] | 32) == 112) or ((s[i] | 32) == 119 and (s[i + 1] | 32) == 119
                                                and (s[i + 2] | 32) == 119 and s[i + 3] == 46):
            return True  # (c | 32) is h, t, p or w only for that letter in either case
    return False


cdef bint is_month_ascii(const unsigned char *word, Py_ssize_t n) noexcept nogil:
    """``is_month`` of a word of the text, lowered as it is compared."""
    cdef Py_ssize_t m, k
    cdef const char *name
    cdef unsigned int first = <unsigned int>lower_ascii(word[0]) - 97
    if n < 3 or n > 9 or first >= 26 or not (FIRSTS >> first) & 1:
        return False
    for m in range(24):
        name = MONTHS[m]
        k = 0
        while k < n and name[k] != 0 and <unsigned char>name[k] == lower_ascii(word[k]):
            k += 1
        if k == n and name[k] == 0:
            return True
    return False


cdef Py_ssize_t fold_ascii(const unsigned char *s, Py_ssize_t n, unsigned char *out) noexcept nogil:
    """Write the normalised text of the ASCII text ``s`` (``n`` bytes, no URL) to ``out``
    (room for ``2 * n + 8``: "<month>" is at most 4 more than the word it replaces, and
    such a word is followed by a space or ends the text); its length."""
    cdef Py_ssize_t i = 0, j, k, o = 0
    cdef unsigned char ch
    cdef bint pending = False
    while i < n:
        ch = s[i]
        if ASCII_SPACE[ch]:
            pending = o > 0
            i += 1
            continue
        if pending:
            out[o] = 32
            o += 1
            pending = False
        if not ASCII_WORD[ch]:
            out[o] = ch
            o += 1
            i += 1
            continue
        j = i + 1
        while j < n and ASCII_WORD[s[j]]:
            j += 1
        if is_month_ascii(s + i, j - i):
            for k in range(7):
                out[o + k] = b"<month>"[k]
            o += 7
        else:
            k = i
            while k < j:
                if 48 <= s[k] <= 57:  # a digit run: one "0"
                    out[o] = 48
                    o += 1
                    k += 1
                    while k < j and 48 <= s[k] <= 57:
                        k += 1
                else:
                    out[o] = lower_ascii(s[k])
                    o += 1
                    k += 1
        i = j
    return o
