# Names kept across pages (tags, ids, class lists); included by _segment.pyx.
#
# Each element above a block becomes an Ancestor holding its tag, id and
# class names, and decoding and splitting those strings for every element of
# every page cost a third of making the Blocks. Pages (of a site, and of the
# themes many sites share) repeat them: ``_named`` keeps the Python string
# or tuple of class names made from each value, found by the bytes of the
# value in a table of its own (FNV-1a, open addressing). The objects are the
# ones decoding gives (equal strings, immutable), now shared; and a string
# that was hashed once keeps its hash, so the learned step's per-name memo
# (``_chains``) no longer hashes each page's fresh copies. The table is
# emptied when it holds ``NAMES_MAX`` values; only values up to
# ``NAME_MAX_BYTES`` long are kept. It is read and written with the GIL held,
# with no Python call between finding a slot and filling it.

DEF NAMES_SIZE = 16384
DEF NAMES_MAX = 8192
DEF NAME_MAX_BYTES = 200

cdef enum:
    NAME_TEXT = 0       # the value as a string
    NAME_CLASSES = 1    # the value's whitespace-separated names, a tuple of strings

cdef struct NameSlot:
    char* key
    unsigned int hash
    int kind
    PyObject* value

cdef NameSlot _names[NAMES_SIZE]
cdef Py_ssize_t _names_used = 0


cdef inline unsigned int _name_hash(const char* s, int kind, size_t* length) noexcept:
    cdef unsigned int h = 2166136261u ^ <unsigned int>kind
    cdef const char* p = s
    while p[0]:
        h = (h ^ <unsigned char>p[0]) * 16777619u
        p += 1
    length[0] = <size_t>(p - s)
    return h


cdef void _clear_names() noexcept:
    global _names_used
    cdef Py_ssize_t i
    for i in range(NAMES_SIZE):
        if _names[i].key != NULL:
            free(_names[i].key)
            Py_XDECREF(_names[i].value)
    memset(_names, 0, sizeof(_names))
    _names_used = 0


cdef object _named(const char* s, int kind):
    """The string (``NAME_TEXT``) or tuple of class names (``NAME_CLASSES``) of the UTF-8
    value ``s``, made by ``decode``/``split`` as the reference makes it, kept for the next time."""
    global _names_used
    cdef size_t length
    cdef unsigned int h = _name_hash(s, kind, &length)
    cdef Py_ssize_t i = h & (NAMES_SIZE - 1)
    cdef char* key
    while _names[i].key != NULL:
        if _names[i].hash == h and _names[i].kind == kind and strcmp(_names[i].key, s) == 0:
            return <object>_names[i].value
        i = (i + 1) & (NAMES_SIZE - 1)
    text = s[:length].decode("utf-8")
    value = tuple(text.split()) if kind == NAME_CLASSES else text
    if length > NAME_MAX_BYTES:
        return value
    if _names_used >= NAMES_MAX:
        _clear_names()
    i = h & (NAMES_SIZE - 1)
    while _names[i].key != NULL:
        i = (i + 1) & (NAMES_SIZE - 1)
    key = <char*>malloc(length + 1)
    if key == NULL:
        return value
    memcpy(key, s, length + 1)
    Py_INCREF(value)
    _names[i].key, _names[i].hash, _names[i].kind = key, h, kind
    _names[i].value = <PyObject*>value
    _names_used += 1
    return value


def named_values_kept():
    """How many names ``_named`` holds (for the tests)."""
    return _names_used
