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
"""

DEF LANES = 16

ctypedef fused real:
    float
    double


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
