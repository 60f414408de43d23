# cython: language_level=3, boundscheck=False, wraparound=False
"""``pagekeys.python_page_keys``' loops in C: a page's fingerprints, structural keys and
containers, with the same memos and the same results.

Reading what site learning compares of a page (``pagekeys``) was a quarter of what
site learning cost a crawl, nearly all of it the interpreter's work around C calls:
some 320 blocks a page, each looked up in a memo (a method call, a dict look-up, a
length test), a hundred of them asked whether they name someone and where they are
(``places.Places``: a path per element, built by f-strings and memoised by ``id``),
and the content container's lineages summed in a dict. Here the same loops run over
the blocks' slots (``_slots``) with the memos' dicts read directly: the fingerprints,
keys, samples and containers are the reference's value for value, in the same order,
and the page's ``Places`` gets the same paths memoised (``Places.path`` reads them).
A miss calls the memo's own function, so the memos hold what they would anyway.
"""

from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.long cimport PyLong_FromVoidPtr
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM
from libc.stdint cimport uint64_t

from scrapy_declutter._slots cimport field_of, slot_offset
from scrapy_declutter.sitelearning._fingerprint cimport (fingerprint, fold_names, hash_text,
                                                         names_someone, normalise)

from ..blocks import CONTENT
from . import _fingerprint, model, pagekeys, places

#: The compiled fingerprint, as ``model`` uses it (a test may swap in the reference).
_compiled_fingerprint = _fingerprint.fingerprint

#: ``places._MIX`` and ``model.HASH_MASK``: ``places.keyed_at`` in 64-bit arithmetic
#: keeps the low 63 bits of the same product.
cdef uint64_t MIX = places._MIX
cdef uint64_t MASK = model.HASH_MASK


#: What a ``_Memo``'s function is: any (called), or one of the compiled ones, run as C.
cdef enum Kind:
    CALLED, FINGERPRINT, FOLDED, PATH_HASH, NAMED


cdef Kind _kind(object function):
    """Which compiled function ``function`` (a memo's) amounts to, while the modules use the
    compiled ones (a test may swap in a reference): ``model._fingerprint``,
    ``places._folded`` (names folded, then fingerprinted), ``model.hash_text`` and
    ``places._named`` (an element's selector, normalised)."""
    if function is _compiled_fingerprint:
        return FINGERPRINT
    if function is places._folded and places.fold_names is _fingerprint.fold_names \
            and model._CACHED.function is model._fingerprint is _compiled_fingerprint:
        return FOLDED
    if function is model.hash_text:
        return PATH_HASH
    if function is places._named and places.normalise is _fingerprint.normalise:
        return NAMED
    return CALLED


cdef str selector(object a):
    """``blocks.Ancestor.selector`` of an ``Ancestor`` (tag, id, classes)."""
    cdef str tag = <object>PyTuple_GET_ITEM(a, 0), ident = <object>PyTuple_GET_ITEM(a, 1)
    cdef tuple classes = <object>PyTuple_GET_ITEM(a, 2)
    cdef list parts = [tag, "#", ident] if ident else [tag]
    for c in classes:
        parts.append(".")
        parts.append(c)
    return "".join(parts)


cdef class _Memo:
    """One ``memo.Memo``'s dict, size and function, read once per page; a function that is
    one of the compiled ones (``_kind``) is called as C: the memos of the structural keys
    called three Python functions some 65 times a page, a quarter of what reading the
    page's keys cost beyond its fingerprints."""
    cdef dict values
    cdef Py_ssize_t size
    cdef object function
    cdef Kind kind

    def __init__(self, memo):
        self.values, self.size, self.function = memo.values, memo.size, memo.function
        self.kind = _kind(memo.function)

    cdef object get(self, object key):
        """``Memo.__call__``: the value, computed (and the dict emptied when full) on a miss."""
        cdef PyObject *hit = PyDict_GetItem(self.values, key)
        if hit != NULL:
            return <object>hit
        if len(self.values) >= self.size:
            self.values.clear()
        if self.kind == FINGERPRINT:
            value = fingerprint(key)
        elif self.kind == FOLDED:
            value = fingerprint(fold_names(key))
        elif self.kind == PATH_HASH:
            value = hash_text(key)
        elif self.kind == NAMED:
            value = normalise(selector(key))
        else:
            value = self.function(key)
        PyDict_SetItem(self.values, key, value)
        return value


