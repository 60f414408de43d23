"""The in-process store: models and logs as bytes in dicts, so it behaves like the others."""

from __future__ import annotations

import threading
from typing import Collection, Sequence

from ..model import SiteModel
from .base import COMPACT_AFTER, SiteStore


class MemoryStore(SiteStore):
    """Site models kept in this process; gone when it ends."""

    def __init__(self, uri: str = "memory:") -> None:
        self.uri = uri
        self._data: dict[str, bytes] = {}
        self._logs: dict[str, list[bytes]] = {}
        self._lock = threading.Lock()

    def _read(self, site: str) -> tuple[bytes | None, list[bytes]]:
        with self._lock:
            return self._data.get(site), list(self._logs.get(site, ()))

    def append(self, deltas: Sequence[SiteModel], fold: Collection[str] = ()) -> None:
        with self._lock:
            for delta in deltas:
                self._logs.setdefault(delta.site, []).append(delta.to_bytes())
            for site in {d.site for d in deltas}:
                if (site in fold and site in self._data) or len(self._logs[site]) >= COMPACT_AFTER:
                    self._compact(site)

    def _compact(self, site: str) -> None:
        model, writable = self.combine(site, self._data.get(site), self._logs.pop(site, ()))
        model = model if model is not None else SiteModel(site=site)
        if writable:
            self._data[site] = model.to_bytes()

    def sites(self) -> list[str]:
        return sorted(self._data.keys() | self._logs.keys())

    def forget(self, site: str) -> bool:
        with self._lock:
            had_log = self._logs.pop(site, None) is not None
            return (self._data.pop(site, None) is not None) or had_log
