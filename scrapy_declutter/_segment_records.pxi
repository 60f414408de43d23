# The compiled segmentation walk (growable arrays, the tag table, what the walk records, the arrays kept across calls); included by _segment.pyx.

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
    K_TEXT_BOX = 6  # a box when it holds text (``segment.TEXT_BOX_TAGS``), else K_OTHER

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


def configure(block_tags, skip_tags, text_box_tags, int max_ancestors, int wrap_width):
    """Take the reference walk's tag sets and limits, so both walks read one definition."""
    global _MAX_ANCESTORS, _WRAP_WIDTH, _CONFIGURED
    cdef TagEntry* e
    cdef int i
    for i in range(TABLE_SIZE):
        free(_TAGS[i].name)
    memset(_TAGS, 0, sizeof(_TAGS))
    if len(set(block_tags) | set(skip_tags) | set(text_box_tags) | {"a", "img", "br"}) > TABLE_SIZE // 2:
        raise ValueError("too many tags for the compiled walk's table")
    for tag in skip_tags:
        _entry(tag).kind = K_SKIP
    for tag, kind in (("br", K_BR), ("a", K_A), ("img", K_IMG)):
        e = _entry(tag)
        if e.kind == K_OTHER:
            e.kind = kind
    if (set(block_tags) | set(text_box_tags)) & (set(skip_tags) | {"a", "img", "br"}):
        raise ValueError("the compiled walk takes block tags to be neither skipped nor a, img, br")
    if set(text_box_tags) & (set(block_tags) | set(STRUCTURE_TAGS)):
        raise ValueError("the compiled walk takes text-box tags to be no block or structure tags")
    for tag in text_box_tags:
        _entry(tag).kind = K_TEXT_BOX
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
    # results (the arrays, ``recs`` to ``xp_len``, one after the other: ``_init`` takes them as one)
    Vec recs, totals, structs, blocks, links, images, arena, pre_arena
    # state of the walk (the reference's local variables)
    Vec path, kids, kid_base, opens, lists, tables, raw, link, lens, ends
    # phase 2: a stack of records, the XPaths' bytes, each record's XPath in them (offset, length)
    Vec up, xpath, xp_off, xp_len
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
# A Walk's arrays: made, and kept for the next call or freed.

# One Walk's arrays kept from a call to the next: a page's dozen and a half arrays were
# malloc'd, grown by realloc (copying what they held) and freed on every page. A call
# takes them if no other call holds them and gives them back if the spare is free, both
# with the GIL held and no Python code in between, so threads segmenting at once each
# get their own (the others allocate theirs as before). Arrays that grew past
# ``_SPARE_MAX_BYTES`` on some huge page are freed rather than held.
cdef Walk _spare
cdef bint _spare_held = False
DEF _SPARE_MAX_BYTES = 16 * 1024 * 1024


cdef inline Py_ssize_t _vec_count(Walk* w) noexcept:
    return (&w.xp_len - &w.recs) + 1


cdef void _init(Walk* w):
    global _spare_held
    cdef Vec* v
    cdef Py_ssize_t k
    memset(w, 0, sizeof(Walk))
    if _spare_held:
        memcpy(&w.recs, &_spare.recs, _vec_count(w) * sizeof(Vec))
        _spare_held = False
        v = &w.recs
        for k in range(_vec_count(w)):
            v[k].n = 0
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
    w.up.size = sizeof(int)
    w.xpath.size = 1
    w.xp_off.size = w.xp_len.size = sizeof(Py_ssize_t)


cdef void _release(Walk* w):
    """Give the arrays back as the spare (see ``_spare``), or free them."""
    global _spare_held
    cdef Vec* v = &w.recs
    cdef Py_ssize_t k, held = 0
    for k in range(_vec_count(w)):
        held += v[k].cap * v[k].size
    if not _spare_held and held <= _SPARE_MAX_BYTES:
        memcpy(&_spare.recs, &w.recs, _vec_count(w) * sizeof(Vec))
        _spare_held = True
        return
    for k in range(_vec_count(w)):
        free(v[k].data)
