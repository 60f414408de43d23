"""Worker processes (``DECLUTTER_PROCESSES``): the analysis on the machine's other cores.

Why processes: the analysis holds the GIL almost all its time, so on a
thread it shares one core with the reactor; the crawl is GIL-bound at about
one core in every mode. A worker process runs extraction and site learning
on a core of its own while the reactor downloads, parses for the spider and
writes the feeds.

Each worker is a ``ProcessPoolExecutor`` of one process, started with
``spawn`` (never ``fork``: the crawl process runs the reactor's threads and
the store's writer thread), once per crawl, when the spider opens; the crawl
does not start if a worker cannot (``start`` raises DeclutterError). Every page of a site
goes to the same worker (``zlib.crc32`` of its site key, stable across
processes and runs, unlike ``hash()``), so a site's warm-up and model live in
one process and the warm-up behaves as in-process: its pages are held there,
under that worker's share of the bound on held pages, and released by a
later page of the site, at ``spider_idle`` or at close.

A worker that dies (killed, out of memory) is noticed by the next call to
it: every page it was analysing or holding is given up (``Lost``), so that
the crawl settles their tickets with empty fields and sends their items on;
its sites are then analysed in the crawl process for the rest of the crawl.
"""

from __future__ import annotations

import functools
import itertools
import multiprocessing
import zlib
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import DeclutterError
from ..sitekey import site_key_function
from . import worker
from .offload import run_on

if TYPE_CHECKING:
    from .handoff import PageOutput, Ticket
    from .settings import DeclutterOptions
    from .shipping import ShippedResult

#: How workers are started: a fresh interpreter, never a fork of the crawl process.
START_METHOD = "spawn"
#: Seconds a worker may take to start (import, load the model, open the store).
START_TIMEOUT = 120.0
#: Seconds a callback's ``result_for`` waits for a worker to hand over a kept Result.
FETCH_TIMEOUT = 60.0
#: What one call to a worker gives back: the outputs it released, under their tickets,
#: and the worker's answer (its log lines, CPU time and report counts).
Reply = tuple["list[tuple[Ticket, PageOutput]]", worker.Answer]


@dataclass
class Lost:
    """The pages of a worker that died: their items go on with empty fields.

    ``reason`` is "" when another call already reported that worker's death
    (its pages were given up then).
    """

    worker: int
    reason: str
    tickets: list[Ticket]


