# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The tree walk of ``trees.TreeEnsemble.leaf_values`` as a C loop.

NumPy walks all (row, tree) pairs one level per pass: seven passes of
gathers over arrays of rows x trees, each pass paying for every pair even
when most have reached a leaf. Here each pair walks down on its own and
stops at its leaf, with no temporary arrays, and without the GIL. The
result is the same matrix of leaf values as the NumPy walk (the reference,
which runs where this module was not built), so the sums taken from it are
bit for bit the same.

One tree at a time over all rows, sixteen rows abreast: a walk down one
tree is a chain of dependent loads (node, feature, value, child), so the
rows of a group step down together and the processor overlaps their chains
instead of waiting on one. The step down is arithmetic, not a branch:
which way a row goes is as good as random to the branch predictor. Node fields are 32-bit where they can be, and
rows are read as the float32 the block features are made in (a float32
widened to double compares with a double threshold exactly as NumPy's
float64 copy of it does) or as float64 (the page-type vector).

The block features' rows (float32, almost never a missing value) take
``leaf_values_f32``: each tree laid out complete to the walk's depth
(``trees._CArrays.perfect``), node ``k``'s children at ``2k + 1`` and
``2k + 2``, so a step down is computed, not loaded: one load of the node's
feature, one of the row's value, one of the threshold, and ``2k + 1 +
went-right``. A tree's features and thresholds are two arrays (a tree's
127 nodes are a kilobyte, in the first-level cache however laid out), so
both are read at the node's index scaled by the load itself: no address
is worked out per step. A leaf above the bottom stands in for the subtree under it
with splits that always go left (threshold +inf) down to copies of its
value. The comparison is float32 against float32: the threshold is stored
as the largest float32 not above it, which a float32 value exceeds exactly
when it exceeds the float64 threshold (the next float32 up is above the
threshold, so "above the stored one" is "at least the next one"). Both
sides are compared as integer keys (``_key``: the float32's bits made
unsigned-ordered, -0 taken as +0), which order as the floats do: an
unsigned "below" leaves its answer in the carry flag, so a step down is
``2k + 1`` plus the carry (``adc``), with no ``seta``/``movzx`` pair and one
register fewer, where the lanes' nodes are kept (six instructions a lane and
level, from eight). A page whose rows hold a
NaN is left to ``leaf_values``.

