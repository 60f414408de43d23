"""The store's side of ``Declutter``: site deltas queued, written in batches, and the store's health.

Apart from ``Declutter`` because it is one concern with its own state: what
waits to be written, the batch on the writer thread, and whether the store
answers. ``Declutter`` decides *when* a site's increments leave memory; this
decides how they reach the store and what happens when it does not answer:
a failed batch goes back to the queue and is written again once the store is
due for a retry (``retry_after`` seconds), with one warning when the store
goes down and one when it is back.

With ``write_behind`` a batch is serialised and written on a thread of its
own (compressing a delta takes 10-20 ms, mostly without the GIL); one batch
is in flight at a time, and anything that must see it written (a site loaded
again, ``flush``) waits for it with ``settled``.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from ..errors import StoreUnavailableError

if TYPE_CHECKING:
    from .model import SiteModel
    from .stores import SiteStore

logger = logging.getLogger(__name__)

#: Deltas queued before a write, whatever ``flush_every`` says; and the most one write
#: takes. A store serialises a batch whole (a list of blobs, a Redis pipeline), so
#: ``flush`` at the end of a 10,000-site crawl, which queues every site still in memory,
#: wrote some 2,000 deltas at once and the crawl's memory rose by their size (88 MB in a
#: 2,000-site run) just before it ended; in batches of this many it does not.
WRITE_BATCH = 64


class StoreWrites:
    """The deltas waiting for a store, and whether that store answers now."""

    def __init__(self, store: SiteStore, *, retry_after: float, write_behind: bool) -> None:
        self.store = store
        self.retry_after = retry_after
        self.write_behind = write_behind
        self.queue: list[SiteModel] = []  # deltas waiting for the next write
        self._fold: set[str] = set()  # their sites whose stored model is to be replaced
        self._since_write = 0  # pages learned since the last write
        self._down_until = 0.0
        self._down = False
        self._thread: ThreadPoolExecutor | None = None  # started with the first batch
        self._writing: Future[None] | None = None  # the batch in flight
        self._in_flight: tuple[list[SiteModel], set[str]] = ([], set())

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
        """A site comes back into memory: its increments still queued or in flight land first."""
        while any(delta.site == site for delta in self.queue) and self.write():
            pass
        if any(delta.site == site for delta in self._in_flight[0]):
            self.settled()

    def write(self, force: bool = False) -> bool:
        """Write the oldest ``WRITE_BATCH`` queued deltas in one batch; on failure they stay queued.

        With ``write_behind`` the batch goes to the writer thread once the
        one before it is settled (if that one failed, its deltas go again with
        this batch, once the store is due for a retry), and True means it was
        handed over.
        """
        self.settled()
        if not self.queue:
            return True
        if not force and not self.available():
            return False
        batch, rest = self.queue[:WRITE_BATCH], self.queue[WRITE_BATCH:]
        # Every site in ``_fold`` has a delta queued; one with deltas in a later batch too
        # stays to be folded then.
        fold = self._fold & {delta.site for delta in batch}
        fold_later = self._fold & {delta.site for delta in rest}
        if not self.write_behind:
            try:
                self.store.append(batch, fold)
            except StoreUnavailableError as exc:
                self.went_down(exc)
                return False
            self.queue, self._fold, self._since_write = rest, fold_later, 0
            self.answered()
            return True
        self.queue, self._fold, self._since_write = rest, fold_later, 0
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="declutter-store")
        self._in_flight = (batch, fold)
        self._writing = self._thread.submit(self.store.append, batch, fold)
        return True

    def settled(self) -> bool:
        """Wait for the batch on the writer thread; False if it failed (its deltas are queued again)."""
        writing, self._writing = self._writing, None
        if writing is None:
            return True
        (batch, fold), self._in_flight = self._in_flight, ([], set())
        try:
            writing.result()
        except StoreUnavailableError as exc:
            self.queue[:0] = batch
            self._fold |= fold
            self.went_down(exc)
            return False
        self.answered()
        return True

    def flush(self) -> None:
        """Write everything queued, a batch at a time, and wait for it; no idle writer thread
        is left behind. A batch that fails stays queued (``went_down`` said why)."""
        self.settled()  # a batch that failed on the writer thread is queued again first
        while self.queue and self.write(force=True) and self.settled():
            pass
        if self._thread is not None:  # a crawl's core is flushed at its end
            self._thread.shutdown()
            self._thread = None