cdef class _Paths:
    """``places.Places._path`` over the page's memo (``Places._memo``), ids as keys."""
    cdef dict memo
    cdef _Memo named
    cdef str cut

    def __init__(self, dict memo, _Memo named):
        self.memo, self.named, self.cut = memo, named, places.CUT

    cdef inline str describe(self, object a):
        """``places.describe`` of an ``Ancestor`` (a tuple: tag, id, classes): its tag, or
        the memoised normalised selector."""
        if not <object>PyTuple_GET_ITEM(a, 1) and not <object>PyTuple_GET_ITEM(a, 2):
            return <object>PyTuple_GET_ITEM(a, 0)
        return self.named.get(a)

    cdef inline object known(self, object a):
        cdef PyObject *hit = PyDict_GetItem(self.memo, PyLong_FromVoidPtr(<void *>a))
        return None if hit == NULL else <object>hit

    cdef str path(self, tuple ancestors):
        cdef Py_ssize_t n = len(ancestors), i
        cdef str path
        if n == 0:
            return ""
        last = ancestors[n - 1]
        found = self.known(last)
        if found is not None:
            return found
        if <object>PyTuple_GET_ITEM(ancestors[0], 0) != "html":
            return f"{self.cut}/{self.describe(last)}"
        if n > 1:
            parent = self.known(ancestors[n - 2])
            if parent is not None:
                path = f"{parent}/{self.describe(last)}"
                self.memo[PyLong_FromVoidPtr(<void *>last)] = path
                return path
        i = n - 1
        while i > 0 and self.known(ancestors[i - 1]) is None:
            i -= 1
        path = self.known(ancestors[i - 1]) if i > 0 else ""
        while i < n:
            a = ancestors[i]
            path = f"{path}/{self.describe(a)}"
            self.memo[PyLong_FromVoidPtr(<void *>a)] = path
            i += 1
        return path


