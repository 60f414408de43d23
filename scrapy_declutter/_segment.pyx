# cython: language_level=3
"""The segmentation walk, compiled: the Blocks of ``segment.python_segment``, made in C.

Why a second walk: the Python walk costs a few microseconds per element of
every crawled page, most of extraction's time once the parse is done. This
one reads the libxml2 tree lxml already parsed (Scrapy's
``response.selector.root``) in two phases:

1. without the GIL (``with nogil``), the walk of the tree: texts, counts,
   links, images and structure go into C arrays, so a crawl's worker thread
   walks on one core while the reactor runs on the other;
2. with the GIL, the Python objects: one ``Block`` per block with its text,
   Ancestors, XPath and ``Structure``.

It reads the tree only through lxml's public C API (``etreepublic``:
``_Element._c_node``, ``elementFactory``, the ``_isElement``/``_getNs``
macros) and libxml2's long-stable node fields (type, name, ns, children,
next, parent, properties, content); it calls no libxml2 function, so the
built module does not depend on the libxml2 that lxml links, and keeps
working when lxml is upgraded after install.

``python_segment`` stays the reference: this walk follows its events one
for one (lxml's ``iterwalk``: start, end, comment and PI tails), and the
tests and ``scrapy-declutter check-walk`` compare the two block by block.
Where the tree holds what an HTML parse never makes (entity references,
attributes of several nodes, a ``<br>`` with children, bytes that are not
UTF-8, a root that is not an element) ``segment`` returns None and the
caller takes the Python walk, which is right by definition. Helpers whose
answer is a Python rule (``is_permalink``, ``list_start``, ``has_span``,
``code_language``) are called, not rewritten.
"""

from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset, strcmp, strlen, strncmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode

from .blocks import Ancestor, Block
from .structure import COUNTED_TAGS, LIST_TAGS, PLAIN, STRUCTURE_TAGS, Structure
from .structure import code_language, has_span, is_permalink, list_start

cetree.import_lxml__etree()

#: The lxml this module was compiled against (it runs with the lxml installed at run time).
BUILT_WITH_LXML = cetree.LXML_VERSION_STRING.decode("ascii")

# ---------------------------------------------------------------------------
# Growable arrays (realloc'd without the GIL; a failed allocation sets ``nomem``).

cdef struct Vec:
    char* data
    Py_ssize_t n
    Py_ssize_t cap
    Py_ssize_t size


cdef inline int vec_reserve(Vec* v, Py_ssize_t total) noexcept nogil:
    cdef Py_ssize_t cap
    cdef char* p
    if total <= v.cap:
        return 0
    cap = v.cap * 2 if v.cap else 64
    if cap < total:
        cap = total
    p = <char*>realloc(v.data, cap * v.size)
    if p == NULL:
        return -1
    v.data = p
    v.cap = cap
    return 0


cdef inline void* vec_push(Vec* v) noexcept nogil:
    if v.n == v.cap and vec_reserve(v, v.n + 1) < 0:
        return NULL
    v.n += 1
    return v.data + (v.n - 1) * v.size


cdef inline int vec_extend(Vec* v, const char* s, Py_ssize_t n) noexcept nogil:
    if vec_reserve(v, v.n + n) < 0:
        return -1
    memcpy(v.data + v.n, s, n)
    v.n += n
    return 0


# ---------------------------------------------------------------------------
# Tags: what the walk does with each, looked up by name in a small hash table
# filled by ``configure`` from ``segment``'s own tag sets.

cdef enum:
    K_OTHER = 0
    K_BLOCK = 1
    K_SKIP = 2
    K_BR = 3
    K_A = 4
    K_IMG = 5

cdef enum:
    S_NONE = 0
    S_LIST = 1
    S_LI = 2
    S_CELL = 3
    S_TR = 4
    S_TABLE = 5
    S_PRE = 6
    S_QUOTE = 7
    S_CAPTION = 8
    S_HEADING = 9

cdef enum:
    TABLE_SIZE = 512

cdef struct TagEntry:
    char* name
    unsigned char kind
    unsigned char skind
    unsigned char counted
    unsigned char heading

cdef TagEntry _TAGS[TABLE_SIZE]
cdef int _MAX_ANCESTORS = 16
cdef int _WRAP_WIDTH = 80
cdef bint _CONFIGURED = False


