"""Near-duplicates across a crawl: the earliest page whose clean text nearly equals a page's.

``open_duplicate_index`` gives the index of one crawl, kept where its site store is:
in Redis when ``DECLUTTER_STORE`` is a Redis URI (every process of the crawl
shares it), else in the crawl process (a ``memory:`` or SQLite store: the
crawl process checks every page, so one process's index sees them all).
Needs datasketch (``pip install scrapy-declutter[duplicates]``), imported
only when an index is opened, so a crawl without the feature runs without it.
"""

from __future__ import annotations

from ..errors import StoreError
from .index import (
    DEFAULT_THRESHOLD,
    MAX_PAGES,
    MIN_THRESHOLD,
    STAT,
    UNAVAILABLE_STAT,
    DuplicateIndex,
)

#: What to install when datasketch is missing.
INSTALL_HINT = "pip install 'scrapy-declutter[duplicates]'"


def datasketch_missing() -> str:
    """Why the index cannot be built here ("" when it can): datasketch cannot be imported."""
    try:
        import datasketch  # noqa: F401
    except ImportError as exc:
        return f"needs the datasketch package ({exc}): {INSTALL_HINT}"
    return ""


def open_duplicate_index(store: str | None, *, name: str, threshold: float = DEFAULT_THRESHOLD,
                         max_pages: int = MAX_PAGES, keep: bool = False) -> DuplicateIndex:
    """The near-duplicate index of the crawl ``name`` beside the site store ``store``
    (a store URI; None: in memory), holding at most ``max_pages`` pages. ``keep``: the
    index outlives the crawl (Redis only)."""
    from ..sitelearning.stores import REDIS_SCHEMES, scheme  # site learning's NumPy models

    if scheme(store) in REDIS_SCHEMES:
        from .redisindex import RedisIndex

        return RedisIndex(store, name=name, keep=keep, threshold=threshold, max_pages=max_pages)
    if keep:
        raise StoreError(f"a near-duplicate index is kept after the crawl only in a Redis store, "
                         f"not in {store or 'memory:'!r}, where it lives in the crawl process")
    from .index import MemoryIndex

    return MemoryIndex(threshold=threshold, max_pages=max_pages)


__all__ = ["DEFAULT_THRESHOLD", "MAX_PAGES", "MIN_THRESHOLD", "STAT", "UNAVAILABLE_STAT",
           "DuplicateIndex",
           "datasketch_missing", "open_duplicate_index"]
