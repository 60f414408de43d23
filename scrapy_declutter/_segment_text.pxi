# The compiled segmentation walk (UTF-8, Python's whitespace, the text of blocks); included by _segment.pyx.

# ---------------------------------------------------------------------------
# Text: UTF-8 decoding and Python's idea of whitespace (``str.split``/``isspace``).

cdef inline bint _space(unsigned int cp) noexcept nogil:
    if cp < 128:
        return cp == 32 or 9 <= cp <= 13 or 28 <= cp <= 31
    return (cp == 0x85 or cp == 0xA0 or cp == 0x1680 or 0x2000 <= cp <= 0x200A
            or cp == 0x2028 or cp == 0x2029 or cp == 0x202F or cp == 0x205F or cp == 0x3000)


def is_space(unsigned int cp):
    """Whether ``chr(cp)`` is whitespace to the walk (a test holds it to ``str.isspace``)."""
    return _space(cp)


cdef inline Py_ssize_t _next(const unsigned char* s, Py_ssize_t i, Py_ssize_t n,
                             unsigned int* cp) noexcept nogil:
    """Decode the code point at ``s[i]`` as Python's strict decoder does; -1 if it is not UTF-8."""
    cdef unsigned int b = s[i], c1, c2, c3
    if b < 0x80:
        cp[0] = b
        return i + 1
    if b < 0xC2:
        return -1
    if b < 0xE0:
        if i + 1 >= n or (s[i + 1] & 0xC0) != 0x80:
            return -1
        cp[0] = ((b & 0x1F) << 6) | (s[i + 1] & 0x3F)
        return i + 2
    if b < 0xF0:
        if i + 2 >= n:
            return -1
        c1, c2 = s[i + 1], s[i + 2]
        if (c1 & 0xC0) != 0x80 or (c2 & 0xC0) != 0x80:
            return -1
        if (b == 0xE0 and c1 < 0xA0) or (b == 0xED and c1 >= 0xA0):
            return -1
        cp[0] = ((b & 0x0F) << 12) | ((c1 & 0x3F) << 6) | (c2 & 0x3F)
        return i + 3
    if b < 0xF5:
        if i + 3 >= n:
            return -1
        c1, c2, c3 = s[i + 1], s[i + 2], s[i + 3]
        if (c1 & 0xC0) != 0x80 or (c2 & 0xC0) != 0x80 or (c3 & 0xC0) != 0x80:
            return -1
        if (b == 0xF0 and c1 < 0x90) or (b == 0xF4 and c1 >= 0x90):
            return -1
        cp[0] = ((b & 0x07) << 18) | ((c1 & 0x3F) << 12) | ((c2 & 0x3F) << 6) | (c3 & 0x3F)
        return i + 4
    return -1


cdef inline Py_ssize_t _chars(const_xmlChar* s) noexcept nogil:
    """Code points of a NUL-terminated UTF-8 string (libxml2 keeps its strings valid UTF-8):
    its bytes (``strlen``) less its continuation bytes (``10xxxxxx``), counted eight at a
    time in a 64-bit word: the high bit of each byte that has it and not the next one,
    moved to the low bit and summed by one multiplication. Attribute values (styles,
    links, data) are long, and a test per byte for the end and the kind of byte was a
    tenth of the walk."""
    cdef Py_ssize_t n, i = 0, follow = 0
    cdef uint64_t x
    if s == NULL:
        return 0
    n = <Py_ssize_t>strlen(<const char*>s)
    while i + 8 <= n:
        memcpy(&x, s + i, 8)
        x = (x & ~(x << 1) & 0x8080808080808080ULL) >> 7
        follow += <Py_ssize_t>((x * 0x0101010101010101ULL) >> 56)
        i += 8
    while i < n:
        follow += (s[i] & 0xC0) == 0x80
        i += 1
    return n - follow