cdef inline unsigned int _hash(const char* s) noexcept nogil:
    cdef unsigned int h = 2166136261u
    while s[0]:
        h = (h ^ <unsigned char>s[0]) * 16777619u
        s += 1
    return h & (TABLE_SIZE - 1)


cdef inline TagEntry* _lookup(const char* name) noexcept nogil:
    cdef unsigned int i = _hash(name)
    while _TAGS[i].name != NULL:
        if strcmp(_TAGS[i].name, name) == 0:
            return &_TAGS[i]
        i = (i + 1) & (TABLE_SIZE - 1)
    return NULL


cdef TagEntry* _entry(str tag) except NULL:
    cdef bytes b = tag.encode("utf-8")
    cdef TagEntry* e = _lookup(b)
    cdef unsigned int i
    if e != NULL:
        return e
    i = _hash(b)
    while _TAGS[i].name != NULL:
        i = (i + 1) & (TABLE_SIZE - 1)
    _TAGS[i].name = <char*>malloc(len(b) + 1)
    if _TAGS[i].name == NULL:
        raise MemoryError()
    memcpy(_TAGS[i].name, <char*>b, len(b) + 1)
    return &_TAGS[i]


cdef int _structure_kind(str tag):
    """The branch of ``StructureTracker.enter`` a tag of STRUCTURE_TAGS takes."""
    if tag in LIST_TAGS:
        return S_LIST
    return {"li": S_LI, "td": S_CELL, "th": S_CELL, "tr": S_TR, "table": S_TABLE,
            "pre": S_PRE, "blockquote": S_QUOTE, "caption": S_CAPTION}.get(tag, S_HEADING)


def configure(block_tags, skip_tags, int max_ancestors, int wrap_width):
    """Take the reference walk's tag sets and limits, so both walks read one definition."""
    global _MAX_ANCESTORS, _WRAP_WIDTH, _CONFIGURED
    cdef TagEntry* e
    cdef int i
    for i in range(TABLE_SIZE):
        free(_TAGS[i].name)
    memset(_TAGS, 0, sizeof(_TAGS))
    if len(set(block_tags) | set(skip_tags) | {"a", "img", "br"}) > TABLE_SIZE // 2:
        raise ValueError("too many tags for the compiled walk's table")
    for tag in skip_tags:
        _entry(tag).kind = K_SKIP
    for tag, kind in (("br", K_BR), ("a", K_A), ("img", K_IMG)):
        e = _entry(tag)
        if e.kind == K_OTHER:
            e.kind = kind
    if set(block_tags) & (set(skip_tags) | {"a", "img", "br"}):
        raise ValueError("the compiled walk takes block tags to be neither skipped nor a, img, br")
    for tag in block_tags:
        e = _entry(tag)
        e.kind = K_BLOCK
        if tag in STRUCTURE_TAGS:
            e.skind = _structure_kind(tag)
            if e.skind == S_HEADING:
                e.heading = int(tag[1])
        e.counted = tag in COUNTED_TAGS
    _MAX_ANCESTORS, _WRAP_WIDTH = max_ancestors, wrap_width
    _CONFIGURED = True


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
    """Code points of a NUL-terminated UTF-8 string (libxml2 keeps its strings valid UTF-8)."""
    cdef Py_ssize_t n = 0
    if s == NULL:
        return 0
    while s[0]:
        if (s[0] & 0xC0) != 0x80:
            n += 1
        s += 1
    return n


# ---------------------------------------------------------------------------
# What the walk records.

cdef struct ElRec:          # an element that went onto the reference's ``path``
    xmlNode* node
    int parent              # its record's index, -1 for the root
    int nth                 # its position among the parent's children of its tag
    int slot                # index in ``totals``: how many such children the parent has

cdef struct SRec:           # a Structure; evaluated fields are records to evaluate later
    int heading, list_depth, ordered, item, number_count, number_list, quote, pre
    int language_rec, table, row, col, header, span_rec

cdef struct BRec:           # a block
    int el, sid
    Py_ssize_t text_off, text_len, pre_off, pre_len
    int words, link_words, text_chars, link_chars, markup, tags, in_lines, lines
    int links_from, links_to, images_from, images_to

cdef struct LRec:           # a link: anchor text in the arena, its href attribute
    Py_ssize_t off, len
    xmlAttr* href

cdef struct IRec:           # an image: its alt (or NULL) and src attributes
    xmlAttr* alt
    xmlAttr* src

