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
caller takes the Python walk, which is right by definition. ``structure``'s
rules about one element are called with the attribute values they read
(``spans``, ``start_number``, ``classes_language``); ``is_permalink`` is
answered from the tree where its bytes settle it, and called otherwise
(``_segment_rules.pxi``).
"""

from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from libc.stdlib cimport free, malloc, realloc
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset, strcmp, strlen, strncmp, strstr

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode

from scrapy_declutter._chars cimport ascii_alnum

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void* op)

from .blocks import Ancestor, Block, style_hides
from .structure import COUNTED_TAGS, LIST_TAGS, PLAIN, STRUCTURE_TAGS, Structure
from .structure import classes_language, is_permalink, spans, start_number

cetree.import_lxml__etree()

#: The lxml this module was compiled against (it runs with the lxml installed at run time).
BUILT_WITH_LXML = cetree.LXML_VERSION_STRING.decode("ascii")

include "_segment_records.pxi"
include "_segment_paths.pxi"
include "_segment_text.pxi"
include "_segment_rules.pxi"
include "_segment_walk.pxi"
include "_segment_fields.pxi"
include "_segment_names.pxi"


# ---------------------------------------------------------------------------
# The Python objects (with the GIL).

class _Bail(Exception):
    """The tree holds what the compiled walk leaves to the reference."""


cdef inline object _untracked(object record):
    """``record`` with the garbage collector no longer tracking it (CPython's own rule for tuples).

    An Ancestor, its element's lineage (a tuple of Ancestors) and a
    Structure are immutable tuples of strings, numbers and tuples of strings
    (a NamedTuple has ``__slots__ = ()``: no ``__dict__`` to point anywhere
    else), so no reference cycle can pass through them, and only objects in
    a cycle need the collector. CPython stops tracking a plain tuple of such
    items by itself, but only when a collection first looks at it; these are
    tuple subclasses, which it never stops tracking, and a page makes some
    3.4 of them per block. A block's links and images (tuples of pairs of
    strings) are untracked here too, before they count towards the next
    collection. Left tracked,
    every full collection walked them for each page in flight or held in a
    warm-up. The Python walk makes the same objects and leaves them tracked:
    nothing but the collector's work differs.
    """
    PyObject_GC_UnTrack(<void*>record)
    return record


cdef inline Py_ssize_t _keep_from(Py_ssize_t n):
    """Where ``ancestors[1 - MAX_ANCESTORS:]`` starts in a tuple of ``n``."""
    if 1 - _MAX_ANCESTORS >= 0:
        return min(1 - _MAX_ANCESTORS, n)
    return max(n + 1 - _MAX_ANCESTORS, 0)


cdef str _text(const char* s, Py_ssize_t n):
    return s[:n].decode("utf-8")


cdef const char* _EMPTY = ""


cdef const char* _attr_value(xmlAttr* a) except? NULL:
    """The attribute's value as lxml reads it (NULL: no attribute); ``_Bail`` when it is
    not one text."""
    cdef xmlNode* c
    if a == NULL:
        return NULL
    c = a.children
    if c == NULL:
        return _EMPTY
    if c.next != NULL or (c.type != tree.XML_TEXT_NODE and c.type != tree.XML_CDATA_SECTION_NODE):
        raise _Bail()
    return _EMPTY if c.content == NULL else <const char*>c.content


cdef str _attr_text(xmlAttr* a):
    cdef const char* v = _attr_value(a)
    return None if v == NULL else v.decode("utf-8")


cdef str _tag(xmlNode* node):
    cdef const_xmlChar* href = cetree._getNs(node)
    name = _named(<const char*>node.name, NAME_TEXT)
    if href == NULL:
        return name
    return "{%s}%s" % ((<const char*>href).decode("utf-8"), name)


cdef class _Builder:
    """The per-page memos of phase 2: tags, lineages, XPaths, Structures."""

    cdef Walk* w
    cdef cetree._Element root
    cdef list tags, lineages, xpaths, structures

    cdef int setup(self, Walk* w, cetree._Element root) except -1:
        cdef Py_ssize_t k
        self.w, self.root = w, root
        if vec_reserve(&w.xp_off, w.recs.n) < 0 or vec_reserve(&w.xp_len, w.recs.n) < 0:
            raise MemoryError()
        for k in range(w.recs.n):
            (<Py_ssize_t*>w.xp_off.data)[k] = -1
        self.tags = [None] * w.recs.n
        self.lineages = [None] * w.recs.n
        self.xpaths = [None] * w.recs.n
        self.structures = [None] * w.structs.n
        self.structures[0] = PLAIN

    cdef str tag(self, int rec):
        t = self.tags[rec]
        if t is None:
            t = self.tags[rec] = _tag(_rec(self.w, rec).node)
        return t

    cdef int chain(self, int rec, list memo) except -1:
        """The records from the nearest one with a memo (excluded) up to ``rec``, pushed on
        ``w.up`` from ``rec`` upwards (read them back from the top of the stack down); how many.
        ``memo`` None: the memo is the XPath's bytes (``w.xp_off``). A C stack: a Python
        list of the records was a tenth of the lineages' and XPaths' cost."""
        cdef Walk* w = self.w
        cdef int* slot
        cdef Py_ssize_t* off = <Py_ssize_t*>w.xp_off.data
        w.up.n = 0
        while rec >= 0 and (off[rec] < 0 if memo is None else memo[rec] is None):
            slot = <int*>vec_push(&w.up)
            if slot == NULL:
                raise MemoryError()
            slot[0] = rec
            rec = _rec(w, rec).parent
        return <int>w.up.n

    cdef object ancestor(self, int rec):
        """``segment._ancestor``: one new Ancestor per element, as there (the learned
        features cache chain summaries by the identity of an element's Ancestor)."""
        cdef xmlNode* node = _rec(self.w, rec).node
        cdef const char* ident = _attr_value(_attr(node, "id"))
        cdef const char* cls = _attr_value(_attr(node, "class"))
        # tuple.__new__, as NamedTuple's own __new__ does, without its Python frame; the
        # id and class names as ``_attr_text(...)`` and its ``split()`` give them (``_named``)
        return _record3(Ancestor, self.tag(rec),
                        _named(ident, NAME_TEXT) if ident != NULL and ident[0] else "",
                        _named(cls, NAME_CLASSES) if cls != NULL and cls[0] else ())

    cdef tuple lineage(self, int rec):
        cdef int r, p, up
        cdef Py_ssize_t start, k, n
        cdef tuple above, line
        line = self.lineages[rec]
        if line is not None:  # blocks of one element, or of its later children
            return line
        up = self.chain(rec, self.lineages)
        while up > 0:
            up -= 1
            r = (<int*>self.w.up.data)[up]
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
            self.lineages[r] = _untracked(line)
        return self.lineages[rec]

    cdef str xpath(self, int rec):
        """The element's XPath, written as bytes after its parent's (``w.xpath``), decoded once
        for the element of a block: the elements above get no string of their own."""
        cdef Walk* w = self.w
        cdef int r, up
        cdef Py_ssize_t* off = <Py_ssize_t*>w.xp_off.data
        cdef ElRec* e
        x = self.xpaths[rec]
        if x is not None:
            return x
        up = self.chain(rec, None)
        while up > 0:
            up -= 1
            r = (<int*>w.up.data)[up]
            e = _rec(w, r)
            if e.parent < 0:
                root_path = self.root.getroottree().getpath(self.root).encode("utf-8")
                _write_xpath(w, r, -1, root_path, len(root_path), 0)
            else:
                _write_xpath(w, r, e.parent, NULL, 0,
                                  0 if e.nth == 1 and (<int*>w.totals.data)[e.slot] == 1 else e.nth)
        x = self.xpaths[rec] = w.xpath.data[off[rec]:off[rec] + (<Py_ssize_t*>w.xp_len.data)[rec]].decode("utf-8")
        return x

    cdef object structure(self, int sid):
        cdef SRec* s
        structure = self.structures[sid]
        if structure is not None:
            return structure
        s = _srec(self.w, sid)
        start = start_number(self.value(s.number_list, "start")) if s.number_list >= 0 else 1
        language = classes_language(self.pre_classes(s.language_rec)) if s.language_rec >= 0 else ""
        structure = self.structures[sid] = _record(Structure, (
            s.heading, s.list_depth, bool(s.ordered), s.item, start + s.number_count - 1,
            s.quote, s.pre, language, s.table, s.row, s.col, bool(s.header),
            spans(self.value(s.span_rec, "colspan"), self.value(s.span_rec, "rowspan"))
            if s.span_rec >= 0 else False))
        return structure

    cdef str value(self, int rec, const char* name):
        """``el.get(name)`` of the element at ``rec``."""
        return _attr_text(_attr(_rec(self.w, rec).node, name))

    cdef tuple pre_classes(self, int rec):
        """The ``class`` values ``code_language`` reads, in its order: the ``<pre>``'s, its
        first child's if that is a ``<code>`` (``el[0]``: comments and PIs count), its
        parent's and its grandparent's."""
        cdef ElRec* e = _rec(self.w, rec)
        cdef xmlNode* first = e.node.children
        classes = [self.value(rec, "class")]
        while first != NULL and not cetree._isElement(first):
            first = first.next
        if (first != NULL and first.type == tree.XML_ELEMENT_NODE and cetree._getNs(first) == NULL
                and strcmp(<const char*>first.name, "code") == 0):
            classes.append(_attr_text(_attr(first, "class")))
        for _ in range(2):
            if e.parent < 0:
                break
            classes.append(self.value(e.parent, "class"))
            e = _rec(self.w, e.parent)
        return tuple(classes)

    cdef list blocks(self):
        cdef Walk* w = self.w
        cdef BRec* b
        cdef LRec* link
        cdef IRec* img
        cdef xmlNode* node
        cdef xmlAttr* style
        cdef Py_ssize_t i, k, n = w.blocks.n
        cdef list out = []
        cdef char* arena = w.arena.data
        for i in range(n):
            b = <BRec*>w.blocks.data + i
            block = _new_block((
                i, _text(arena + b.text_off, b.text_len), self.tag(b.el), "", self.lineage(b.el),
                b.words, b.link_words, b.text_chars, b.markup, b.tags,
                b.link_words / b.words if b.words else 0.0,
                b.in_lines / b.lines,
                (b.text_chars + 1) / (b.text_chars + b.markup + 1),
                b.lines, b.link_chars,
            ))
            if b.sid:
                structure = self.structure(b.sid)
                _set_field(block, _F_STRUCTURE, structure)
                if structure.pre:
                    _set_field(block, _F_PREFORMATTED, _text(
                        w.pre_arena.data + b.pre_off, b.pre_len).strip("\n").rstrip())
            if b.links_to > b.links_from:
                links = []
                for k in range(b.links_from, b.links_to):
                    link = <LRec*>w.links.data + k
                    links.append(_untracked((_text(arena + link.off, link.len),
                                             _attr_text(link.href))))
                _set_field(block, _F_LINKS, _untracked(tuple(links)))
            if b.images_to > b.images_from:
                images = []
                for k in range(b.images_from, b.images_to):
                    img = <IRec*>w.images.data + k
                    images.append(_untracked((_attr_text(img.alt) or "", _attr_text(img.src))))
                _set_field(block, _F_IMAGES, _untracked(tuple(images)))
            node = _rec(w, b.el).node
            style = _attr(node, "style")  # ``style_hides`` asked only of a style there is
            if _attr(node, "hidden") != NULL or (style != NULL and style_hides(_attr_text(style))):
                _set_field(block, _F_HIDDEN, True)
            _set_field(block, _F_POSITION, i / n)
            _set_field(block, _F_XPATH, self.xpath(b.el))
            out.append(block)
        return out


def segment(cetree._Element root not None):
    """The Blocks of ``root``'s tree, as ``segment.python_segment`` makes them; None when the
    tree holds what only the reference handles (the caller then runs it).

    The tree is read without the GIL: no other thread may change it meanwhile
    (a Scrapy response's tree belongs to the one callback that handles it).
    """
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
