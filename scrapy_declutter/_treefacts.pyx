# cython: language_level=3, boundscheck=False, wraparound=False
"""``treefacts.python_tree_facts`` compiled: the facts a Page needs before segmenting, in
one walk of the tree.

The reference asks libxml2's XPath for ``count(//*)`` (the element cap of
``limits``) and for ``//head/title``, ``//title`` and ``og:title`` (the page's
title). An XPath starting with ``//`` gathers every node of the document into
a node set before it tests one, so each costs about as much as the walk
that segments the page. Here one pointer walk of the libxml2 tree, without
the GIL, counts the elements and notes the first of each kind of title.

As ``_segment`` and ``_scan`` do, it reads the tree only through lxml's
public C API (``_Element._c_node``, ``elementFactory``) and libxml2's stable
node fields, calling no libxml2 function. It walks every top-level element
of the document, as ``//`` does (libxml2 puts what follows a stray
``</html>`` in a second ``<html>`` beside the root). Trees an HTML parse
never makes (a root that is not at the top of its document, namespaced
elements, entity references, an attribute read here held in several nodes)
are left to the reference: ``facts`` returns None.
"""

from libc.string cimport strcmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlAttr, xmlNode

cetree.import_lxml__etree()


cdef struct Found:
    long elements
    xmlNode* head_title
    xmlNode* title
    xmlAttr* og_title  # the ``content`` attribute of the first ``og:title`` meta that has one
    int bail


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


cdef void _visit(Found* f, xmlNode* node) noexcept nogil:
    """One element: counted, and noted when it is the first title or og:title of its kind."""
    cdef const char* name = <const char*>node.name
    cdef xmlAttr* a
    f.elements += 1
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
    while not f.bail:
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


def facts(cetree._Element root not None):
    """(elements in the document, first ``//head/title``, first ``//title``, first
    ``og:title`` meta's content), the elements as lxml proxies and None where there is
    none; None for a tree left to the reference."""
    cdef Found f
    cdef xmlNode* node = root._c_node
    cdef xmlNode* top
    if node == NULL or node.parent == NULL or (
            node.parent.type != tree.XML_DOCUMENT_NODE and node.parent.type != tree.XML_HTML_DOCUMENT_NODE):
        return None
    f.elements, f.head_title, f.title, f.og_title, f.bail = 0, NULL, NULL, NULL, 0
    with nogil:
        top = node.parent.children
        while top != NULL and not f.bail:
            if top.type == tree.XML_ELEMENT_NODE:
                if top.ns != NULL:
                    f.bail = 1
                else:
                    _walk(&f, top)
            elif top.type == tree.XML_ENTITY_REF_NODE:
                f.bail = 1
            top = top.next
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
            og)