cdef int _take_text(Walk* w, xmlNode* c) noexcept nogil:
    """The text lxml's ``.text``/``.tail`` gives from ``c`` on, added as the reference adds it."""
    cdef Py_ssize_t start = w.raw.n, i, n
    cdef const unsigned char* s
    cdef unsigned int cp = 0
    cdef bint blank = True, in_word = False
    cdef int words = 0
    while c != NULL:
        if c.type == tree.XML_TEXT_NODE or c.type == tree.XML_CDATA_SECTION_NODE:
            if c.content != NULL and vec_extend(&w.raw, <const char*>c.content, strlen(<const char*>c.content)) < 0:
                w.nomem = 1
                return -1
        elif c.type != tree.XML_XINCLUDE_START and c.type != tree.XML_XINCLUDE_END:
            break
        c = c.next
    n = w.raw.n
    if n == start:
        return 0
    s = <const unsigned char*>w.raw.data
    i = start
    while i < n:
        i = _next(s, i, n, &cp)
        if i < 0:
            w.bail = 1
            return -1
        if _space(cp):
            in_word = False
        else:
            blank = False
            if not in_word:
                words += 1
                in_word = True
            while i < n and 33 <= s[i] <= 127:  # the word's printable ASCII, not decoded
                i += 1
    if not blank:
        w.has_text = 1
        w.br_run = 0
    if w.link_depth:
        if vec_extend(&w.link, w.raw.data + start, n - start) < 0:
            w.nomem = 1
            return -1
        w.link_part_words += words
    return 0


cdef int _normalise(Walk* w, const char* data, Py_ssize_t n, int* words, int* chars,
                    bint keep_lengths) noexcept nogil:
    """Append ``" ".join(text.split())`` of ``data[:n]`` to the arena; count words and chars."""
    cdef const unsigned char* s = <const unsigned char*>data
    cdef Py_ssize_t i = 0, j
    cdef unsigned int cp = 0
    cdef bint in_word = False
    cdef int nw = 0, nc = 0, wlen = 0
    cdef int* slot
    if vec_reserve(&w.arena, w.arena.n + n) < 0:
        w.nomem = 1
        return -1
    w.lens.n = 0
    while i < n:
        j = _next(s, i, n, &cp)
        if j < 0:
            w.bail = 1
            return -1
        if _space(cp):
            if in_word and keep_lengths:
                slot = <int*>vec_push(&w.lens)
                if slot == NULL:
                    w.nomem = 1
                    return -1
                slot[0] = wlen
            in_word = False
        else:
            if not in_word:
                if nw:
                    w.arena.data[w.arena.n] = 32
                    w.arena.n += 1
                    nc += 1
                nw += 1
                wlen = 0
                in_word = True
            # The character's bytes stored one by one: a memcpy call per character
            # (1-4 bytes, a length the compiler cannot see) was a fifth of this loop.
            while i < j:
                w.arena.data[w.arena.n] = data[i]
                w.arena.n += 1
                i += 1
            nc += 1
            wlen += 1
            # Then the rest of the word's printable ASCII (33-127: one byte, one
            # character, never a space) at once, without decoding each.
            while j < n and 33 <= s[j] <= 127:
                w.arena.data[w.arena.n] = data[j]
                w.arena.n += 1
                j += 1
                nc += 1
                wlen += 1
        i = j
    if in_word and keep_lengths:
        slot = <int*>vec_push(&w.lens)
        if slot == NULL:
            w.nomem = 1
            return -1
        slot[0] = wlen
    words[0], chars[0] = nw, nc
    return 0


cdef int _wrap(Walk* w, int n, int* in_lines, int* lines) noexcept nogil:
    """``segment.wrapped_lines`` over the word lengths in ``w.lens``."""
    cdef int* lens = <int*>w.lens.data
    cdef int* ends
    cdef int k, start = 0, nxt, target, count = 0
    if vec_reserve(&w.ends, n + 1) < 0:
        w.nomem = 1
        return -1
    ends = <int*>w.ends.data
    ends[0] = 0
    for k in range(n):
        ends[k + 1] = ends[k] + lens[k] + 1
    while True:
        target = ends[start] + _WRAP_WIDTH + 1
        nxt = start + 2
        while nxt <= n and ends[nxt] <= target:
            nxt += 1
        if nxt > n:
            break
        start = nxt - 1
        count += 1
    if count == 0:
        in_lines[0], lines[0] = n, 1
    else:
        in_lines[0], lines[0] = start, count
    return 0
