# cython: language_level=3, boundscheck=False, wraparound=False
"""``pagetype.python_tree_scan`` compiled: the page-type facts' one walk of the tree, in C.

The reference asks libxml2 for ``//@role | //@itemprop | //@itemtype`` (an
XPath that walks the whole document once per name) and lxml for the
elements of ``pagetype.SCANNED_TAGS`` (an iterator making a Python proxy per
``<a>``, ``<p>``, ``<li>`` only to count it): a tenth of the learned step.
Here one pointer walk of the libxml2 tree, without the GIL, counts the
tags and notes the few elements the facts read, and only those get a proxy.

As ``_segment`` does, it reads the tree only through lxml's public C API
(``_Element._c_node``, ``elementFactory``, ``_isElement``) and libxml2's
stable node fields, calling no libxml2 function. Trees an HTML parse never
makes (namespaced elements, entity references, an attribute of several
nodes, several top-level elements: where the XPath over the whole document
and the iterator over the root could part) are left to the reference:
``scan`` returns None.
"""

from libc.stdlib cimport free, realloc
from libc.string cimport strcmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlAttr, xmlNode

cetree.import_lxml__etree()

DEF MAX_TAGS = 64

cdef bytes _names_blob = b""
cdef const char* _names[MAX_TAGS]
cdef int _count_of[MAX_TAGS]  # index into the counts, -1: not counted
cdef int _kept[MAX_TAGS]  # 1: the element itself is returned
cdef int _n_names = 0
#: The names' indices by first byte.
cdef int _buckets[256][MAX_TAGS]
cdef int _bucket_size[256]
cdef list _encoded = []


def configure(tuple counted, tuple kept):
    """Set the tags counted (``COUNTED_TAGS``, in order) and the tags whose elements are
    returned (``script``, ``meta``, ``article``, ``main``); called once, by ``pagetype``."""
    global _n_names
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


cdef struct Found:
    xmlNode** nodes
    int* what  # 0: a kept element, 1: role or itemprop, 2: an itemtype attribute's element
    Py_ssize_t n, cap
    int bail, nomem


cdef inline void _note(Found* f, xmlNode* node, int what) noexcept nogil:
    cdef Py_ssize_t cap
    cdef xmlNode** nodes
    cdef int* kinds
    if f.n == f.cap:
        cap = 2 * f.cap + 64
        nodes = <xmlNode**>realloc(f.nodes, cap * sizeof(xmlNode*))
        if nodes == NULL:
            f.nomem = 1
            return
        f.nodes = nodes
        kinds = <int*>realloc(f.what, cap * sizeof(int))
        if kinds == NULL:
            f.nomem = 1
            return
        f.what, f.cap = kinds, cap
    f.nodes[f.n] = node
    f.what[f.n] = what
    f.n += 1


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


cdef void _visit(Found* f, xmlNode* node, long* counts) noexcept nogil:
    """One element: its tag counted or kept, then its attributes in list order."""
    cdef int i = _tag_index(<const char*>node.name)
    cdef xmlAttr* a
    cdef int marked = 0
    if i >= 0:
        if _count_of[i] >= 0:
            counts[_count_of[i]] += 1
        if _kept[i]:
            _note(f, node, 0)
    a = node.properties
    while a != NULL:
        if a.type == tree.XML_ATTRIBUTE_NODE and a.ns == NULL:
            if strcmp(<const char*>a.name, "itemtype") == 0:
                if a.children != NULL and (a.children.next != NULL
                                           or a.children.type != tree.XML_TEXT_NODE):
                    f.bail = 1
                _note(f, <xmlNode*>a, 2)
            elif not marked and (strcmp(<const char*>a.name, "role") == 0
                                 or strcmp(<const char*>a.name, "itemprop") == 0):
                marked = 1
                _note(f, node, 1)
        a = a.next


cdef void _walk(Found* f, xmlNode* root, long* counts) noexcept nogil:
    """Every element under ``root`` (itself first), in document order."""
    cdef xmlNode* cur = root
    cdef xmlNode* c
    _visit(f, root, counts)
    c = root.children
    while not (f.bail or f.nomem):
        while c != NULL and c.type != tree.XML_ELEMENT_NODE:
            if c.type == tree.XML_ENTITY_REF_NODE:
                f.bail = 1  # never from an HTML parse
                return
            c = c.next  # text, comment, PI: nothing to scan
        if c != NULL:
            if c.ns != NULL:
                f.bail = 1
                return
            cur = c
            _visit(f, c, counts)
            c = c.children
            continue
        if cur == root:
            break
        c = cur.next
        cur = cur.parent


cdef bint _alone(xmlNode* root):
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


def scan(cetree._Element root not None):
    """(counts of the counted tags, kept elements, elements with a role or an itemprop,
    itemtype values), each in document order; None for a tree left to the reference."""
    cdef Found f
    cdef xmlNode* node = root._c_node
    cdef xmlAttr* a
    cdef long counts[MAX_TAGS]
    cdef Py_ssize_t i
    cdef int n_counted
    if _n_names == 0:
        raise RuntimeError("scrapy_declutter.steps.learned._scan.configure() was not called")
    if node == NULL or node.type != tree.XML_ELEMENT_NODE or node.ns != NULL or not _alone(node):
        return None
    n_counted = 0
    for i in range(_n_names):
        if _count_of[i] >= 0:
            n_counted += 1
        counts[i] = 0
    f.nodes, f.what, f.n, f.cap, f.bail, f.nomem = NULL, NULL, 0, 0, 0, 0
    try:
        with nogil:
            _walk(&f, node, counts)
        if f.nomem:
            raise MemoryError()
        if f.bail:
            return None
        kept, marked, itemtypes = [], [], []
        doc = root._doc
        for i in range(f.n):
            if f.what[i] == 2:
                a = <xmlAttr*>f.nodes[i]
                itemtypes.append("" if a.children == NULL or a.children.content == NULL
                                 else (<const char*>a.children.content).decode("utf-8"))
            else:
                (kept if f.what[i] == 0 else marked).append(cetree.elementFactory(doc, f.nodes[i]))
        return [counts[i] for i in range(n_counted)], kept, marked, itemtypes
    except UnicodeDecodeError:
        return None
    finally:
        free(f.nodes)
        free(f.what)
