# cython: language_level=3
"""Fields of ``__slots__`` classes read and written at their offsets, for the compiled parts.

A ``.pxd`` of inline functions, compiled into each module that cimports it
(``_segment``, ``steps.learned._columns``, ``steps.learned._text``): no
module of its own to build.

A ``Block`` field reached through ``getattr`` from C is a type lookup and a
descriptor call, about 140 instructions; ``Block`` has ``__slots__``, so each
field is a member descriptor that names where its slot lies in the object
(CPython's public ``PyMemberDescrObject`` and ``PyMemberDef``), and the slot
can be read or written there in a few. Callers find the offsets once
(``slot_offset``) and fall back to ``getattr``/``setattr`` where a class does
not have that plain layout.
"""

from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    ctypedef struct PyDescrObject:
        PyObject* d_type


cdef extern from *:
    """
    /* The member type of a __slots__ entry: T_OBJECT_EX (Py_T_OBJECT_EX from 3.12). */
    #define SCRAPY_DECLUTTER_OBJECT_SLOT 16
    """
    int OBJECT_SLOT "SCRAPY_DECLUTTER_OBJECT_SLOT"


cdef inline Py_ssize_t slot_offset(object cls, str name) except -2:
    """Where the ``__slots__`` field ``name`` of ``cls`` lies in its objects; -1 when the
    attribute is not a plain writable object slot (then use ``getattr``)."""
    import types

    descr = getattr(cls, name, None)
    if type(descr) is not types.MemberDescriptorType:
        return -1
    member = (<PyMemberDescrObject*><PyObject*>descr).d_member
    if member.type != OBJECT_SLOT or member.flags != 0:
        return -1
    return member.offset


cdef inline PyObject** slot_at(object obj, Py_ssize_t offset) noexcept:
    """The slot at ``offset`` in ``obj`` (NULL inside when the field was never set)."""
    return <PyObject**>((<char*><PyObject*>obj) + offset)


cdef inline object field_of(object obj, Py_ssize_t offset, str name):
    """``getattr(obj, name)``, read at the slot's ``offset`` when there is one (``offset``
    from ``slot_offset`` on ``type(obj)``, or -1)."""
    cdef PyObject* value
    if offset >= 0:
        value = slot_at(obj, offset)[0]
        if value != NULL:
            return <object>value
    return getattr(obj, name)


cdef inline void write_slot(object obj, Py_ssize_t offset, object value) noexcept:
    """``setattr`` at a plain object slot (``offset`` from ``slot_offset``, not -1): the
    new value in, the old one released."""
    cdef PyObject** slot = slot_at(obj, offset)
    cdef PyObject* old = slot[0]
    Py_INCREF(value)
    slot[0] = <PyObject*>value
    Py_XDECREF(old)
