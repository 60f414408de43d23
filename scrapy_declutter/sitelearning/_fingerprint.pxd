# What ``_pagekeys`` calls of ``_fingerprint`` as C functions: a page's few hundred
# fingerprints and name tests were each a Python call (argument parsing included) from its
# loop, a tenth of what fingerprinting a block cost.

cpdef fingerprint(str text)
cpdef bint names_someone(str text) noexcept
