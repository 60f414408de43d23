"""Stores: where site models live between pages, crawls and processes, chosen by URI.

* ``memory:`` — this process only (tests, one-off scripts);
* ``sqlite:///path/to/file.db`` — the default for Scrapy projects, a file any
  number of processes on one machine can share;
* ``redis://host:port/db`` — crawls spread over processes or machines.

Every store offers the same five operations. ``merge`` is the only write: it
adds a delta (a ``SiteModel`` of the updates one process made since its last
write) to the stored model atomically — a transaction in SQLite, WATCH/MULTI
in Redis — so concurrent writers never lose each other's counts.

A stored model that is corrupt or not ours is logged as an error and treated
as absent (a fresh model replaces it); one written by a newer release is
logged and left alone. A store that cannot be reached raises
``StoreUnavailableError``, which ``Declutter`` turns into a warning and
site-free extraction until the store is back.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod

from ...errors import DeclutterError
from ..model import ModelVersionError, SiteModel
from ..ngram import ModelFormatError

logger = logging.getLogger(__name__)


class StoreError(DeclutterError):
    """A store URI that cannot be understood."""


class StoreUnavailableError(DeclutterError):
    """The store cannot be reached now (Redis down, SQLite file locked for too long...)."""


class SiteStore(ABC):
    """Site models by site key."""

    #: The URI the store was opened with, for messages.
    uri: str = ""

    @abstractmethod
    def _get(self, site: str) -> bytes | None:
        """The stored bytes of a site's model, or None."""

    @abstractmethod
    def merge(self, site: str, delta: SiteModel) -> SiteModel:
        """Atomically add ``delta`` to the stored model of ``site``; return the merged model."""

    @abstractmethod
    def sites(self) -> list[str]:
        """Every site key the store holds, sorted."""

    @abstractmethod
    def forget(self, site: str) -> bool:
        """Delete a site's model; return whether there was one."""

    def close(self) -> None:
        """Release connections; the store is unusable afterwards."""

    def load(self, site: str) -> SiteModel | None:
        """The stored model of ``site``; None when absent, corrupt (logged) or too new (logged)."""
        model, _ = self.decode(site, self._get(site))
        return model

    def decode(self, site: str, blob: bytes | None) -> tuple[SiteModel | None, bool]:
        """(model or None, whether the stored bytes may be overwritten)."""
        if blob is None:
            return None, True
        try:
            return SiteModel.from_bytes(blob), True
        except ModelVersionError as exc:
            logger.error("site model for %r in %s left untouched: %s", site, self.uri, exc)
            return None, False
        except ModelFormatError as exc:
            logger.error("site model for %r in %s is corrupt and will be replaced by a fresh "
                         "one: %s", site, self.uri, exc)
            return None, True

    @staticmethod
    def merged(site: str, stored: SiteModel | None, delta: SiteModel) -> SiteModel:
        base = stored if stored is not None else SiteModel(site=site)
        return base.merge(delta)

    def __enter__(self) -> "SiteStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(uri: "str | SiteStore") -> SiteStore:
    """The store a URI names (a store object is returned as is)."""
    if isinstance(uri, SiteStore):
        return uri
    if not isinstance(uri, str):
        raise StoreError(f"a store is a URI string or a SiteStore, not {type(uri).__name__}")
    scheme = uri.partition(":")[0].lower()
    if scheme == "memory":
        from .memory import MemoryStore

        return MemoryStore(uri)
    if scheme == "sqlite":
        from .sqlite import SQLiteStore

        try:
            return SQLiteStore.from_uri(uri)
        except OSError as exc:  # a path through a file, no permission, a full disk...
            raise StoreError(f"cannot open the SQLite store {uri!r} (DECLUTTER_STORE): "
                             f"{exc}") from exc
    if scheme in ("redis", "rediss", "unix"):
        from .redis import RedisStore

        return RedisStore(uri)
    raise StoreError(f"unknown store URI {uri!r}; use memory:, sqlite:///path/to/file.db "
                     "or redis://host:port/db")


__all__ = ["SiteStore", "StoreError", "StoreUnavailableError", "open_store"]
