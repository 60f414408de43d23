"""Awaiting work done off the reactor, on an executor the plugin owns.

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

from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar

from scrapy.utils.asyncio import is_asyncio_available

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
