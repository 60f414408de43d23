"""The in-process store: models as bytes in a dict, so it behaves exactly like the others."""

from __future__ import annotations

import threading

from ..model import SiteModel
from .base import SiteStore


class MemoryStore(SiteStore):
    """Site models kept in this process; gone when it ends."""

    def __init__(self, uri: str = "memory:") -> None:
        self.uri = uri
        self._data: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def _get(self, site: str) -> bytes | None:
        return self._data.get(site)

    def put_raw(self, site: str, blob: bytes) -> None:
        """Store bytes as they are (tests use it to plant corrupt or foreign models)."""
        self._data[site] = blob

    def merge(self, site: str, delta: SiteModel) -> SiteModel:
        with self._lock:
            stored, writable = self.decode(site, self._data.get(site))
            model = self.merged(site, stored, delta)
            if writable:
                self._data[site] = model.to_bytes()
            return model

    def sites(self) -> list[str]:
        return sorted(self._data)

    def forget(self, site: str) -> bool:
        with self._lock:
            return self._data.pop(site, None) is not None
