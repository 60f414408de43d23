"""Analyses done off the reactor, on an executor the plugin owns, and timed in CPU seconds.

Why not ``scrapy.utils.asyncio.run_in_thread``: it runs on the event loop's
default executor (``asyncio.to_thread``: min(32, cores + 4) threads, 6 on 2
cores) or Twisted's thread pool. Several threads then parse pages at once
and queue on the analyser's lock, every one of them taking turns at the GIL
with the reactor: measured on 100 sites on 2 cores, that costs some 10 ms of
CPU per page against analysing inline on the reactor. The analysis holds the
GIL almost all its time, so one thread does the same work with none of the
contention; the plugin owns that thread (``analysis_thread``) and awaits it
here, the same way under the asyncio reactor and any other.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy.utils.asyncio import is_asyncio_available

from .handoff import PageOutput

if TYPE_CHECKING:
    from ..result import Result
    from ..sitelearning.warmup import Released
    from .handoff import Ticket
    from .settings import DeclutterOptions

T = TypeVar("T")


def analysis_thread() -> ThreadPoolExecutor:
    """The crawl's one analysis thread (named so that a profile or a thread dump shows it)."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="scrapy_declutter")


async def run_on(executor: Executor, func: Callable[..., T], *args: Any) -> T:
    """Run ``func(*args)`` on ``executor`` and wait for it without blocking the reactor."""
    future = executor.submit(func, *args)
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


def timed_analysis(
    func: Callable[..., Result], options: DeclutterOptions, *args: Any
) -> tuple[PageOutput, float]:
    """Call ``func``, build the item field values, and measure the calling thread's CPU time.

    CPU time, not wall time: wall time would count the waits for the GIL
    and the analyser's lock (the reactor and the pipeline analyse too). The
    field values (a dict per block when blocks are asked for) are built here,
    off the reactor: on a page of thousands of blocks that takes milliseconds.
    """
    start = time.thread_time()
    result = func(*args, options)
    output = PageOutput.of(result, options)
    return output, time.thread_time() - start


def timed_release(
    func: Callable[..., list[Released]], *args: Any
) -> tuple[list[tuple[Ticket, PageOutput]], float]:
    """``timed_analysis`` for a page submitted through its site's warm-up: every page it releases."""
    start = time.thread_time()
    outputs = [(r.key, PageOutput.of(r.result, r.key.options)) for r in func(*args)]
    return outputs, time.thread_time() - start
