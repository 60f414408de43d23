"""The SQLite store: one file, shared safely by any number of processes on a machine.

``append`` runs in a ``BEGIN IMMEDIATE`` transaction, which SQLite serialises
across processes. WAL with ``synchronous=NORMAL``: a power cut may lose the last
writes, never the file. A file that is not an SQLite database is moved aside to
``<file>.corrupt-<time>`` (logged) and a fresh one started.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Collection, Sequence

from ...errors import StoreError, StoreUnavailableError
from ..model import SiteModel
from .base import COMPACT_AFTER, SiteStore

logger = logging.getLogger(__name__)

#: Seconds a writer waits for another process's transaction before giving up.
BUSY_TIMEOUT = 30.0
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS site_models (site TEXT PRIMARY KEY, model BLOB NOT NULL, "
    "updated REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS site_deltas (id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "site TEXT NOT NULL, delta BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS site_deltas_site ON site_deltas (site, id)",
)


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
            self._set_up(conn)
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _set_up(self, conn: sqlite3.Connection) -> None:
        """Switch to WAL and create the tables, retried until the busy timeout: SQLite answers
        "locked" at once, without its busy handler, to a second process opening a fresh file."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                for statement in SCHEMA:
                    conn.execute(statement)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreUnavailableError(f"{self.uri} is closed")
        return self._conn

    def _read(self, site: str) -> tuple[bytes | None, list[bytes]]:
        with self._lock:
            try:
                # (model, log): the newest id is only for compaction
                return self._in_transaction("BEGIN", lambda conn: self._rows(conn, site)[::2])
            except sqlite3.OperationalError as exc:
                raise StoreUnavailableError(f"{self.uri}: {exc}") from exc

    @staticmethod
    def _rows(conn: sqlite3.Connection, site: str) -> tuple[bytes | None, int, list[bytes]]:
        """(model bytes, id of the newest delta read, the log's delta bytes)."""
        row = conn.execute("SELECT model FROM site_models WHERE site = ?", (site,)).fetchone()
        log = conn.execute("SELECT id, delta FROM site_deltas WHERE site = ? ORDER BY id",
                           (site,)).fetchall()
        return (bytes(row[0]) if row else None, log[-1][0] if log else 0,
                [bytes(blob) for _, blob in log])

    def _compact(self, conn: sqlite3.Connection, site: str) -> None:
        blob, last, log = self._rows(conn, site)
        model, writable = self.combine(site, blob, log)
        model = model if model is not None else SiteModel(site=site)
        if writable:
            conn.execute("INSERT INTO site_models (site, model, updated) VALUES (?, ?, ?) "
                         "ON CONFLICT(site) DO UPDATE SET model = excluded.model, "
                         "updated = excluded.updated", (site, model.to_bytes(), time.time()))
        conn.execute("DELETE FROM site_deltas WHERE site = ? AND id <= ?", (site, last))

    def _in_transaction(self, begin: str, work):
        conn = self.conn
        conn.execute(begin)
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return result

    def _write(self, work):
        with self._lock:
            try:
                return self._in_transaction("BEGIN IMMEDIATE", work)
            except sqlite3.OperationalError as exc:
                raise StoreUnavailableError(f"{self.uri}: {exc}") from exc

    def append(self, deltas: Sequence[SiteModel], fold: Collection[str] = ()) -> None:
        def work(conn: sqlite3.Connection) -> None:
            # A generator: a blob is made as its row is inserted, not the batch's at once.
            conn.executemany("INSERT INTO site_deltas (site, delta) VALUES (?, ?)",
                             ((d.site, d.to_bytes()) for d in deltas))
            for site in {d.site for d in deltas}:
                (n,) = conn.execute("SELECT COUNT(*) FROM site_deltas WHERE site = ?",
                                    (site,)).fetchone()
                if n >= COMPACT_AFTER or (site in fold and conn.execute(
                        "SELECT 1 FROM site_models WHERE site = ?", (site,)).fetchone()):
                    self._compact(conn, site)

        if deltas:
            self._write(work)

    def sites(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self.conn.execute(
                "SELECT site FROM site_models UNION SELECT site FROM site_deltas ORDER BY site")]

    def forget(self, site: str) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            logged = conn.execute("DELETE FROM site_deltas WHERE site = ?", (site,)).rowcount
            return conn.execute("DELETE FROM site_models WHERE site = ?",
                                (site,)).rowcount + logged > 0

        return self._write(work)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