cdef struct KidTag:         # a tag among the children of an open element
    const_xmlChar* name
    const_xmlChar* href
    int slot

cdef struct Open:           # an open block-level element
    int rec, depth, sid

cdef struct ListState:
    int items, ol

cdef struct TableState:
    int row, col


cdef struct Walk:
    int bail, nomem
    # results
    Vec recs, totals, structs, blocks, links, images, arena, pre_arena
    # state of the walk (the reference's local variables)
    Vec path, kids, kid_base, opens, lists, tables, raw, link, lens, ends
    int serial, has_text, br_run, link_depth, markup, tags, gen, link_gen
    int link_part_words, links_from, images_from, block_rec, block_depth, sid
    Py_ssize_t link_from
    xmlAttr* link_href      # the outer link's href when it is a non-empty string
    void* doc               # the root's lxml _Document, only touched with the GIL


cdef inline SRec* _srec(Walk* w, int sid) noexcept nogil:
    return <SRec*>w.structs.data + sid


cdef inline ElRec* _rec(Walk* w, int i) noexcept nogil:
    return <ElRec*>w.recs.data + i


cdef inline xmlNode* _element_like(xmlNode* c) noexcept nogil:
    """``c`` or its first next sibling that lxml shows as a child (element, comment, PI, entity)."""
    while c != NULL and not cetree._isElement(c):
        c = c.next
    return c


cdef inline xmlAttr* _attr(xmlNode* node, const char* name) noexcept nogil:
    """The attribute ``el.get(name)`` reads: that name, no namespace."""
    cdef xmlAttr* a = node.properties
    while a != NULL:
        if a.type == tree.XML_ATTRIBUTE_NODE and a.ns == NULL and strcmp(<const char*>a.name, name) == 0:
            return a
        a = a.next
    return NULL


cdef inline const_xmlChar* _value(Walk* w, xmlAttr* a) noexcept nogil:
    """An attribute's value as lxml reads it, or NULL (and ``bail``) when it is not one text."""
    cdef xmlNode* c
    if a == NULL:
        return NULL
    c = a.children
    if c == NULL:
        return <const_xmlChar*>""
    if c.next != NULL or (c.type != tree.XML_TEXT_NODE and c.type != tree.XML_CDATA_SECTION_NODE):
        w.bail = 1
        return NULL
    return <const_xmlChar*>"" if c.content == NULL else c.content


# ---------------------------------------------------------------------------
# The walk (no GIL).

cdef int _take_text(Walk* w, xmlNode* c) noexcept nogil:
    """The text lxml's ``.text``/``.tail`` gives from ``c`` on, added as the reference adds it."""
    cdef Py_ssize_t start = w.raw.n, i, n
    cdef const unsigned char* s
    cdef unsigned int cp
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
    cdef unsigned int cp
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
            memcpy(w.arena.data + w.arena.n, data + i, j - i)
            w.arena.n += j - i
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


cdef int _emit(Walk* w) noexcept nogil:
    cdef BRec* b = <BRec*>vec_push(&w.blocks)
    cdef int link_words = 0, n = 0
    if b == NULL:
        w.nomem = 1
        return -1
    b.el, b.sid = w.block_rec, w.sid
    b.text_off = w.arena.n
    if _normalise(w, w.raw.data, w.raw.n, &b.words, &b.text_chars, True) < 0:
        return -1
    b.text_len = w.arena.n - b.text_off
    if b.text_chars <= _WRAP_WIDTH:
        b.in_lines, b.lines = b.words, 1
    elif _wrap(w, b.words, &b.in_lines, &b.lines) < 0:
        return -1
    b.link_words = w.link_part_words if w.link_part_words < b.words else b.words
    # The merged link text is normalised only to count it: written, then taken back.
    if _normalise(w, w.link.data, w.link.n, &n, &b.link_chars, False) < 0:
        return -1
    w.arena.n = b.text_off + b.text_len
    b.markup, b.tags = w.markup, w.tags
    b.pre_off, b.pre_len = -1, 0
    if _srec(w, w.sid).pre:
        b.pre_off = w.pre_arena.n
        b.pre_len = w.raw.n
        if vec_extend(&w.pre_arena, w.raw.data, w.raw.n) < 0:
            w.nomem = 1
            return -1
    b.links_from, b.links_to = w.links_from, <int>w.links.n
    b.images_from, b.images_to = w.images_from, <int>w.images.n
    return 0


