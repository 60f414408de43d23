# cython: language_level=3, boundscheck=False, wraparound=False
"""``treefacts.python_tree_facts`` compiled: the facts a Page needs before segmenting, in
one walk of the tree, and in the same walk the learned step's page-type scan.

The reference asks libxml2's XPath for ``count(//*)`` (the element cap of
``limits``) and for ``//head/title``, ``//title`` and ``og:title`` (the page's
title). An XPath starting with ``//`` gathers every node of the document into
a node set before it tests one, so each costs about as much as the walk
that segments the page. Here one pointer walk of the libxml2 tree, without
the GIL, counts the elements and notes the first of each kind of title.

The scan (``scan``; ``pagetype.python_tree_scan`` is its reference) counts
the tags ``configure_scan`` names, notes the elements of the kept ones and
those with a ``role``, an ``itemprop`` or an ``itemtype``. It had a walk of
its own, late in the learned step, when segmentation and the features had
pushed the tree out of the caches: that walk cost about a tenth of a
millisecond a page waiting on memory. Made here, right after the parse, it
reads nodes this walk has just loaded (``facts`` returns it beside the
facts); ``scan`` alone remains for a tree the facts did not walk.

As ``_segment`` does, it reads the tree only through lxml's public C API
(``_Element._c_node``, ``elementFactory``) and libxml2's stable node fields,
calling no libxml2 function. The facts walk every top-level element of the
document, as ``//`` does (libxml2 puts what follows a stray ``</html>`` in a
second ``<html>`` beside the root); the scan reads the root's subtree, so
``facts`` scans only a root alone in its document. Trees an HTML parse never
makes (a root that is not at the top of its document, namespaced elements,
entity references, an attribute read here held in several nodes) are left to
the reference: ``facts`` and ``scan`` return None (``facts`` a None scan when
only the scan's attribute is of several nodes).
"""

from libc.stdlib cimport free, realloc
from libc.string cimport strcmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlAttr, xmlNode

cetree.import_lxml__etree()

DEF MAX_TAGS = 64

# The scan's tags (``configure_scan``).
cdef const char* _names[MAX_TAGS]
cdef int _count_of[MAX_TAGS]  # index into the counts, -1: not counted
cdef int _kept[MAX_TAGS]  # 1: the element itself is returned
cdef int _n_names = 0
cdef int _n_counted = 0
#: The names' indices by first byte.
cdef int _buckets[256][MAX_TAGS]
cdef int _bucket_size[256]
cdef list _encoded = []


def configure_scan(tuple counted, tuple kept):
    """Set the tags the scan counts (in order) and the tags whose elements it returns;
    called once, by ``pagetype`` (through ``treefacts.configure_scan``)."""
    global _n_names, _n_counted
    names = list(dict.fromkeys(counted + kept))
    if len(names) > MAX_TAGS:
        raise ValueError(f"at most {MAX_TAGS} scanned tags")
    _encoded.clear()
    for i in range(256):
        _bucket_size[i] = 0
    for i, name in enumerate(names):
        _encoded.append(name.encode("ascii"))
        _names[i] = <const char*>_encoded[i]
        _count_of[i] = counted.index(name) if name in counted else -1
        _kept[i] = 1 if name in kept else 0
        first = _encoded[i][0]
        _buckets[first][_bucket_size[first]] = i
        _bucket_size[first] += 1
    _n_names = len(names)
    _n_counted = len(counted)


cdef struct Scan:
    xmlNode** nodes
    int* what  # 0: a kept element, 1: role or itemprop, 2: an itemtype attribute's element
    Py_ssize_t n, cap
    long counts[MAX_TAGS]
    int bail, nomem


cdef struct Found:
    int facts  # 0: the scan alone
    long elements
    int wide  # 1: the children of the elements visited are counted (the root's tree)
    long widest  # the most children (elements, comments, PIs) of one element counted
    xmlNode* head_title
    xmlNode* title
    xmlAttr* og_title  # the ``content`` attribute of the first ``og:title`` meta that has one
    int bail
    Scan* scan  # NULL: no scan


cdef inline bint _named(xmlNode* node, const char* name) noexcept nogil:
    return node.type == tree.XML_ELEMENT_NODE and strcmp(<const char*>node.name, name) == 0


cdef xmlAttr* _attribute(xmlNode* node, const char* name, Found* f) noexcept nogil:
    """``node``'s attribute ``name`` (no namespace), NULL when it has none; bails on a
    value of several nodes, which the reference reads through libxml2."""
    cdef xmlAttr* a = node.properties
    while a != NULL:
        if a.type == tree.XML_ATTRIBUTE_NODE and a.ns == NULL and strcmp(<const char*>a.name, name) == 0:
            if a.children != NULL and (a.children.next != NULL
                                       or a.children.type != tree.XML_TEXT_NODE):
                f.bail = 1
            return a
        a = a.next
    return NULL


