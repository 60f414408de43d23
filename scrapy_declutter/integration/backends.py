"""Where analyses run: one interface, two implementations.

``InProcess`` runs them on the plugin's own thread (or inline on the
reactor, with ``DECLUTTER_THREADS = False``); ``workers.WorkerProcesses``
runs them in worker processes (``DECLUTTER_PROCESSES``). The crawl only
starts a backend, awaits ``analyse`` for each page and records the
``Answer``, and closes it: it never learns where the work was done.

Why one thread and not the event loop's default executor: the analysis
holds the GIL almost all its time, so several threads would only queue on
the analyser's lock and contend with the reactor for the GIL.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from scrapy.utils.asyncio import is_asyncio_available

from .analyser import Analyser
from .runner import Answer, Job, LogLine, Runner

if TYPE_CHECKING:
    from scrapy.http import Response

    from ..report.files import ReportSampler
    from .settings import DeclutterOptions

T = TypeVar("T")


class Backend(Protocol):
    """What the crawl asks of the place its analyses run."""

    def start(self) -> None:
        """Begin starting (a worker process may still be loading when this returns)."""

    async def analyse(self, job: Job, response: Response | None = None) -> Answer:
        """The Answer for one page; never raises for a bad page (the Answer says)."""

    def close(self) -> tuple[list[LogLine], float]:
        """Write what site learning keeps, stop; what was logged, the workers' peak MB."""


class InProcess:
    """Analyses in the crawl process, on one thread the plugin owns, or inline without one."""

    def __init__(self, store: str | None, options: DeclutterOptions, log: Any,
                 inspector: ReportSampler | None) -> None:
        self.analyser = Analyser(store, log, trim=options.trim_memory)
        self.runner = Runner(self.analyser, inspector)
        self.thread: Executor | None = (ThreadPoolExecutor(1, thread_name_prefix="scrapy_declutter")
                                        if options.threads else None)

    def start(self) -> None:
        """Nothing to start: the core is built with the first page."""

    async def analyse(self, job: Job, response: Response | None = None) -> Answer:
        if self.thread is None:
            return self.runner.run(job, response)
        return await run_on(self.thread, self.runner.run, job, response)

    def close(self) -> tuple[list[LogLine], float]:
        if self.thread is not None:
            self.thread.shutdown()  # the crawl is over: nothing is in flight
        self.analyser.close()
        return [], 0.0


async def run_on(executor: Executor, func: Callable[..., T], *args: Any) -> T:
    """Run ``func(*args)`` on ``executor`` and wait for it without blocking the reactor."""
    future = executor.submit(func, *args)
    return await wait_for(future)


async def wait_for(future: Future[T]) -> T:
    """Await a ``concurrent.futures`` future from the reactor, under asyncio or not."""
    if is_asyncio_available():
        import asyncio

        return await asyncio.wrap_future(future)
    from scrapy.utils.defer import maybe_deferred_to_future
    from twisted.internet import defer, reactor

    done: defer.Deferred[T] = defer.Deferred()

    def settle(finished: Future[T]) -> None:  # on the reactor thread
        error = finished.exception()
        if error is not None:
            done.errback(error)
        else:
            done.callback(finished.result())

    future.add_done_callback(lambda f: reactor.callFromThread(settle, f))  # type: ignore[attr-defined]
    return await maybe_deferred_to_future(done)
