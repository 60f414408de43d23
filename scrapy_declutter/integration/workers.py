"""Worker processes (``DECLUTTER_PROCESSES``): the analysis on the machine's other cores.

Why processes: the analysis holds the GIL almost all its time, so on a
thread it shares one core with the reactor. A worker process runs
extraction and site learning on a core of its own while the reactor
downloads, parses for the spider and writes the feeds.

Each worker is a ``ProcessPoolExecutor`` of one process, started with
``spawn`` (never ``fork``: the crawl process runs the reactor's threads and
the store's writer thread) when the crawl starts, without waiting for it:
the first page sent to it waits until it is ready. Every page of a site goes
to the same worker (``zlib.crc32`` of its site key, stable across processes
and runs, unlike ``hash()``), so a site's model lives in one process.

A worker that cannot start, or dies (killed, out of memory), is reported
once; the page it was analysing goes on with empty fields, and its sites are
analysed in the crawl process for the rest of the crawl.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.spawn
import os
import zlib
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING

from ..errors import SettingsError
from ..segment import FALLBACK_SAID
from ..sitekey import site_key_function
from . import worker
from .backends import InProcess, wait_for
from .output import PageOutput
from .runner import Answer, Job, LogLine

if TYPE_CHECKING:
    from scrapy.http import Response

    from .settings import DeclutterOptions

#: How workers are started: a fresh interpreter, never a fork of the crawl process.
START_METHOD = "spawn"


class WorkerProcesses:
    """The crawl's worker processes, and the in-process backend for the sites of a lost one."""

    def __init__(self, count: int, store: str | None, options: DeclutterOptions,
                 fallback: Callable[[], InProcess]) -> None:
        self.count = count
        self.store = store
        self.options = options
        self.site_key = site_key_function(options.site_key)
        #: One pool of one process per worker; None once it is lost (its sites stay here).
        self.pools: list[ProcessPoolExecutor | None] = []
        self._started: list[Future[tuple[int, list[LogLine]]]] = []
        self.pids: list[int] = []
        self._fallback_factory = fallback
        self._fallback: InProcess | None = None

    def start(self) -> None:
        """Start every worker; none is waited for here (``analyse`` waits for its own).

        An interpreter that is not there (a frozen or moved install) is a
        broken set-up, told now; anything else a worker meets while starting
        sends its sites to the crawl process, with one error.
        """
        executable = multiprocessing.spawn.get_executable()
        if not os.access(executable, os.X_OK):
            raise SettingsError(f"DECLUTTER_PROCESSES={self.count}: worker processes cannot "
                                f"start, {executable!s} is not an interpreter here; set "
                                "DECLUTTER_PROCESSES=0 to analyse in the crawl process")
        context = multiprocessing.get_context(START_METHOD)
        os.environ[FALLBACK_SAID] = "1"  # inherited by the processes ``submit`` spawns
        try:
            for _ in range(self.count):
                pool = ProcessPoolExecutor(1, mp_context=context)
                self.pools.append(pool)
                self._started.append(pool.submit(worker.start, self.store, self.options))
        finally:
            del os.environ[FALLBACK_SAID]

    async def analyse(self, job: Job, response: Response | None = None) -> Answer:
        index = self._index(job)
        pool = self.pools[index] if index is not None else None
        if index is None or pool is None:
            return await self.fallback().analyse(job, response)
        try:
            started = self._started[index]
            pid, logs = started.result() if started.done() else await wait_for(started)
            logs = self._ready(index, pid, logs)
            running = pool.submit(worker.run, job)
        except Exception as e:  # noqa: BLE001 - lost before this page reached it: analysed here
            lost = self._lose(index, pool, e, job)
            answer = await self.fallback().analyse(job, response)
            if not answer.error:
                answer.error, answer.error_type = lost.error, lost.error_type
            return answer
        try:
            answer = await wait_for(running)
        except Exception as e:  # noqa: BLE001 - lost with this page: it may be the cause
            return self._lose(index, pool, e, job)
        answer.logs[:0] = logs
        return answer

    def _ready(self, index: int, pid: int, logs: list[LogLine]) -> list[LogLine]:
        """What a started worker logged, and where the analysis runs: said by its first page."""
        if pid in self.pids:
            return []
        self.pids.append(pid)
        return [*logs, (None, logging.INFO, f"scrapy_declutter's worker process {index} is ready, "
                        f"pid {pid}: it analyses its share of the sites (DECLUTTER_PROCESSES=0 "
                        "keeps the analysis in this process)")]

    def fallback(self) -> InProcess:
        """The in-process backend, made when a worker is first lost."""
        if self._fallback is None:
            self._fallback = self._fallback_factory()
        return self._fallback

    def close(self) -> tuple[list[LogLine], float]:
        """Write every worker's pending site-model increments, close their stores, stop them."""
        closing = [pool.submit(worker.close) for pool in self.pools if pool is not None]
        logs: list[LogLine] = []
        peak = 0.0
        try:
            for future in closing:
                try:
                    lines, mb = future.result()
                except Exception as e:  # noqa: BLE001 - the others still close
                    logs.append((None, logging.ERROR,
                                 f"scrapy_declutter could not close a worker process: {e!r}"))
                    continue
                logs += lines
                peak = max(peak, mb)
        finally:
            self.shutdown()
        if self._fallback is not None:
            logs += self._fallback.close()[0]
        return logs, peak

    def shutdown(self) -> None:
        """Stop every worker process (without waiting for work queued)."""
        for pool in self.pools:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self.pools = [None] * len(self.pools)

    def _index(self, job: Job) -> int | None:
        if job.url is None:
            return None
        site = self.site_key(job.url) or ""
        return zlib.crc32(site.encode("utf-8", "surrogatepass")) % self.count

    def _lose(self, index: int, pool: ProcessPoolExecutor, error: Exception, job: Job) -> Answer:
        """Report a lost worker once; this page goes on with empty fields."""
        first = self.pools[index] is pool
        if first:
            self.pools[index] = None
            pool.shutdown(wait=False, cancel_futures=True)
        reason = f"{type(error).__name__}: {error}"
        return Answer(PageOutput.unanalysed(job.options),
                      error=(f"worker process {index} stopped or could not start ({reason}); "
                             "its sites are analysed in the crawl process from now on"
                             if first else f"worker process {index} was lost ({reason})"),
                      error_type="worker_lost")