cdef inline bint _value_is(xmlAttr* a, const char* value) noexcept nogil:
    if a.children == NULL or a.children.content == NULL:
        return value[0] == 0
    return strcmp(<const char*>a.children.content, value) == 0


cdef inline void _note(Scan* s, xmlNode* node, int what) noexcept nogil:
    cdef Py_ssize_t cap
    cdef xmlNode** nodes
    cdef int* kinds
    if s.n == s.cap:
        cap = 2 * s.cap + 64
        nodes = <xmlNode**>realloc(s.nodes, cap * sizeof(xmlNode*))
        if nodes == NULL:
            s.nomem = 1
            return
        s.nodes = nodes
        kinds = <int*>realloc(s.what, cap * sizeof(int))
        if kinds == NULL:
            s.nomem = 1
            return
        s.what, s.cap = kinds, cap
    s.nodes[s.n] = node
    s.what[s.n] = what
    s.n += 1


cdef inline int _tag_index(const char* name) noexcept nogil:
    """The tag's index among the configured names, -1 when it is none of them: only the
    names with the same first letter are compared (most tags are no scanned tag)."""
    cdef unsigned char first = <unsigned char>name[0]
    cdef int k, i
    for k in range(_bucket_size[first]):
        i = _buckets[first][k]
        if strcmp(name, _names[i]) == 0:
            return i
    return -1


cdef void _scan_visit(Scan* s, xmlNode* node) noexcept nogil:
    """One element for the scan: its tag counted or kept, then its attributes in list order."""
    cdef int i = _tag_index(<const char*>node.name)
    cdef xmlAttr* a
    cdef int marked = 0
    if i >= 0:
        if _count_of[i] >= 0:
            s.counts[_count_of[i]] += 1
        if _kept[i]:
            _note(s, node, 0)
    cdef char first
    a = node.properties
    while a != NULL:
        # Most attributes (class, href, id, style) start with none of i and r: one
        # comparison of their first letter, not a string comparison per name asked for.
        first = (<const char*>a.name)[0]
        if a.type == tree.XML_ATTRIBUTE_NODE and a.ns == NULL and (first == b"i" or first == b"r"):
            if strcmp(<const char*>a.name, "itemtype") == 0:
                if a.children != NULL and (a.children.next != NULL
                                           or a.children.type != tree.XML_TEXT_NODE):
                    s.bail = 1
                _note(s, <xmlNode*>a, 2)
            elif not marked and (strcmp(<const char*>a.name, "role") == 0
                                 or strcmp(<const char*>a.name, "itemprop") == 0):
                marked = 1
                _note(s, node, 1)
        a = a.next


cdef void _visit(Found* f, xmlNode* node) noexcept nogil:
    """One element: counted, noted when it is the first title or og:title of its kind,
    and scanned when a scan is asked for."""
    cdef const char* name = <const char*>node.name
    cdef xmlAttr* a
    if f.scan != NULL:
        _scan_visit(f.scan, node)
    cdef xmlNode* c
    cdef long children = 0
    if not f.facts:
        return
    f.elements += 1
    if f.wide:  # ``len(el)``: what is not text
        c = node.children
        while c != NULL:
            if (c.type == tree.XML_ELEMENT_NODE or c.type == tree.XML_COMMENT_NODE
                    or c.type == tree.XML_PI_NODE or c.type == tree.XML_ENTITY_REF_NODE):
                children += 1
            c = c.next
        if children > f.widest:
            f.widest = children
    if name[0] == b"t" and strcmp(name, "title") == 0:
        if f.title == NULL:
            f.title = node
        if f.head_title == NULL and node.parent != NULL and _named(node.parent, "head"):
            f.head_title = node
    elif f.og_title == NULL and name[0] == b"m" and strcmp(name, "meta") == 0:
        a = _attribute(node, "property", f)
        if a != NULL and _value_is(a, "og:title"):
            f.og_title = _attribute(node, "content", f)


cdef void _walk(Found* f, xmlNode* top) noexcept nogil:
    """Every element under ``top`` (itself first), in document order."""
    cdef xmlNode* cur = top
    cdef xmlNode* c
    _visit(f, top)
    c = top.children
    while not f.bail and (f.scan == NULL or not f.scan.nomem):
        while c != NULL and c.type != tree.XML_ELEMENT_NODE:
            if c.type == tree.XML_ENTITY_REF_NODE:
                f.bail = 1  # never from an HTML parse
                return
            c = c.next  # text, comment, PI: no element
        if c != NULL:
            if c.ns != NULL:
                f.bail = 1
                return
            cur = c
            _visit(f, c)
            c = c.children
            continue
        if cur == top:
            break
        c = cur.next
        cur = cur.parent


