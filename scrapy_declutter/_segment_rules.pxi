# ---------------------------------------------------------------------------
# ``structure``'s rules about one element, read from the tree. A rule called with an
# element made for it cost 10-25 thousand instructions, and a docs page asks dozens
# (a permalink beside every heading, a language for every code block); the rules that
# read only attribute values are called with the values, and ``is_permalink`` is
# answered here where the bytes settle it.


cdef bint _ascii_alnum_text(xmlNode* node) noexcept nogil:
    """Whether a text ``node.itertext()`` reads holds an ASCII letter or digit; False, to
    leave the answer to the rule, at a child an HTML parse never makes.

    Every text and CDATA node below the element is in ``itertext()``: as an element's
    ``text`` or as the ``tail`` of the element, comment or PI before it; comments' and
    PIs' own contents are not, and are not nodes below it."""
    cdef xmlNode* c = node.children
    cdef const unsigned char* s
    while c != NULL:
        if c.type == tree.XML_TEXT_NODE or c.type == tree.XML_CDATA_SECTION_NODE:
            s = <const unsigned char*>c.content
            while s != NULL and s[0]:
                if ascii_alnum(s[0]):
                    return True
                s += 1
        elif c.type == tree.XML_ELEMENT_NODE:
            if c.children != NULL:
                c = c.children
                continue
        elif c.type != tree.XML_COMMENT_NODE and c.type != tree.XML_PI_NODE:
            return False
        while c.next == NULL:
            c = c.parent
            if c == node:
                return False
        c = c.next
    return False


cdef bint _permalink(Walk* w, xmlNode* node) noexcept nogil:
    """``is_permalink`` of an ``<a href="#...">``: its ``aria-hidden`` and ``class`` say yes,
    or an ASCII letter or digit in its text says no (no sign holds one, and ``strip``
    keeps them); otherwise the rule is asked, with the GIL."""
    cdef const_xmlChar* v = _value(w, _attr(node, "aria-hidden"))
    if v != NULL and strcmp(<const char*>v, "true") == 0:
        return True
    v = _value(w, _attr(node, "class"))
    if v != NULL and strstr(<const char*>v, "headerlink") != NULL:
        return True
    if w.bail or _ascii_alnum_text(node):
        return False
    with gil:
        try:
            return is_permalink(cetree.elementFactory(<cetree._Document>w.doc, node))
        except BaseException:
            w.bail = 1
            return False
