"""The index in Redis: one crawl's processes, on one machine or several, share it.

Keys live under ``scrapy-declutter:duplicates:<name>:`` (``name`` is the
crawl's, the spider's name by default): ``rank``, the number of pages
indexed; ``pages``, a hash rank -> signature (little-endian uint32 values)
followed by the URL; ``bands``, a hash band number and values -> the ranks
of the pages that have them (little-endian uint32, in rank order), one
HMGET and one HSET a page whatever the number of bands; ``bodies``, a hash
digest of a page's bytes -> rank and URL of its first copy; ``open``, how
many processes have the index open. Nothing read back is
unpickled: a signature is bytes of fixed length, a URL UTF-8 text.

A page is answered and indexed in one optimistic transaction: WATCH
``rank``, read the candidates indexed so far, then in MULTI/EXEC advance
``rank`` and add the page; if another process indexed a page meanwhile, the
transaction fails and the page is looked up again, now seeing that page.
So two processes that index near-duplicates at once agree on which came
first. A page that needs no entry (an exact copy, a full index) writes
nothing: its answer holds for the ranks it read.

The index lives as long as the crawl: the last process to close it deletes
its keys, unless it is kept; a process that finds none open when it first
uses it deletes what an earlier crawl left, unless kept. A process killed without
closing leaves its count in ``open``, and the keys stay until a crawl
closes with nobody else counted.
"""

from __future__ import annotations

import logging
import re

import numpy as np

from ..errors import StoreError, StoreUnavailableError
from ..sitelearning.stores.redis import SOCKET_TIMEOUT, redacted
from .index import DEFAULT_THRESHOLD, MAX_PAGES, DuplicateIndex, answer, earliest

logger = logging.getLogger(__name__)

PREFIX = "scrapy-declutter:duplicates:"
#: Optimistic retries before a page's look-up gives up (only under extreme contention).
MAX_RETRIES = 100


def _entry(rank: int, url: str) -> bytes:
    """A page as ``bodies`` holds it: its rank (little-endian uint32), then its URL."""
    return np.array([rank], dtype="<u4").tobytes() + url.encode()


