"""The interface every store implements, and the decoding all of them share.

Backends (``memory``, ``sqlite``, ``redis``) subclass ``SiteStore`` from
here; the package ``__init__`` only chooses one by URI, so no backend imports
the module that imports it.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod

from ...errors import ModelFormatError, ModelVersionError
from ..model import SiteModel

logger = logging.getLogger(__name__)


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
