"""Stores: where site models live between pages, crawls and processes, chosen by URI.

``memory:`` (this process), ``sqlite:///path/to/file.db`` (processes on one
machine), ``redis://host:port/db`` (processes on several). Writes are atomic
appends, so concurrent writers never lose each other's counts; an unreachable
store raises ``StoreUnavailableError`` and ``Declutter`` goes on without it.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import StoreError
from .base import SiteStore

#: URI schemes of a Redis server: a store shared by processes on several machines.
REDIS_SCHEMES = ("redis", "rediss", "unix")


def scheme(uri: str | None) -> str:
    """A store URI's scheme, lower case (None, the in-memory store: ``memory``)."""
    return (uri or "memory:").partition(":")[0].lower()


def open_store(uri: "str | SiteStore") -> SiteStore:
    """The store a URI names (a store object is returned as is)."""
    if isinstance(uri, SiteStore):
        return uri
    if not isinstance(uri, str):
        raise StoreError(f"a store is a URI string or a SiteStore, not {type(uri).__name__}")
    kind = scheme(uri)
    if kind == "memory":
        from .memory import MemoryStore

        return MemoryStore(uri)
    if kind == "sqlite":
        from .sqlite import SQLiteStore

        try:
            return SQLiteStore.from_uri(uri)
        except OSError as exc:  # a path through a file, no permission, a full disk...
            raise StoreError(f"cannot open the SQLite store {uri!r} (DECLUTTER_STORE): "
                             f"{exc}") from exc
    if kind in REDIS_SCHEMES:
        from .redis import RedisStore

        return RedisStore(uri)
    raise StoreError(f"unknown store URI {uri!r}; use memory:, sqlite:///path/to/file.db "
                     "or redis://host:port/db")


#: The file a Scrapy project keeps its site models in, in the project's data dir.
PROJECT_STORE_FILE = "declutter.sqlite3"


def project_store_path() -> Path:
    """Where a crawl keeps site models when ``DECLUTTER_STORE`` is unset, and what the
    command line reads by default: Scrapy's data dir (``.scrapy`` beside the project's
    scrapy.cfg, or its ``[datadir]``; ``./.scrapy`` outside a project), as the HTTP cache."""
    from scrapy.utils.project import data_path

    return Path(data_path(PROJECT_STORE_FILE)).resolve()