class RedisIndex(DuplicateIndex):
    """The index in a Redis database, shared by every process that opens it with the same name."""

    def __init__(self, uri: str, *, name: str, keep: bool = False,
                 threshold: float = DEFAULT_THRESHOLD, max_pages: int = MAX_PAGES,
                 timeout: float = SOCKET_TIMEOUT) -> None:
        try:
            import redis
        except ImportError as exc:
            raise StoreError("the duplicate index in Redis needs the redis package: "
                             "pip install scrapy-declutter[redis]") from exc
        super().__init__(threshold=threshold, max_pages=max_pages)
        self._redis = redis
        self.uri = redacted(uri)
        self.keep = keep
        self.prefix = f"{PREFIX}{name}:".encode()
        self._rank = self.prefix + b"rank"
        self._pages = self.prefix + b"pages"
        self._bands = self.prefix + b"bands"
        self._bodies = self.prefix + b"bodies"
        self._open = self.prefix + b"open"
        self._width = 4 * self.signer.permutations  # bytes of a signature
        self.client = redis.Redis.from_url(uri, socket_timeout=timeout,
                                           socket_connect_timeout=timeout)
        self._counted = False  # whether this process is counted in ``open`` yet

    def _join(self) -> None:
        """Count this process in ``open`` on its first page (a server down at start is then
        one page's StoreUnavailableError, not a crawl that cannot start)."""
        if not self._counted:
            if self.client.incr(self._open) == 1 and not self.keep:
                self._delete(keep=self._open)
            self._counted = True

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except (self._redis.ConnectionError, self._redis.TimeoutError) as exc:
            raise StoreUnavailableError(f"{self.uri}: {exc}") from exc

    def _band_fields(self, signature: np.ndarray) -> list[bytes]:
        values = signature.astype("<u4", copy=False)
        return [bytes([i]) + values[i * self.rows:(i + 1) * self.rows].tobytes()
                for i in range(self.bands)]

    def _first_copy(self, url: str, signature: np.ndarray, body: bytes | None) -> str | None:
        return self._call(self._transaction, url, signature, body)

    def _transaction(self, url: str, signature: np.ndarray, body: bytes | None) -> str | None:
        self._join()
        fields = self._band_fields(signature)
        with self.client.pipeline() as pipe:
            for _ in range(MAX_RETRIES):
                try:
                    pipe.watch(self._rank)
                    count = int(pipe.get(self._rank) or 0)
                    members = self.client.hmget(self._bands, fields)
                    by_text, known = earliest(url, signature, self._candidates(members, count),
                                              self.threshold)
                    first, reported = answer(url, by_text, self._same_body(body, count))
                    if known or count >= self.max_pages:
                        pipe.unwatch()
                        if body and first is not None:  # first writer wins, rank and all
                            self.client.hsetnx(self._bodies, body, _entry(*first))
                        return reported
                    rank = np.array([count], dtype="<u4").tobytes()
                    pipe.multi()
                    pipe.set(self._rank, count + 1)
                    pipe.hset(self._pages, count,
                              signature.astype("<u4", copy=False).tobytes() + url.encode())
                    pipe.hset(self._bands, mapping={field: (ranks or b"") + rank
                                                    for field, ranks in zip(fields, members)})
                    if body:
                        pipe.hsetnx(self._bodies, body, _entry(*(first or (count, url))))
                    pipe.execute()
                    return reported
                except self._redis.WatchError:
                    continue
        raise StoreUnavailableError(f"{self.uri}: gave up indexing {url!r} after "
                                    f"{MAX_RETRIES} conflicting writes")

    def _same_body(self, body: bytes | None, count: int) -> tuple[int, str] | None:
        """(rank, url) of the first page with these bytes, among the first ``count``."""
        raw = self.client.hget(self._bodies, body) if body else None
        if raw is None or len(raw) < 4:
            return None
        rank = int(np.frombuffer(raw[:4], dtype="<u4")[0])
        return (rank, raw[4:].decode("utf-8", "replace")) if rank < count else None

    def _candidates(self, members: list[bytes | None],
                    count: int) -> list[tuple[int, str, np.ndarray]]:
        """(rank, url, signature) of the pages in these bands' values, among the first
        ``count`` indexed (a later one may be half written)."""
        ranks: set[int] = set()
        for packed in members:
            if packed and len(packed) % 4 == 0:
                ranks.update(np.frombuffer(packed, dtype="<u4").tolist())
            elif packed:
                logger.error("a band of the duplicate index in %s is unreadable and skipped",
                             self.uri)
        ordered = sorted(r for r in ranks if r < count)
        if not ordered:
            return []
        found = []
        for rank, raw in zip(ordered, self.client.hmget(self._pages, ordered)):
            if raw is None or len(raw) < self._width:
                logger.error("duplicate index entry %d in %s is unreadable and skipped",
                             rank, self.uri)
                continue
            found.append((rank, raw[self._width:].decode("utf-8", "replace"),
                          np.frombuffer(raw[:self._width], dtype="<u4")))
        return found

    def _delete(self, keep: bytes | None = None) -> None:
        pattern = re.sub(rb"([*?\[\]\\])", rb"\\\1", self.prefix) + b"*"  # a name is no glob
        doomed = [k for k in self.client.scan_iter(match=pattern, count=1000)
                  if k != keep]
        for start in range(0, len(doomed), 1000):
            self.client.delete(*doomed[start:start + 1000])

    def close(self) -> None:
        try:
            if self._counted and self._call(self.client.decr, self._open) <= 0 and not self.keep:
                self._call(self._delete)
        except StoreUnavailableError as exc:
            logger.warning("the duplicate index in %s could not be closed: %s", self.uri, exc)
        finally:
            self.client.close()