cdef inline void _reset(Walk* w) noexcept nogil:
    """A new ``parts``: the block's text, link text and links start again."""
    w.raw.n = 0
    w.link.n = 0
    w.link_part_words = 0
    w.links_from = <int>w.links.n
    w.has_text = 0
    w.gen += 1


cdef int _push(Walk* w, xmlNode* node, const_xmlChar* href) noexcept nogil:
    """Put an element on ``path``: its record, its count among its parent's children."""
    cdef int rec = <int>w.recs.n, base, slot = -1
    cdef Py_ssize_t k
    cdef ElRec* r = <ElRec*>vec_push(&w.recs)
    cdef KidTag* t
    cdef int* p
    if r == NULL:
        w.nomem = 1
        return -1
    r.node = node
    r.parent = (<int*>w.path.data)[w.path.n - 1] if w.path.n else -1
    base = (<int*>w.kid_base.data)[w.kid_base.n - 1]
    for k in range(base, w.kids.n):
        t = <KidTag*>w.kids.data + k
        if ((t.name == node.name or strcmp(<const char*>t.name, <const char*>node.name) == 0)
                and (t.href == href or (t.href != NULL and href != NULL
                                        and strcmp(<const char*>t.href, <const char*>href) == 0))):
            slot = t.slot
            break
    if slot < 0:
        t = <KidTag*>vec_push(&w.kids)
        p = <int*>vec_push(&w.totals)
        if t == NULL or p == NULL:
            w.nomem = 1
            return -1
        slot = <int>w.totals.n - 1
        t.name, t.href, t.slot = node.name, href, slot
        p[0] = 0
    p = <int*>w.totals.data + slot
    p[0] += 1
    r = _rec(w, rec)
    r.nth, r.slot = p[0], slot
    p = <int*>vec_push(&w.path)
    if p == NULL:
        w.nomem = 1
        return -1
    p[0] = rec
    p = <int*>vec_push(&w.kid_base)
    if p == NULL:
        w.nomem = 1
        return -1
    p[0] = <int>w.kids.n
    return rec


cdef int _enter(Walk* w, TagEntry* e, xmlNode* node, int rec) noexcept nogil:
    """``StructureTracker.enter``: the Structure inside ``node``, as a new record (or the parent's)."""
    cdef SRec s = _srec(w, w.sid)[0]
    cdef SRec* out
    cdef ListState* li
    cdef TableState* cell
    cdef int kind = e.skind
    if kind == S_LIST:
        li = <ListState*>vec_push(&w.lists)
        if li == NULL:
            w.nomem = 1
            return -1
        s.ordered = strcmp(<const char*>node.name, "ol") == 0
        li.items, li.ol = 0, (rec if s.ordered else -1)
        s.list_depth += 1
    elif kind == S_LI:
        w.serial += 1
        if w.lists.n:
            li = <ListState*>w.lists.data + w.lists.n - 1
            li.items += 1
            s.number_count, s.number_list = li.items, li.ol
        else:  # a stray <li>: an item of an implied list
            s.number_count, s.number_list = 1, -1
        s.item = w.serial
        if not s.list_depth:
            s.list_depth = 1
    elif kind == S_CELL or kind == S_TR:
        if not w.tables.n:
            return w.sid
        cell = <TableState*>w.tables.data + w.tables.n - 1
        if kind == S_CELL:
            if cell.row < 0:
                cell.row = 0
            cell.col += 1
            s.row, s.col = cell.row, cell.col
            s.header = strcmp(<const char*>node.name, "th") == 0
            s.span_rec = rec
        else:
            cell.row += 1
            cell.col = -1
            s.row, s.col, s.header, s.span_rec = cell.row, -1, 0, -1
    elif kind == S_TABLE:
        w.serial += 1
        cell = <TableState*>vec_push(&w.tables)
        if cell == NULL:
            w.nomem = 1
            return -1
        cell.row, cell.col = -1, -1
        s.table, s.row, s.col, s.header, s.span_rec = w.serial, -1, -1, 0, -1
    elif kind == S_PRE:
        w.serial += 1
        s.pre, s.language_rec = w.serial, rec
    elif kind == S_QUOTE:
        s.quote += 1
    elif kind == S_CAPTION:
        s.row, s.col, s.header, s.span_rec = -1, -1, 0, -1
    else:
        s.heading = e.heading
    out = <SRec*>vec_push(&w.structs)
    if out == NULL:
        w.nomem = 1
        return -1
    out[0] = s
    return <int>w.structs.n - 1


