# What ``_pagekeys`` calls of ``_fingerprint`` as C functions: a page's few hundred
# fingerprints and name tests were each a Python call (argument parsing included) from its
# loop, a tenth of what fingerprinting a block cost. So are the memos' functions of the
# structural keys (``_pagekeys._Memo``): names folded, a path hashed, a selector normalised.

cpdef fingerprint(str text)
cpdef bint names_someone(str text) noexcept
cpdef str normalise(str text)
cpdef str fold_names(str text)
cpdef hash_text(str text)
