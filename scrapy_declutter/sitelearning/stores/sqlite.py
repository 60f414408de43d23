"""The SQLite store: one file, shared safely by any number of processes on a machine.

``merge`` runs in a ``BEGIN IMMEDIATE`` transaction (read, add, write), which
SQLite serialises across processes: two crawlers writing the same site both
land. A file that is not an SQLite database is moved aside to
``<file>.corrupt`` (logged as an error) and a fresh one is started, so the
crawl goes on and the broken file stays for inspection.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from pathlib import Path

from ...errors import StoreError, StoreUnavailableError
from ..model import SiteModel
from .base import SiteStore

logger = logging.getLogger(__name__)

#: Seconds a writer waits for another process's transaction before giving up.
BUSY_TIMEOUT = 30.0
SCHEMA = "CREATE TABLE IF NOT EXISTS site_models (site TEXT PRIMARY KEY, model BLOB NOT NULL, updated REAL NOT NULL)"


class SQLiteStore(SiteStore):
    """Site models in an SQLite file."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = BUSY_TIMEOUT) -> None:
        self.path = Path(path)
        self.uri = f"sqlite:///{self.path}" if self.path.is_absolute() else f"sqlite:{self.path}"
        self.timeout = timeout
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._connect()

    @classmethod
    def from_uri(cls, uri: str) -> "SQLiteStore":
        """``sqlite:///abs/path.db``, ``sqlite:relative.db`` or ``sqlite://relative.db``."""
        rest = uri.partition(":")[2]
        path = rest[2:] if rest.startswith("//") else rest
        if not path or path == "/":
            raise StoreError(f"store URI {uri!r} names no file; use sqlite:///path/to/file.db")
        return cls(path)

    def _connect(self) -> None:
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = self._open()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise StoreUnavailableError(f"{self.uri}: {exc}") from exc
            aside = self.path.with_name(self.path.name + f".corrupt-{int(time.time())}")
            logger.error("site store %s is not a usable SQLite database (%s); moved it to %s "
                         "and started a fresh one", self.path, exc, aside)
            os.replace(self.path, aside)
            self._conn = self._open()

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self.path), timeout=self.timeout, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(SCHEMA)
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreUnavailableError(f"{self.uri} is closed")
        return self._conn

    def _get(self, site: str) -> bytes | None:
        with self._lock:
            try:
                row = self.conn.execute("SELECT model FROM site_models WHERE site = ?",
                                        (site,)).fetchone()
            except sqlite3.OperationalError as exc:
                raise StoreUnavailableError(f"{self.uri}: {exc}") from exc
        return bytes(row[0]) if row else None

    def merge(self, site: str, delta: SiteModel) -> SiteModel:
        with self._lock:
            conn = self.conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    row = conn.execute("SELECT model FROM site_models WHERE site = ?",
                                       (site,)).fetchone()
                    stored, writable = self.decode(site, bytes(row[0]) if row else None)
                    model = self.merged(site, stored, delta)
                    if writable:
                        conn.execute(
                            "INSERT INTO site_models (site, model, updated) VALUES (?, ?, ?) "
                            "ON CONFLICT(site) DO UPDATE SET model = excluded.model, "
                            "updated = excluded.updated",
                            (site, model.to_bytes(), time.time()))
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as exc:
                raise StoreUnavailableError(f"{self.uri}: {exc}") from exc
        return model

    def sites(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self.conn.execute("SELECT site FROM site_models ORDER BY site")]

    def forget(self, site: str) -> bool:
        with self._lock:
            cur = self.conn.execute("DELETE FROM site_models WHERE site = ?", (site,))
            return cur.rowcount > 0

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