cdef bint _alone(xmlNode* root) noexcept:
    """Whether ``root`` is its document's only top-level element."""
    cdef xmlNode* c
    if root.parent == NULL or (root.parent.type != tree.XML_DOCUMENT_NODE and
                               root.parent.type != tree.XML_HTML_DOCUMENT_NODE):
        return False
    c = root.parent.children
    while c != NULL:
        if c != root and c.type == tree.XML_ELEMENT_NODE:
            return False
        c = c.next
    return True


cdef void _start(Found* f, int facts, Scan* s) noexcept:
    cdef Py_ssize_t i
    f.facts, f.elements, f.head_title, f.title, f.og_title, f.bail, f.scan = (
        facts, 0, NULL, NULL, NULL, 0, s)
    f.wide, f.widest = 0, 0
    if s != NULL:
        s.nodes, s.what, s.n, s.cap, s.bail, s.nomem = NULL, NULL, 0, 0, 0, 0
        for i in range(_n_counted):
            s.counts[i] = 0


cdef object _scanned(Scan* s, cetree._Element root):
    """(counts of the counted tags, kept elements, elements with a role or an itemprop,
    itemtype values) of a finished scan; None when it was left to the reference."""
    cdef xmlAttr* a
    cdef Py_ssize_t i
    if s.nomem:
        raise MemoryError()
    if s.bail:
        return None
    kept, marked, itemtypes = [], [], []
    doc = root._doc
    try:
        for i in range(s.n):
            if s.what[i] == 2:
                a = <xmlAttr*>s.nodes[i]
                itemtypes.append("" if a.children == NULL or a.children.content == NULL
                                 else (<const char*>a.children.content).decode("utf-8"))
            else:
                (kept if s.what[i] == 0 else marked).append(cetree.elementFactory(doc, s.nodes[i]))
    except UnicodeDecodeError:
        return None
    return [s.counts[i] for i in range(_n_counted)], kept, marked, itemtypes


def facts(cetree._Element root not None):
    """(elements in the document, first ``//head/title``, first ``//title``, first
    ``og:title`` meta's content, the scan of ``root`` as ``scan`` gives it, the most
    children of one element of ``root``'s tree as ``len`` counts them), the elements
    as lxml proxies and None where there is none; the scan is None when no scan is
    configured, ``root`` is not alone in its document or the scan is left to the
    reference. None for a tree whose facts are left to the reference."""
    cdef Found f
    cdef Scan s
    cdef xmlNode* node = root._c_node
    cdef xmlNode* top
    if node == NULL or node.parent == NULL or (
            node.parent.type != tree.XML_DOCUMENT_NODE and node.parent.type != tree.XML_HTML_DOCUMENT_NODE):
        return None
    _start(&f, 1, &s if _n_names and node.type == tree.XML_ELEMENT_NODE and _alone(node) else NULL)
    try:
        with nogil:
            top = node.parent.children
            while top != NULL and not f.bail:
                if top.type == tree.XML_ELEMENT_NODE:
                    if top.ns != NULL:
                        f.bail = 1
                    else:
                        f.wide = top == node
                        _walk(&f, top)
                elif top.type == tree.XML_ENTITY_REF_NODE:
                    f.bail = 1
                top = top.next
        if f.scan != NULL and s.nomem:
            raise MemoryError()
        if f.bail:
            return None
        doc = root._doc
        og = None
        if f.og_title != NULL:
            try:
                og = ("" if f.og_title.children == NULL or f.og_title.children.content == NULL
                      else (<const char*>f.og_title.children.content).decode("utf-8"))
            except UnicodeDecodeError:
                return None
        return (f.elements,
                cetree.elementFactory(doc, f.head_title) if f.head_title != NULL else None,
                cetree.elementFactory(doc, f.title) if f.title != NULL else None,
                og, _scanned(&s, root) if f.scan != NULL else None,
                f.widest if node.type == tree.XML_ELEMENT_NODE else None)
    finally:
        if f.scan != NULL:
            free(s.nodes)
            free(s.what)


def scan(cetree._Element root not None):
    """(counts of the counted tags, kept elements, elements with a role or an itemprop,
    itemtype values), each in document order, of ``root``'s subtree; None for a tree left
    to the reference (``root`` not alone in its document among them: the reference's
    attribute XPath reads the whole document, its tag iterator the root's subtree)."""
    cdef Found f
    cdef Scan s
    cdef xmlNode* node = root._c_node
    if _n_names == 0:
        raise RuntimeError("scrapy_declutter._treefacts.configure_scan() was not called")
    if node == NULL or node.type != tree.XML_ELEMENT_NODE or node.ns != NULL or not _alone(node):
        return None
    _start(&f, 0, &s)
    try:
        with nogil:
            _walk(&f, node)
        if s.nomem:
            raise MemoryError()
        if f.bail:
            return None
        return _scanned(&s, root)
    finally:
        free(s.nodes)
        free(s.what)
