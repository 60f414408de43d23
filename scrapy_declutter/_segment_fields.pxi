# Blocks made field by field, without the dataclass __init__; included by _segment.pyx.
#
# ``Block(...)`` from C is a call into the ``__init__`` the dataclass
# generates: a Python frame storing its 36 fields one bytecode at a time, then
# one ``setattr`` per field the walk sets afterwards, nearly a tenth of the
# walk. ``Block`` has ``__slots__``, so a block is made with ``Block.__new__``
# and its fields written where their slots lie (``_slots``), the defaults
# being the dataclass's own objects. The layout is read and checked once, at
# import; a ``Block`` that is not that plain (a field that is not an object
# slot, a default factory, a ``__post_init__``, a ``__new__`` of its own)
# turns this off and the walk calls ``Block(...)`` as before. A block is
# allocated by the class's ``tp_alloc``, what ``object.__new__`` comes to for
# such a class, not by a call of ``Block.__new__`` from C.

import dataclasses

from cpython.object cimport PyObject

from scrapy_declutter._slots cimport slot_at, slot_offset, write_slot

DEF MAX_FIELDS = 64

cdef extern from "Python.h":
    ctypedef struct _Allocating "PyTypeObject":
        object (*tp_alloc)(_Allocating*, Py_ssize_t)

cdef Py_ssize_t _offset_of[MAX_FIELDS]
cdef tuple _field_defaults = ()
cdef bint _by_offset = False
#: How many leading fields have no default (a block must be given at least these).
cdef Py_ssize_t _required = 0


cdef bint _read_layout() except -1:
    """Fill the offsets and defaults of ``Block``'s fields; False when it is not plain slots."""
    global _field_defaults, _required
    fields = dataclasses.fields(Block)
    if (len(fields) > MAX_FIELDS or hasattr(Block, "__post_init__")
            or Block.__new__ is not object.__new__):
        return False
    defaults = []
    for k, f in enumerate(fields):
        _offset_of[k] = slot_offset(Block, f.name)
        if _offset_of[k] < 0 or f.default_factory is not dataclasses.MISSING:
            return False
        if f.default is dataclasses.MISSING:
            if defaults:  # a field without a default after one with: not a dataclass rule
                return False
            _required = k + 1
        else:
            defaults.append(f.default)
    _field_defaults = (None,) * _required + tuple(defaults)
    return True


_by_offset = _read_layout()


cdef inline PyObject** _slot(object block, Py_ssize_t k):
    return slot_at(block, _offset_of[k])


cdef object _new_block(tuple values):
    """A ``Block`` with ``values`` as its first fields, in order, and the defaults after."""
    cdef Py_ssize_t k, n = len(values), count = len(_field_defaults)
    cdef PyObject* value
    if not _by_offset or not _required <= n <= count:
        return Block(*values)
    block = (<_Allocating*><PyObject*>Block).tp_alloc(<_Allocating*><PyObject*>Block, 0)
    for k in range(count):
        value = PyTuple_GET_ITEM(values, k) if k < n else PyTuple_GET_ITEM(_field_defaults, k)
        Py_INCREF(<object>value)
        _slot(block, k)[0] = value
    return block


cdef inline void _set_field(object block, Py_ssize_t field, object value) except *:
    """``setattr(block, name, value)`` for the field at index ``field`` (an ``_F_*``),
    written at the slot's offset when the layout allows."""
    if not _by_offset:
        setattr(block, _FIELD_NAMES[field], value)
        return
    write_slot(block, _offset_of[field], value)


#: The fields the walk sets after making a block, by index (a dict lookup by name
#: per field and block was a tenth of making them).
cdef tuple _FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Block))
cdef Py_ssize_t _F_STRUCTURE = _FIELD_NAMES.index("structure")
cdef Py_ssize_t _F_PREFORMATTED = _FIELD_NAMES.index("preformatted")
cdef Py_ssize_t _F_LINKS = _FIELD_NAMES.index("links")
cdef Py_ssize_t _F_IMAGES = _FIELD_NAMES.index("images")
cdef Py_ssize_t _F_HIDDEN = _FIELD_NAMES.index("hidden")
cdef Py_ssize_t _F_POSITION = _FIELD_NAMES.index("position")
cdef Py_ssize_t _F_XPATH = _FIELD_NAMES.index("xpath")


#: Whether Blocks are made at their slots' offsets here (False: through ``Block(...)``).
FIELDS_BY_OFFSET = _by_offset


cdef object _record(object cls, tuple values):
    """``tuple.__new__(cls, values)`` for a NamedTuple ``cls`` (Ancestor, Structure),
    untracked (``_untracked``): what CPython's ``tuple_subtype_new`` does, the class's
    ``tp_alloc`` and the items set, without a call through ``tuple.__new__`` from C
    (its lookup, argument parsing and the plain tuple it copies from), a few hundred
    instructions for each element above a block."""
    cdef Py_ssize_t k, n = PyTuple_GET_SIZE(values)
    cdef _Allocating* t = <_Allocating*><PyObject*>cls
    made = t.tp_alloc(t, n)
    for k in range(n):
        item = <object>PyTuple_GET_ITEM(values, k)
        Py_INCREF(item)
        PyTuple_SET_ITEM(made, k, item)
    return _untracked(made)


cdef object _record3(object cls, object a, object b, object c):
    """``_record(cls, (a, b, c))`` without the tuple of values (an Ancestor per element)."""
    cdef _Allocating* t = <_Allocating*><PyObject*>cls
    made = t.tp_alloc(t, 3)
    Py_INCREF(a)
    PyTuple_SET_ITEM(made, 0, a)
    Py_INCREF(b)
    PyTuple_SET_ITEM(made, 1, b)
    Py_INCREF(c)
    PyTuple_SET_ITEM(made, 2, c)
    return _untracked(made)
