# The compiled segmentation walk (the walk of the tree, without the GIL); included by _segment.pyx.

# ---------------------------------------------------------------------------
# The walk (no GIL).

cdef int _emit(Walk* w) noexcept nogil:
    cdef BRec* b = <BRec*>vec_push(&w.blocks)
    cdef int n = 0
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


cdef bint _holds_text(xmlNode* node) noexcept nogil:
    """``segment.holds_text``: text other than whitespace inside ``node``, outside skipped
    elements and comments (a text that is not UTF-8 counts: the walk leaves that page to
    the reference)."""
    cdef xmlNode* c = node.children
    cdef TagEntry* e
    cdef const unsigned char* s
    cdef Py_ssize_t i, n
    cdef unsigned int cp = 0
    while c != NULL:
        if c.type == tree.XML_TEXT_NODE or c.type == tree.XML_CDATA_SECTION_NODE:
            if c.content != NULL:
                s = <const unsigned char*>c.content
                n = strlen(<const char*>s)
                i = 0
                while i < n:
                    i = _next(s, i, n, &cp)
                    if i < 0 or not _space(cp):
                        return True
        elif c.type == tree.XML_ELEMENT_NODE and c.children != NULL:
            e = _kind(c, cetree._getNs(c))
            if e == NULL or e.kind != K_SKIP:
                c = c.children
                continue
        while c.next == NULL:  # climb to the next sibling, never above ``node``
            c = c.parent
            if c == node:
                return False
        c = c.next
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
    if kind == K_TEXT_BOX:
        kind = K_BLOCK if _holds_text(node) else K_OTHER
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
    cdef int words = 0, chars = 0
    if kind == K_TEXT_BOX:  # a box if it opened one (``_start``)
        o = <Open*>w.opens.data + w.opens.n - 1
        kind = K_BLOCK if _rec(w, o.rec).node == node else K_OTHER
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
