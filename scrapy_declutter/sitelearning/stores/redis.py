"""The Redis store: site models shared by crawls on several processes or machines.

A model is the key ``<prefix><site>``, its log the list ``<prefix>-deltas:<site>``
(RPUSH is atomic). Compaction is optimistic (WATCH, read, MULTI/EXEC, retry), so
nothing is lost. Needs the ``redis`` extra; connection failures raise
``StoreUnavailableError`` and the client reconnects by itself.
"""

from __future__ import annotations

import logging
from typing import Collection, Sequence
from urllib.parse import urlsplit, urlunsplit

from ...errors import StoreError, StoreUnavailableError
from ..model import SiteModel
from .base import COMPACT_AFTER, SiteStore

logger = logging.getLogger(__name__)

PREFIX = "scrapy-declutter:site:"
#: Seconds to wait for the server before calling it unavailable.
SOCKET_TIMEOUT = 5.0
#: Optimistic retries before a merge gives up (only under extreme contention).
MAX_RETRIES = 100


def redacted(uri: str) -> str:
    """The URI as messages show it: a password becomes ``***``, since crawl logs get shared."""
    parts = urlsplit(uri)
    if parts.password is None:
        return uri
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


class RedisStore(SiteStore):
    """Site models in a Redis database."""

    def __init__(self, uri: str, *, prefix: str = PREFIX, timeout: float = SOCKET_TIMEOUT) -> None:
        try:
            import redis
        except ImportError as exc:
            raise StoreError("the Redis store needs the redis package: "
                             "pip install scrapy-declutter[redis]") from exc
        self._redis = redis
        self.uri = redacted(uri)
        self.prefix = prefix
        self.log_prefix = prefix.rstrip(":") + "-deltas:"
        self.client = redis.Redis.from_url(uri, socket_timeout=timeout,
                                           socket_connect_timeout=timeout)

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except (self._redis.ConnectionError, self._redis.TimeoutError) as exc:
            raise StoreUnavailableError(f"{self.uri}: {exc}") from exc

    def _read(self, site: str) -> tuple[bytes | None, list[bytes]]:
        def read() -> tuple[bytes | None, list[bytes]]:
            with self.client.pipeline() as pipe:  # MULTI/EXEC: model and log of one moment
                pipe.get(self.prefix + site)
                pipe.lrange(self.log_prefix + site, 0, -1)
                blob, log = pipe.execute()
            return blob, log

        return self._call(read)

    def append(self, deltas: Sequence[SiteModel], fold: Collection[str] = ()) -> None:
        if deltas:
            self._call(self._append, deltas, fold)

    def _append(self, deltas: Sequence[SiteModel], fold: Collection[str]) -> None:
        with self.client.pipeline() as pipe:
            for delta in deltas:
                pipe.rpush(self.log_prefix + delta.site, delta.to_bytes())
            lengths = pipe.execute()
        longest: dict[str, int] = {}
        for delta, n in zip(deltas, lengths):
            longest[delta.site] = max(longest.get(delta.site, 0), n)
        for site, n in longest.items():
            if n >= COMPACT_AFTER or (site in fold and self.client.exists(self.prefix + site)):
                self._compact(site)

    def _compact(self, site: str) -> None:
        key, log_key = self.prefix + site, self.log_prefix + site
        with self.client.pipeline() as pipe:
            for _ in range(MAX_RETRIES):
                try:
                    pipe.watch(key, log_key)
                    log = pipe.lrange(log_key, 0, -1)
                    model, writable = self.combine(site, pipe.get(key), log)
                    model = model if model is not None else SiteModel(site=site)
                    pipe.multi()
                    if writable:
                        pipe.set(key, model.to_bytes())
                    pipe.ltrim(log_key, len(log), -1)
                    pipe.execute()
                    return
                except self._redis.WatchError:
                    continue
        raise StoreUnavailableError(f"{self.uri}: gave up merging {site!r} after "
                                    f"{MAX_RETRIES} conflicting writes")

    def sites(self) -> list[str]:
        def scan(prefix: str) -> set[str]:
            keys = self.client.scan_iter(match=prefix + "*", count=500)
            return {k.decode("utf-8", "replace")[len(prefix):] for k in keys}

        return sorted(self._call(lambda: scan(self.prefix) | scan(self.log_prefix)))

    def forget(self, site: str) -> bool:
        return bool(self._call(self.client.delete, self.prefix + site, self.log_prefix + site))

    def close(self) -> None:
        self.client.close()