cdef inline TagEntry* _kind(xmlNode* node, const_xmlChar* href) noexcept nogil:
    return NULL if href != NULL else _lookup(<const char*>node.name)


cdef int _markup(Walk* w, xmlNode* node, const_xmlChar* href) noexcept nogil:
    """The element's share of the block's markup characters, as the reference counts them."""
    cdef Py_ssize_t tag = _chars(node.name) + (_chars(href) + 2 if href != NULL else 0)
    cdef Py_ssize_t chars = 0, n = 0
    cdef xmlAttr* a = node.properties
    cdef const_xmlChar* v
    w.markup += 2 * tag + 1
    while a != NULL:
        if a.type == tree.XML_ATTRIBUTE_NODE:
            v = _value(w, a)
            if v == NULL:
                return -1
            n += 1
            chars += _chars(a.name) + _chars(v)
            if a.ns != NULL and a.ns.href != NULL:
                chars += _chars(a.ns.href) + 2
        a = a.next
    if n:
        w.markup += chars + 4 * n
    w.tags += 1
    return 0


cdef bint _permalink(Walk* w, xmlNode* node) noexcept nogil:
    """``is_permalink``, asked with the GIL: the rare ``<a href="#...">`` only."""
    with gil:
        try:
            return is_permalink(cetree.elementFactory(<cetree._Document>w.doc, node))
        except BaseException:
            w.bail = 1
            return False


cdef int _start(Walk* w, xmlNode* node) noexcept nogil:
    """A start event; 1 when the walk goes into the element's children."""
    cdef const_xmlChar* href = cetree._getNs(node)
    cdef TagEntry* e = _kind(node, href)
    cdef int kind = e.kind if e != NULL else K_OTHER
    cdef int rec, sid
    cdef bint skip = False
    cdef Open* o
    cdef xmlAttr* a
    cdef const_xmlChar* v
    cdef IRec* img
    if kind == K_BLOCK:
        rec = _push(w, node, href)
        if rec < 0:
            return 0
        if w.has_text:
            if _emit(w) < 0:
                return 0
            w.images_from = <int>w.images.n
        if e.skind != S_NONE:
            sid = _enter(w, e, node, rec)
            if sid < 0:
                return 0
            w.sid = sid
        o = <Open*>vec_push(&w.opens)
        if o == NULL:
            w.nomem = 1
            return 0
        o.rec, o.depth, o.sid = rec, <int>w.path.n, w.sid
        _reset(w)
        w.block_rec, w.block_depth = rec, <int>w.path.n
        w.markup = w.tags = w.br_run = 0
    elif kind == K_SKIP:
        return 0
    elif kind == K_BR:
        if _element_like(node.children) != NULL:  # never from an HTML parse
            w.bail = 1
            return 0
        if _srec(w, w.sid).pre:  # a line break inside code, never a block boundary
            if vec_extend(&w.raw, "\n", 1) < 0:
                w.nomem = 1
            return 0
        w.br_run += 1
        if w.br_run < 2:
            if vec_extend(&w.raw, " ", 1) < 0:
                w.nomem = 1
        else:
            if w.has_text and _emit(w) < 0:
                return 0
            _reset(w)
            w.images_from = <int>w.images.n
            w.markup = w.tags = w.br_run = 0
        return 0
    else:
        rec = _push(w, node, href)
        if rec < 0:
            return 0
        if kind == K_A:
            w.link_depth += 1
            if w.link_depth == 1:
                a = _attr(node, "href")
                v = _value(w, a)
                w.link_href = a if v != NULL and v[0] != 0 else NULL
                if w.link_href != NULL and v[0] == 35 and _permalink(w, node):  # '#'
                    skip = True
                    w.link_href = NULL
                w.link_gen, w.link_from = w.gen, w.raw.n
        elif kind == K_IMG:
            a = _attr(node, "src")
            v = _value(w, a)
            if v == NULL or v[0] == 0:
                a = _attr(node, "data-src")
                v = _value(w, a)
            if v != NULL and v[0] != 0 and strncmp(<const char*>v, "data:", 5) != 0:
                img = <IRec*>vec_push(&w.images)
                if img == NULL:
                    w.nomem = 1
                    return 0
                img.src = a
                img.alt = _attr(node, "alt")
    if w.bail or _markup(w, node, href) < 0:
        return 0
    if not skip:
        _take_text(w, node.children)
    return not skip