class Workers:
    """The crawl's worker processes and the tickets each holds."""

    def __init__(self, count: int, store: str | None, options: DeclutterOptions,
                 max_held: int) -> None:
        self.count = count
        self.store = store
        self.options = options
        #: Each worker's share of the bound on pages held in warm-ups.
        self.max_held = max(1, max_held // count)
        #: One pool of one process per worker; None once it died (its sites stay here).
        self.pools: list[ProcessPoolExecutor | None] = []
        self.pids: list[int] = []
        #: Per worker: ticket number -> Ticket, for every page sent and not yet released.
        self._tickets: list[dict[int, Ticket]] = [{} for _ in range(count)]
        self._numbers = itertools.count()
        #: Shared with every worker (``worker.share``): raised by the first fetch.
        self._ship: Any = None
        #: Kept Results fetched for callbacks (each one a wait of the reactor).
        self.fetched = 0

    def start(self) -> list[worker.LogLine]:
        """Start every worker and wait until all are ready; DeclutterError saying why one is not.

        What the workers logged while starting (a store they cannot open).
        """
        context = multiprocessing.get_context(START_METHOD)
        options = self.options
        # Any step may fail: the pool's queues start the resource tracker, a process, submit
        # starts the worker, and an interpreter that cannot start raises in either.
        try:
            # One byte of shared memory, handed to each worker as it is spawned.
            self._ship = context.RawValue("b", 0)
            for _ in range(self.count):
                self.pools.append(ProcessPoolExecutor(1, mp_context=context,
                                                      initializer=worker.share,
                                                      initargs=(self._ship,)))
            started = [pool.submit(worker.start, self.store, self.max_held, options.inspect_dir,
                                   options.inspect_sample, options) for pool in self.pools]
            ready = [future.result(timeout=START_TIMEOUT) for future in started]
        except Exception as e:
            self.shutdown()
            raise DeclutterError(f"a worker process (DECLUTTER_PROCESSES={self.count}) could not "
                                 f"start: {type(e).__name__}: {e}") from e
        self.pids = [pid for pid, _ in ready]
        return [line for _, logs in ready for line in logs]

    def of(self, url: str, options: DeclutterOptions) -> int | None:
        """The worker that analyses the pages of this URL's site; None when it died."""
        site = site_key_function(options.site_key)(url) or ""
        index = zlib.crc32(site.encode("utf-8", "surrogatepass")) % self.count
        return index if self.pools[index] is not None else None

    async def submit(self, index: int, ticket: Ticket, body: bytes,
                     content_type: str | None) -> Reply | Lost:
        """Analyse one page in worker ``index``; what was given up with it if that worker died."""
        pool = self.pools[index]
        assert pool is not None  # the caller asked ``of`` just now
        number = next(self._numbers)
        self._tickets[index][number] = ticket
        page = worker.WorkerPage(number, ticket.url, body, content_type, ticket.options)
        try:
            answer = await run_on(pool, worker.submit, page)
        except BrokenProcessPool as e:
            return self._lose(index, pool, e)
        return self._resolved(index, answer), answer

    def fetch(self, index: int, number: int) -> ShippedResult | None:
        """A kept Result, from its worker, waiting for it; None if it is gone.

        Called by a callback's ``result_for``, so the reactor waits: the
        worker answers the pages queued before this call first. Every later
        Result is sent back with its page (the shared flag), so a crawl
        waits so only for the pages answered before its first ``result_for``.
        """
        if self._ship is not None:
            self._ship.value = 1
        self.fetched += 1
        pool = self.pools[index]
        if pool is None:
            return None
        try:
            return pool.submit(worker.fetch, number).result(timeout=FETCH_TIMEOUT)
        except (BrokenProcessPool, TimeoutError):
            return None

    def release(self) -> tuple[list[Reply], list[Lost]]:
        """End every warm-up in every worker, waiting for them (the spider is idle or closing).

        Blocking is what the in-process path does too: at idle or close the
        reactor has nothing else to serve.
        """
        calls = [(index, pool, pool.submit(worker.release))
                 for index, pool in enumerate(self.pools) if pool is not None]
        replies, lost = [], []
        for index, pool, future in calls:
            try:
                answer = future.result()
            except BrokenProcessPool as e:
                lost.append(self._lose(index, pool, e))
                continue
            replies.append((self._resolved(index, answer), answer))
        return replies, lost

    def close(self) -> tuple[list[worker.LogLine], float]:
        """Write every worker's pending site-model increments, close their stores, stop them.

        What they logged, and the largest peak resident memory among them (MB).
        """
        closing: list[Future[tuple[list[worker.LogLine], float]]] = [
            pool.submit(worker.close) for pool in self.pools if pool is not None]
        try:
            closed = [future.result() for future in closing]
        finally:
            self.shutdown()
        return [line for logs, _ in closed for line in logs], max((mb for _, mb in closed),
                                                                    default=0.0)

    def shutdown(self) -> None:
        """Stop every worker process (without waiting for work queued)."""
        for pool in self.pools:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self.pools = [None] * len(self.pools)

    def _resolved(self, index: int, answer: worker.Answer) -> list[tuple[Ticket, PageOutput]]:
        tickets = self._tickets[index]
        outputs = [(tickets.pop(number, None), number, output)
                   for number, output in answer.outputs]
        # None: given up meanwhile, by a call that found the worker dead right after this answer.
        return [(ticket, output if output.shipped is not None
                 else replace(output, kept=functools.partial(self.fetch, index, number)))
                for ticket, number, output in outputs if ticket is not None]

    def _lose(self, index: int, pool: ProcessPoolExecutor, error: Exception) -> Lost:
        """Give up a dead worker's pages, once: the first call that finds it dead reports it."""
        if self.pools[index] is not pool:
            return Lost(index, "", [])
        self.pools[index] = None
        pool.shutdown(wait=False, cancel_futures=True)
        tickets, self._tickets[index] = list(self._tickets[index].values()), {}
        return Lost(index, f"{type(error).__name__}: {error}", tickets)
