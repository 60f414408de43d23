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
``leaf_values_f32``: each node packed in 16 bytes (``Node``: feature,
threshold, both children), so a step down is one load of a node and one of
the row's value, and the comparison is float32 against float32: the
threshold is stored as the largest float32 not above it, which a float32
value exceeds exactly when it exceeds the float64 threshold (the next
float32 up is above the threshold, so "above the stored one" is "at least
the next one"). A page whose rows hold a NaN is left to ``leaf_values``.
"""

DEF LANES = 16

ctypedef fused real:
    float
    double


cdef struct Node:
    int feature
    float threshold
    int child[2]


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


def leaf_values_f32(const float[:, ::1] X, const int[:, ::1] nodes, const double[::1] value,
                    const int[::1] roots, int depth, double[:, ::1] out):
    """``leaf_values`` for float32 rows without a missing value, over nodes packed as
    ``trees._CArrays.nodes`` packs them (4 int32 each: feature, the float32 threshold's
    bits, left child, right child; a leaf's children are itself and its feature 0).
    False, with ``out`` untouched, when a row holds a NaN."""
    cdef Py_ssize_t n = X.shape[0], width_x = X.shape[1], t_count = roots.shape[0]
    cdef Py_ssize_t i, t, start, k, width
    cdef int level
    cdef int at[LANES]
    cdef const float* row[LANES]
    cdef const Node* node
    cdef const Node* tree = <const Node*>&nodes[0, 0] if nodes.shape[0] else NULL
    cdef const float* base = &X[0, 0] if n and width_x else NULL
    cdef bint nan = False
    with nogil:
        for i in range(n * width_x):
            if base[i] != base[i]:
                nan = True
                break
        if not nan:
            # A group of rows at a time through every tree: its rows stay in the
            # first-level cache while the trees stream by.
            for start in range(0, n, LANES):
                width = min(LANES, n - start)
                for k in range(width):
                    row[k] = base + (start + k) * width_x
                for t in range(t_count):
                    for k in range(width):
                        at[k] = roots[t]
                    for level in range(depth):
                        for k in range(width):
                            node = tree + at[k]
                            at[k] = node.child[row[k][node.feature] > node.threshold]
                    for k in range(width):
                        out[start + k, t] = value[at[k]]
    return not nan