cdef void _end(Walk* w, xmlNode* node) noexcept nogil:
    cdef const_xmlChar* href = cetree._getNs(node)
    cdef TagEntry* e = _kind(node, href)
    cdef int kind = e.kind if e != NULL else K_OTHER
    cdef Open* o
    cdef LRec* link
    cdef int words, chars
    if kind == K_BLOCK:
        if w.opens.n > 1:
            if w.has_text and _emit(w) < 0:
                return
            _reset(w)
            w.images_from = <int>w.images.n
            w.opens.n -= 1
            o = <Open*>w.opens.data + w.opens.n - 1
            w.block_rec, w.block_depth, w.sid = o.rec, o.depth, o.sid
            w.markup = w.tags = w.br_run = 0
            if e.counted:  # StructureTracker.leave
                if e.skind == S_LIST:
                    if w.lists.n:
                        w.lists.n -= 1
                elif w.tables.n:
                    w.tables.n -= 1
    elif kind == K_A:
        w.link_depth -= 1
        if w.link_depth == 0 and w.link_href != NULL and w.link_gen == w.gen:
            link = <LRec*>vec_push(&w.links)
            if link == NULL:
                w.nomem = 1
                return
            link.off, link.href = w.arena.n, w.link_href
            if _normalise(w, w.raw.data + w.link_from, w.raw.n - w.link_from, &words, &chars, False) < 0:
                return
            link.len = w.arena.n - link.off
            if not link.len:  # no anchor text: no link
                w.links.n -= 1
    if kind != K_SKIP and kind != K_BR:
        w.path.n -= 1
        w.kids.n = (<int*>w.kid_base.data)[w.kid_base.n - 1]
        w.kid_base.n -= 1
    _take_text(w, node.next)


cdef void _walk(Walk* w, xmlNode* root) noexcept nogil:
    """lxml's ``iterwalk(root, events=("start", "end", "comment", "pi"))``, over C nodes."""
    cdef xmlNode* cur = root
    cdef xmlNode* c = _element_like(root.children) if _start(w, root) else NULL
    while not (w.bail or w.nomem):
        while c != NULL and c.type != tree.XML_ELEMENT_NODE:
            if c.type == tree.XML_COMMENT_NODE or c.type == tree.XML_PI_NODE:
                _take_text(w, c.next)  # only its tail is page text
                c = _element_like(c.next)
            else:  # an entity reference: never from an HTML parse
                w.bail = 1
                return
        if w.bail or w.nomem:
            return
        if c != NULL:
            cur = c
            c = _element_like(c.children) if _start(w, c) else NULL
            continue
        _end(w, cur)
        if cur == root:
            break
        c = _element_like(cur.next)
        cur = cur.parent
    if w.bail or w.nomem or not w.has_text:
        return
    if w.path.n < w.block_depth and w.blocks.n == 0:
        w.bail = 1  # the reference fails here (no lineage for the root): let it
        return
    _emit(w)


# ---------------------------------------------------------------------------
# The Python objects (with the GIL).

class _Bail(Exception):
    """The tree holds what the compiled walk leaves to the reference."""


cdef inline Py_ssize_t _keep_from(Py_ssize_t n):
    """Where ``ancestors[1 - MAX_ANCESTORS:]`` starts in a tuple of ``n``."""
    if 1 - _MAX_ANCESTORS >= 0:
        return min(1 - _MAX_ANCESTORS, n)
    return max(n + 1 - _MAX_ANCESTORS, 0)


cdef str _text(const char* s, Py_ssize_t n):
    return s[:n].decode("utf-8")


cdef str _attr_text(xmlAttr* a):
    cdef xmlNode* c
    if a == NULL:
        return None
    c = a.children
    if c == NULL:
        return ""
    if c.next != NULL or (c.type != tree.XML_TEXT_NODE and c.type != tree.XML_CDATA_SECTION_NODE):
        raise _Bail()
    return "" if c.content == NULL else (<const char*>c.content).decode("utf-8")


cdef str _tag(xmlNode* node):
    cdef const_xmlChar* href = cetree._getNs(node)
    name = (<const char*>node.name).decode("utf-8")
    if href == NULL:
        return name
    return "{%s}%s" % ((<const char*>href).decode("utf-8"), name)