Float64 rows (the page-type vector, one row through a thousand shallow trees)
take ``leaf_values_f64``: the same complete layout with each node's feature
and float64 threshold side by side (16 bytes), compared as they are. What
that walk waits on is memory, not arithmetic: the trees are read once per
page, after the page's parse has pushed them out of the caches, and a node
whose feature, threshold, children and missing-value flag sit in four
arrays costs up to four cache lines, where the complete layout's node is
one load, its first levels share a line and its children are computed.
"""

from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

DEF LANES = 16
#: Bytes a prefetch brings in (a cache line).
DEF LINE = 64

cdef extern from *:
    void __builtin_prefetch(const void* address) noexcept nogil

ctypedef fused real:
    float
    double


cdef struct Node64:
    long long feature
    double threshold


def leaf_values(const real[:, ::1] X, const int[::1] feature, const double[::1] threshold,
                const int[::1] children, const unsigned char[::1] missing_right,
                const double[::1] value, const int[::1] roots, int depth, double[:, ::1] out):
    """Write the value of the leaf each row of ``X`` reaches in each tree into ``out``
    (rows x trees), after ``depth`` splits as the NumPy walk (a leaf's children are
    itself, so a walk that reached one stays there). Node ``k``'s left and right
    child are ``children[2k]`` and ``children[2k + 1]``; a missing value (NaN) goes
    right where ``missing_right`` says."""
    cdef Py_ssize_t n = X.shape[0], t_count = roots.shape[0], i, t, start, k, width
    cdef int level, node, go, root
    cdef int nodes[LANES]
    cdef real x
    with nogil:
        for t in range(t_count):
            root = roots[t]
            for start in range(0, n, LANES):
                width = min(LANES, n - start)
                for k in range(width):
                    nodes[k] = root
                for level in range(depth):
                    for k in range(width):
                        node = nodes[k]
                        x = X[start + k, feature[node]]
                        go = (<double>x > threshold[node]) | ((x != x) & missing_right[node])
                        nodes[k] = children[2 * node + go]
                for k in range(width):
                    out[start + k, t] = value[nodes[k]]


cdef int _check_complete(Py_ssize_t t_count, int depth, Py_ssize_t inner, Py_ssize_t n_values,
                         Py_ssize_t values_width, Py_ssize_t node_words) except -1:
    """Refuse node arrays that are not ``t_count`` trees laid out complete to ``depth``
    (``inner`` nodes of two words each, ``inner + 1`` leaf values a tree)."""
    if t_count and (depth < 1 or inner != (1 << depth) - 1 or values_width != inner + 1
                    or n_values != t_count or node_words != 2):
        raise ValueError("the nodes are not complete trees of the depth given")
    return 0


cdef bint _any_nan(const real* values, Py_ssize_t count) noexcept nogil:
    """Whether one of the ``count`` values is a NaN (rows the complete walks leave to the
    general one). A page has none, so every value is looked at, a block at a time with
    no branch inside, which the compiler makes vector compares: a branch per value was
    a tenth of the block walk."""
    cdef Py_ssize_t i, start, end = count - count % 256
    cdef bint seen = False
    for start in range(0, end, 256):
        for i in range(start, start + 256):
            seen |= values[i] != values[i]
        if seen:
            return True
    for i in range(end, count):
        seen |= values[i] != values[i]
    return seen


cdef inline unsigned int _key(float x) noexcept nogil:
    """The float32 ``x`` (not a NaN) as an unsigned integer that orders as the floats do:
    the sign bit flipped for positives, every bit for negatives; -0 is first made +0
    (``x + 0``), as the floats hold them equal. ``trees._float32_keys`` is the same map
    for the thresholds."""
    cdef unsigned int bits
    x = x + <float>0.0
    memcpy(&bits, &x, sizeof(bits))
    return bits ^ ((0u - (bits >> 31)) | 0x80000000u)


cdef inline void _prefetch_tree(const int* feature, const int* threshold, const double* leaf,
                                Py_ssize_t inner) noexcept nogil:
    """Ask for a tree's nodes and leaf values (3 kilobytes at depth 7) while the first group
    of rows walks the tree before it: the page's parse has pushed the trees out of the
    second-level cache, and the walk of a group is a chain of dependent loads that would
    otherwise wait on each of their lines in turn."""
    cdef Py_ssize_t at
    for at in range(0, inner * sizeof(int), LINE):
        __builtin_prefetch(<const char*>feature + at)
        __builtin_prefetch(<const char*>threshold + at)
    for at in range(0, (inner + 1) * sizeof(double), LINE):
        __builtin_prefetch(<const char*>leaf + at)


#: Rows walked abreast by ``leaf_values_f32``; ``trees._CArrays.perfect`` stores each
#: node's feature times this (where the feature's values of a group of rows start).
ROW_LANES = LANES


def leaf_values_f32(const float[:, ::1] X, const int[:, :, ::1] nodes,
                    const double[:, ::1] values, int depth, double[:, ::1] out):
    """``leaf_values`` for float32 rows without a missing value, over trees laid out
    complete as ``trees._CArrays.perfect`` lays them out (trees x 2 x ``2**depth - 1``
    int32: the nodes' features times ``ROW_LANES``, then their float32 thresholds' ``_key``s;
    ``values``: trees x ``2**depth`` leaf values, left to right). False, with ``out``
    untouched, when a row holds a NaN.

    A group's rows are first copied feature by feature as ``_key``s (``group``: feature
    ``f`` of lane ``k`` at ``f * LANES + k``; a short last group repeats its last row), so a
    lane's value is one load at a constant offset from the node's feature, not a
    load of the lane's row pointer and then of the value, and every group takes the
    unrolled walk of sixteen lanes."""
    cdef Py_ssize_t n = X.shape[0], width_x = X.shape[1], t_count = nodes.shape[0]
    cdef Py_ssize_t inner = nodes.shape[2], i, t, start, k, f, width, a
    cdef int level
    cdef Py_ssize_t at[LANES]
    cdef unsigned int first[LANES]
    cdef unsigned int went, left, right
    cdef const float* row
    cdef const int* feature
    cdef const unsigned int* threshold
    cdef const double* leaf
    cdef double* dest
    cdef Py_ssize_t out_row = out.strides[0] // sizeof(double)
    cdef const float* base = &X[0, 0] if n and width_x else NULL
    cdef unsigned int* group
    cdef bint nan = False
    _check_complete(t_count, depth, inner, values.shape[0], values.shape[1], nodes.shape[1])
    if n == 0 or width_x == 0:
        return True
    group = <unsigned int*>malloc(width_x * LANES * sizeof(unsigned int))
    if group == NULL:
        raise MemoryError()
    with nogil:
        nan = _any_nan(base, n * width_x)
        if not nan:
            # A group of rows at a time through every tree: its rows stay in the
            # first-level cache while the trees stream by.
            for start in range(0, n, LANES):
                width = min(LANES, n - start)
                for k in range(LANES):
                    row = base + (start + min(k, width - 1)) * width_x
                    for f in range(width_x):
                        group[f * LANES + k] = _key(row[f])
                for t in range(t_count):
                    feature = &nodes[t, 0, 0]
                    threshold = <const unsigned int*>&nodes[t, 1, 0]
                    if start == 0 and t + 1 < t_count:
                        _prefetch_tree(&nodes[t + 1, 0, 0], &nodes[t + 1, 1, 0],
                                       &values[t + 1, 0], inner)
                    if depth == 1:
                        for k in range(LANES):
                            at[k] = 1 + (threshold[0] < group[feature[0] + k])
                    else:
                        # The first two levels read three nodes, the same for every lane:
                        # the lanes take both splits of the second level and the root's
                        # answer picks one, arithmetic over a group's contiguous values
                        # that the compiler makes vector compares, four lanes a time.
                        for k in range(LANES):
                            went = threshold[0] < group[feature[0] + k]
                            left = threshold[1] < group[feature[1] + k]
                            right = threshold[2] < group[feature[2] + k]
                            first[k] = 3 + 2 * went + ((went & right) | ((went ^ 1) & left))
                        for k in range(LANES):
                            at[k] = first[k]
                    for level in range(2, depth):
                        for k in range(LANES):  # a constant bound: the lanes unrolled
                            a = at[k]
                            at[k] = 2 * a + 1 + (threshold[a] < group[feature[a] + k])
                    leaf = &values[t, 0] - inner
                    dest = &out[start, t]
                    for k in range(width):
                        dest[k * out_row] = leaf[at[k]]
    free(group)
    return not nan


def leaf_values_f64(const double[:, ::1] X, const long long[:, :, ::1] nodes,
                    const double[:, ::1] values, int depth, double[:, ::1] out):
    """``leaf_values_f32`` for float64 rows, over trees laid out complete as
    ``trees._CArrays.perfect64`` lays them out (trees x ``2**depth - 1`` nodes of two
    64-bit words: the feature, the float64 threshold's bits, +inf under a leaf), the
    thresholds compared as they are. A row at a time through every tree: the rows
    that take it are few (one page vector). False, with ``out`` untouched, when a row
    holds a NaN."""
    cdef Py_ssize_t n = X.shape[0], width_x = X.shape[1], t_count = nodes.shape[0]
    cdef Py_ssize_t inner = nodes.shape[1], i, start, k, width
    cdef int level
    cdef Py_ssize_t at[LANES]
    cdef const Node64* trees[LANES]
    cdef const double* row
    cdef const Node64* node
    cdef const double* base = &X[0, 0] if n and width_x else NULL
    cdef bint nan = False
    _check_complete(t_count, depth, inner, values.shape[0], values.shape[1], nodes.shape[2])
    with nogil:
        nan = _any_nan(base, n * width_x)
        if not nan:
            for i in range(n):
                row = base + i * width_x
                # Sixteen trees abreast: their walks are independent chains of loads, so
                # the processor waits for their nodes' cache lines together, not in turn.
                for start in range(0, t_count, LANES):
                    width = min(LANES, t_count - start)
                    for k in range(width):
                        trees[k] = <const Node64*>&nodes[start + k, 0, 0]
                        at[k] = 0
                    for level in range(depth):
                        for k in range(width):
                            node = trees[k] + at[k]
                            at[k] = 2 * at[k] + 1 + (row[node.feature] > node.threshold)
                    for k in range(width):
                        out[i, start + k] = values[start + k, at[k] - inner]
    return not nan
