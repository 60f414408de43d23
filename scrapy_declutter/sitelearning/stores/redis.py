"""The Redis store: site models shared by crawls on several processes or machines.

Each model is one key, ``<prefix><site>``. ``merge`` is optimistic: WATCH
the key, read, add the delta, write in MULTI/EXEC, and start again if another
writer got there first, so nothing is lost. Needs the ``redis`` extra
(``pip install scrapy-declutter[redis]``). Connection failures raise
``StoreUnavailableError``; the client reconnects by itself once the server
is back.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit, urlunsplit

from ...errors import StoreError, StoreUnavailableError
from ..model import SiteModel
from .base import SiteStore

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
        self.client = redis.Redis.from_url(uri, socket_timeout=timeout,
                                           socket_connect_timeout=timeout)

    def _key(self, site: str) -> str:
        return self.prefix + site

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except (self._redis.ConnectionError, self._redis.TimeoutError) as exc:
            raise StoreUnavailableError(f"{self.uri}: {exc}") from exc

    def _get(self, site: str) -> bytes | None:
        return self._call(self.client.get, self._key(site))

    def merge(self, site: str, delta: SiteModel) -> SiteModel:
        return self._call(self._merge, site, delta)

    def _merge(self, site: str, delta: SiteModel) -> SiteModel:
        key = self._key(site)
        with self.client.pipeline() as pipe:
            for _ in range(MAX_RETRIES):
                try:
                    pipe.watch(key)
                    stored, writable = self.decode(site, pipe.get(key))
                    model = self.merged(site, stored, delta)
                    if not writable:
                        pipe.unwatch()
                        return model
                    pipe.multi()
                    pipe.set(key, model.to_bytes())
                    pipe.execute()
                    return model
                except self._redis.WatchError:
                    continue
        raise StoreUnavailableError(f"{self.uri}: gave up merging {site!r} after "
                                    f"{MAX_RETRIES} conflicting writes")

    def sites(self) -> list[str]:
        keys = self._call(lambda: list(self.client.scan_iter(match=self.prefix + "*", count=500)))
        return sorted(k.decode("utf-8", "replace")[len(self.prefix):] for k in keys)

    def forget(self, site: str) -> bool:
        return bool(self._call(self.client.delete, self._key(site)))

    def close(self) -> None:
        self.client.close()
