# The XPaths of the blocks' elements, written as bytes; included by _segment.pyx.
#
# ``segment.python_segment`` gives each element above a block its XPath as a
# string, its parent's with ``/tag`` or ``/tag[n]`` added. Here the XPath of
# each such element is written once into one byte array (``w.xpath``: the
# parent's bytes copied, then the step), and only a block's own element gets a
# Python string, decoded from those bytes: formatting a string for every
# element above a block was a sixth of making the Blocks.

cdef int _write_xpath(Walk* w, int rec, int parent, const char* own, Py_ssize_t own_len,
                  int nth) except -1:
    """``rec``'s XPath at the end of ``w.xpath``: ``own`` (the root's), else the parent's,
    ``/``, its tag as ``_tag`` writes it and ``[nth]`` when ``nth``."""
    cdef xmlNode* node = _rec(w, rec).node
    cdef const_xmlChar* href
    cdef Py_ssize_t start = w.xpath.n, plen, nlen, hlen = 0
    cdef char digits[16]
    cdef int k = 16
    if parent < 0:
        if vec_extend(&w.xpath, own, own_len) < 0:
            raise MemoryError()
    else:
        href = cetree._getNs(node)
        plen = (<Py_ssize_t*>w.xp_len.data)[parent]
        nlen = strlen(<const char*>node.name)
        if href != NULL:
            hlen = strlen(<const char*>href) + 2
        while nth:
            k -= 1
            digits[k] = <char>(48 + nth % 10)
            nth //= 10
        if vec_reserve(&w.xpath, start + plen + 1 + hlen + nlen + (18 - k)) < 0:
            raise MemoryError()
        # the parent's bytes copied from the same arena: after the reserve, which may move it
        memcpy(w.xpath.data + start, w.xpath.data + (<Py_ssize_t*>w.xp_off.data)[parent], plen)
        w.xpath.n += plen
        w.xpath.data[w.xpath.n] = 47  # '/'
        w.xpath.n += 1
        if href != NULL:
            w.xpath.data[w.xpath.n] = 123  # '{'
            memcpy(w.xpath.data + w.xpath.n + 1, href, hlen - 2)
            w.xpath.n += hlen
            w.xpath.data[w.xpath.n - 1] = 125  # '}'
        memcpy(w.xpath.data + w.xpath.n, node.name, nlen)
        w.xpath.n += nlen
        if k < 16:
            w.xpath.data[w.xpath.n] = 91  # '['
            memcpy(w.xpath.data + w.xpath.n + 1, digits + k, 16 - k)
            w.xpath.n += 17 - k
            w.xpath.data[w.xpath.n] = 93  # ']'
            w.xpath.n += 1
    (<Py_ssize_t*>w.xp_off.data)[rec] = start
    (<Py_ssize_t*>w.xp_len.data)[rec] = w.xpath.n - start
    return 0