cdef class _Builder:
    """The per-page memos of phase 2: tags, lineages, XPaths, Structures, elements."""

    cdef Walk* w
    cdef cetree._Element root
    cdef list tags, lineages, xpaths, structures
    cdef dict elements

    def __cinit__(self):
        self.elements = {}

    cdef void setup(self, Walk* w, cetree._Element root):
        self.w, self.root = w, root
        self.tags = [None] * w.recs.n
        self.lineages = [None] * w.recs.n
        self.xpaths = [None] * w.recs.n
        self.structures = [None] * w.structs.n
        self.structures[0] = PLAIN

    cdef object element(self, int rec):
        el = self.elements.get(rec)
        if el is None:
            el = self.elements[rec] = cetree.elementFactory(self.root._doc, _rec(self.w, rec).node)
        return el

    cdef str tag(self, int rec):
        t = self.tags[rec]
        if t is None:
            t = self.tags[rec] = _tag(_rec(self.w, rec).node)
        return t

    cdef list chain(self, int rec, list memo):
        """The records from the nearest one with a memo (excluded) down to ``rec``."""
        cdef list todo = []
        while rec >= 0 and memo[rec] is None:
            todo.append(rec)
            rec = _rec(self.w, rec).parent
        todo.reverse()
        return todo

    cdef object ancestor(self, int rec):
        """``segment._ancestor``: one new Ancestor per element, as there (the learned
        features cache chain summaries by the identity of an element's Ancestor)."""
        cdef xmlNode* node = _rec(self.w, rec).node
        cdef xmlAttr* cls = _attr(node, "class")
        # tuple.__new__, as NamedTuple's own __new__ does, without its Python frame
        return tuple.__new__(Ancestor, (self.tag(rec), _attr_text(_attr(node, "id")) or "",
                                        tuple(_attr_text(cls).split()) if cls != NULL else ()))

    cdef tuple lineage(self, int rec):
        cdef int r, p
        cdef Py_ssize_t start, k, n
        cdef tuple above, line
        for r in self.chain(rec, self.lineages):
            p = _rec(self.w, r).parent
            above = self.lineages[p] if p >= 0 else ()
            # (*above[1 - MAX_ANCESTORS:], me), built in place
            n = PyTuple_GET_SIZE(above)
            start = _keep_from(n)
            line = PyTuple_New(n - start + 1)
            for k in range(start, n):
                item = <object>PyTuple_GET_ITEM(above, k)
                Py_INCREF(item)
                PyTuple_SET_ITEM(line, k - start, item)
            me = self.ancestor(r)
            Py_INCREF(me)
            PyTuple_SET_ITEM(line, n - start, me)
            self.lineages[r] = line
        return self.lineages[rec]

    cdef str xpath(self, int rec):
        cdef int r
        cdef ElRec* e
        for r in self.chain(rec, self.xpaths):
            e = _rec(self.w, r)
            if e.parent < 0:
                self.xpaths[r] = self.root.getroottree().getpath(self.root)
            elif e.nth == 1 and (<int*>self.w.totals.data)[e.slot] == 1:
                self.xpaths[r] = f"{self.xpaths[e.parent]}/{self.tag(r)}"
            else:
                self.xpaths[r] = f"{self.xpaths[e.parent]}/{self.tag(r)}[{e.nth}]"
        return self.xpaths[rec]

    cdef object structure(self, int sid):
        cdef SRec* s
        cdef ElRec* e
        structure = self.structures[sid]
        if structure is not None:
            return structure
        s = _srec(self.w, sid)
        start = list_start(self.element(s.number_list)) if s.number_list >= 0 else 1
        language = ""
        if s.language_rec >= 0:
            path = [self.element(s.language_rec)]
            e = _rec(self.w, s.language_rec)
            for _ in range(2):
                if e.parent < 0:
                    break
                path.insert(0, self.element(e.parent))
                e = _rec(self.w, e.parent)
            language = code_language(path[len(path) - 1], path)
        structure = self.structures[sid] = tuple.__new__(Structure, (
            s.heading, s.list_depth, bool(s.ordered), s.item, start + s.number_count - 1,
            s.quote, s.pre, language, s.table, s.row, s.col, bool(s.header),
            has_span(self.element(s.span_rec)) if s.span_rec >= 0 else False))
        return structure

    cdef list blocks(self):
        cdef Walk* w = self.w
        cdef BRec* b
        cdef LRec* link
        cdef IRec* img
        cdef Py_ssize_t i, k, n = w.blocks.n
        cdef list out = []
        cdef char* arena = w.arena.data
        for i in range(n):
            b = <BRec*>w.blocks.data + i
            block = Block(
                i, _text(arena + b.text_off, b.text_len), self.tag(b.el), "", self.lineage(b.el),
                b.words, b.link_words, b.text_chars, b.markup, b.tags,
                b.link_words / b.words if b.words else 0.0,
                b.in_lines / b.lines,
                (b.text_chars + 1) / (b.text_chars + b.markup + 1),
                b.lines, b.link_chars,
            )
            if b.sid:
                structure = block.structure = self.structure(b.sid)
                if structure.pre:
                    block.preformatted = _text(w.pre_arena.data + b.pre_off, b.pre_len).strip("\n").rstrip()
            if b.links_to > b.links_from:
                links = []
                for k in range(b.links_from, b.links_to):
                    link = <LRec*>w.links.data + k
                    links.append((_text(arena + link.off, link.len), _attr_text(link.href)))
                block.links = tuple(links)
            if b.images_to > b.images_from:
                images = []
                for k in range(b.images_from, b.images_to):
                    img = <IRec*>w.images.data + k
                    images.append((_attr_text(img.alt) or "", _attr_text(img.src)))
                block.images = tuple(images)
            block.position = i / n
            block.xpath = self.xpath(b.el)
            out.append(block)
        return out


