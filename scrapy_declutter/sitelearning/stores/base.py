"""The interface every store implements, and the decoding all of them share.

Per site, a model and a log of deltas: ``append`` adds to the log without reading
a model (a write costs what was learned), and a log of ``COMPACT_AFTER`` deltas
is folded into its model in the same write.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Collection, Iterable, Sequence

from ...errors import ModelFormatError, ModelVersionError
from ..model import SiteModel

logger = logging.getLogger(__name__)

#: Deltas a site's log may hold before a write folds them into its stored model.
COMPACT_AFTER = 32


class SiteStore(ABC):
    """Site models by site key."""

    #: The URI the store was opened with, for messages.
    uri: str = ""

    @abstractmethod
    def _read(self, site: str) -> tuple[bytes | None, list[bytes]]:
        """A site's stored model bytes and its log of delta bytes, oldest first, read together."""

    @abstractmethod
    def append(self, deltas: Sequence[SiteModel], fold: Collection[str] = ()) -> None:
        """Add deltas (each names its site) to their sites' logs in one atomic write; sites in
        ``fold`` that have a stored model (a corrupt one is replaced at once) and sites whose
        log reaches ``COMPACT_AFTER`` are compacted in the same write."""

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
        blob, log = self._read(site)
        return self.combine(site, blob, log)[0]

    def combine(self, site: str, blob: bytes | None,
                log: Iterable[bytes]) -> tuple[SiteModel | None, bool]:
        """(stored model with its log merged in or None, whether the model bytes may be
        overwritten). A corrupt or too new delta is logged and skipped."""
        model, writable = self.decode(site, blob)
        for raw in log:
            try:
                delta = SiteModel.from_bytes(raw)
            except (ModelFormatError, ModelVersionError) as exc:
                logger.error("an increment of the site model for %r in %s is unreadable and "
                             "skipped: %s", site, self.uri, exc)
                continue
            model = delta if model is None else model.merge(delta)
        return model, writable

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

    def __enter__(self) -> "SiteStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