def page_key_lists(list blocks, dict cuts, double confident, bint structural,
                   dict place_memo):
    """(fingerprints, structural keys or [], samples, containers, confidences, sure content,
    sure boilerplate, content characters, longest) of ``python_page_keys``; ``place_memo``
    is the page's ``Places._memo``, filled with the paths walked."""
    cdef Py_ssize_t n = len(blocks), i, k, m, total = 0, weight, content = 0
    cdef double cut, score, confidence, default_cut = pagekeys.DEFAULT_CUT
    cdef Py_ssize_t duplicate_chars = pagekeys.DUPLICATE_MIN_CHARS
    cdef list confidences = [None] * n, long_content = []
    cdef Py_ssize_t cached_chars = model.CACHED_CHARS, max_chars = places.STRUCTURE_MAX_CHARS
    cdef double max_links = pagekeys.STRUCTURE_MAX_LINKS
    cdef _Memo cached = _Memo(model._CACHED), folded_memo = _Memo(places._FOLDED)
    cdef _Memo path_hashes = _Memo(places._PATH_HASHES)
    cdef _Paths paths = _Paths(place_memo, _Memo(places._NAMED))
    cdef object uncached = model._fingerprint, named = places.names_someone
    cdef bint direct = uncached is _compiled_fingerprint  # both called as C then
    cdef bint direct_names = named is _fingerprint.names_someone
    cdef list fps = [None] * n, structures = [0] * n if structural else []
    cdef list weights = [0] * n, sure_content = [], sure_boilerplate = []
    cdef dict samples = {}
    cdef str text, path
    cdef uint64_t folded, key
    cdef object cls = type(blocks[0]) if n else None
    cdef Py_ssize_t at_text = -1, at_links = -1, at_words = -1, at_ancestors = -1
    cdef Py_ssize_t at_chars = -1, at_label = -1, at_score = -1, at_step = -1
    if n:
        at_text, at_links = slot_offset(cls, "text"), slot_offset(cls, "link_density")
        at_words, at_ancestors = slot_offset(cls, "words"), slot_offset(cls, "ancestors")
        at_chars, at_label = slot_offset(cls, "text_chars"), slot_offset(cls, "label")
        at_score, at_step = slot_offset(cls, "score"), slot_offset(cls, "step")
    for i in range(n):
        b = blocks[i]
        if type(b) is not cls:
            at_text = at_links = at_words = at_ancestors = at_chars = at_label = -1
            at_score = at_step = -1
        text = field_of(b, at_text, "text")
        fps[i] = cached.get(text) if len(text) <= cached_chars else (
            fingerprint(text) if direct else uncached(text))
        if structural and len(text) <= max_chars \
                and <double>field_of(b, at_links, "link_density") < max_links \
                and field_of(b, at_words, "words") >= 3 \
                and (names_someone(text) if direct_names else named(text)):
            folded = folded_memo.get(text)
            if folded:
                path = paths.path(field_of(b, at_ancestors, "ancestors"))
                key = ((<uint64_t>path_hashes.get(path) * MIX) ^ folded) & MASK
                if key == 0:
                    key = 1
                structures[i] = key
                samples[key] = (text, path)
        # ``pagekeys.confidences``: how far past its step's cut, on the side of its label
        cut = default_cut
        if cuts:
            cut = cuts.get(field_of(b, at_step, "step") or "", default_cut)
        score = field_of(b, at_score, "score")
        if field_of(b, at_label, "label") == CONTENT:
            confidence = score - cut
            weight = field_of(b, at_chars, "text_chars")
            content += weight
            if weight >= duplicate_chars:
                long_content.append((weight, fps[i]))
            if confidence >= confident:
                sure_content.append(i)
                weights[i] = weight
                total += weight
        else:
            confidence = cut - score
            if confidence >= confident:
                sure_boilerplate.append(i)
        confidences[i] = confidence
    long_content.sort(reverse=True)
    cdef list longest = [fp for _, fp in long_content[:pagekeys.DUPLICATE_BLOCKS]]
    cdef list found = []
    if total < max(pagekeys.CONTAINER_MIN_CHARS, 1):
        return (fps, structures, samples, found, confidences, sure_content, sure_boilerplate,
                content, longest)
    # Blocks under one element (a shared ``Ancestor``, so the same elements above it) add
    # to the same places: their weights are summed per parent first, and each parent's
    # lineage is walked once, in the order of its first block, so the places are met in
    # the reference's order (a place first met under a parent is first met at that
    # parent's first block) with the reference's sums.
    cdef dict held = {}, under = {}  # under: id(parent) -> [lineage, weight]
    cdef list parents = []
    cdef double share = pagekeys.CONTAINER_SHARE
    tags = places.CONTAINER_TAGS
    for i in range(n):
        weight = weights[i]
        if not weight:
            continue
        b = blocks[i]
        ancestors = field_of(b, at_ancestors if type(b) is cls else -1, "ancestors")
        m = len(ancestors)
        if not m or <object>PyTuple_GET_ITEM(ancestors[0], 0) != "html":
            continue  # ``Places.lineage``: a cut lineage names no place
        if m < 2:  # its own element alone: no place to add to
            paths.path(ancestors)
            continue
        parent = PyLong_FromVoidPtr(<void *>ancestors[m - 2])
        group = under.get(parent)
        if group is None:
            group = under[parent] = [ancestors, weight]
            parents.append(group)
        else:
            group[1] += weight
    for ancestors, weight in parents:
        paths.path(ancestors)
        for k in range(len(ancestors) - 1):  # the block's own element is not a container
            place = paths.known(ancestors[k])
            got = held.get(place)
            held[place] = weight if got is None else got + weight
    for place, chars in held.items():
        last = place.rpartition("/")[2]  # rsplit("/", 1)[-1]; no negative index here
        if chars >= share * total and ("#" in last or "." in last or last in tags):
            found.append(place)
    return (fps, structures, samples, found, confidences, sure_content, sure_boilerplate,
            content, longest)