cdef void _init(Walk* w):
    memset(w, 0, sizeof(Walk))
    w.recs.size = sizeof(ElRec)
    w.totals.size = w.path.size = w.kid_base.size = w.lens.size = w.ends.size = sizeof(int)
    w.structs.size = sizeof(SRec)
    w.blocks.size = sizeof(BRec)
    w.links.size = sizeof(LRec)
    w.images.size = sizeof(IRec)
    w.arena.size = w.pre_arena.size = w.raw.size = w.link.size = 1
    w.kids.size = sizeof(KidTag)
    w.opens.size = sizeof(Open)
    w.lists.size = sizeof(ListState)
    w.tables.size = sizeof(TableState)


cdef void _release(Walk* w):
    free(w.recs.data); free(w.totals.data); free(w.structs.data); free(w.blocks.data)
    free(w.links.data); free(w.images.data); free(w.arena.data); free(w.pre_arena.data)
    free(w.path.data); free(w.kids.data); free(w.kid_base.data); free(w.opens.data)
    free(w.lists.data); free(w.tables.data); free(w.raw.data); free(w.link.data)
    free(w.lens.data); free(w.ends.data)


def segment(cetree._Element root not None):
    """The Blocks of ``root``'s tree, as ``segment.python_segment`` makes them; None when the
    tree holds what only the reference handles (the caller then runs it)."""
    cdef Walk w
    cdef xmlNode* node = root._c_node
    cdef TagEntry* e
    cdef SRec* plain
    cdef Open* o
    cdef int* base
    cdef _Builder builder
    if not _CONFIGURED:
        raise RuntimeError("scrapy_declutter._segment.configure() was not called")
    if node == NULL or node.type != tree.XML_ELEMENT_NODE:
        return None
    e = _kind(node, cetree._getNs(node))
    if e != NULL and (e.kind == K_SKIP or e.kind == K_BR):
        return None  # a root the reference never puts on its path
    _init(&w)
    w.doc = <void*>root._doc
    try:
        plain = <SRec*>vec_push(&w.structs)
        o = <Open*>vec_push(&w.opens)
        base = <int*>vec_push(&w.kid_base)
        if plain == NULL or o == NULL or base == NULL:
            raise MemoryError()
        memset(plain, 0, sizeof(SRec))
        plain.number_list = plain.language_rec = plain.span_rec = -1
        plain.row = plain.col = -1
        o.rec, o.depth, o.sid = 0, 1, 0  # the root is the first record
        base[0] = 0
        w.block_rec, w.block_depth = 0, 1
        with nogil:
            _walk(&w, node)
        if w.nomem:
            raise MemoryError()
        if w.bail:
            return None
        builder = _Builder()
        builder.setup(&w, root)
        try:
            return builder.blocks()
        except (_Bail, UnicodeDecodeError):
            return None
    finally:
        w.doc = NULL
        _release(&w)
