"""The store's side of ``Declutter``: site deltas queued, written in batches, and the store's health.

A failed batch stays queued and is written again once the store is due for a
retry (``retry_after`` seconds), with one warning when the store goes down and
one when it is back.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from ..errors import StoreUnavailableError

if TYPE_CHECKING:
    from .model import SiteModel
    from .stores import SiteStore

logger = logging.getLogger(__name__)

#: Deltas queued before a write, whatever ``flush_every`` says, and the most one write takes:
#: a store holds a whole batch in memory while it writes it.
WRITE_BATCH = 64


class StoreWrites:
    """The deltas waiting for a store, and whether that store answers now."""

    def __init__(self, store: SiteStore, *, retry_after: float) -> None:
        self.store = store
        self.retry_after = retry_after
        self.queue: list[SiteModel] = []  # deltas waiting for the next write
        self._fold: set[str] = set()  # their sites whose stored model is to be replaced
        self._since_write = 0  # pages learned since the last write
        self._down_until = 0.0
        self._down = False

    def add(self, delta: SiteModel, *, replaces: bool) -> None:
        """Queue a site's increments; ``replaces``: they are its whole model (a fresh site)."""
        self.queue.append(delta)
        if replaces:
            self._fold.add(delta.site)

    def learned(self, flush_every: int) -> bool:
        """Count one learned page; whether the queue is due for a write."""
        self._since_write += 1
        return bool(self.queue) and (self._since_write >= flush_every
                                     or len(self.queue) >= WRITE_BATCH)

    def available(self) -> bool:
        """Whether the store may be tried now (not within ``retry_after`` of a failure)."""
        return time.monotonic() >= self._down_until

    def went_down(self, exc: Exception) -> None:
        if not self._down:
            logger.warning("site store unavailable, extracting without site learning for now "
                           "(retry in %.0fs): %s", self.retry_after, exc)
        self._down, self._down_until = True, time.monotonic() + self.retry_after

    def answered(self) -> None:
        """After the store answered (a load or a write): say so if it had been unreachable."""
        if self._down:
            logger.warning("site store is back: %s", self.store.uri)
        self._down, self._down_until = False, 0.0

    def before_load(self, site: str) -> None:
        """A site comes back into memory: its increments still queued land first."""
        while any(delta.site == site for delta in self.queue) and self.write():
            pass

    def write(self, force: bool = False) -> bool:
        """Write the oldest ``WRITE_BATCH`` queued deltas in one batch; on failure they stay queued."""
        if not self.queue:
            return True
        if not force and not self.available():
            return False
        batch, rest = self.queue[:WRITE_BATCH], self.queue[WRITE_BATCH:]
        # A site with deltas in a later batch too stays to be folded then.
        fold = self._fold & {delta.site for delta in batch}
        try:
            self.store.append(batch, fold)
        except StoreUnavailableError as exc:
            self.went_down(exc)
            return False
        self.queue, self._since_write = rest, 0
        self._fold &= {delta.site for delta in rest}
        self.answered()
        return True

    def flush(self) -> None:
        """Write everything queued, a batch at a time; a batch that fails stays queued."""
        while self.queue and self.write(force=True):
            pass
