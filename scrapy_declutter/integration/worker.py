"""What runs inside one worker process (``DECLUTTER_PROCESSES``): a ``Runner`` and its log.

The crawl process sends a ``runner.Job`` (body, URL, Content-Type, the
request's options) and gets the ``runner.Answer`` back, the page's Result
packed as bytes (``output.PageOutput``), plus the log lines this process
wrote, which the crawl process sends on to its own loggers.

The worker keeps its own ``Analyser`` with its own store connection (SQLite
and Redis take several writers; a ``memory:`` store is per process, which is
fine since every page of a site goes to the same worker), so each site's
model lives in one process, exactly as in-process.
"""

from __future__ import annotations

import gc
import logging
import os
import resource
from typing import TYPE_CHECKING

from .analyser import Analyser
from .runner import Answer, Job, LogLine, Runner

if TYPE_CHECKING:
    from .settings import DeclutterOptions

#: The package whose module loggers are caught in a worker.
_PACKAGE = __name__.split(".")[0]
#: The logger the worker's analyser writes its per-site lines to: the spider's, back home.
_CRAWL_LOG = f"{_PACKAGE}.worker.crawl"
#: The worker's collector thresholds: a page makes some 10^5 objects and frees nearly all
#: by reference counting, so the default 700 ran young collections every few blocks.
GC_THRESHOLDS = (20_000, 10, 10)


class _Catch(logging.Handler):
    """Keeps the records of one call, to send them back with its answer."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[LogLine] = []

    def emit(self, record: logging.LogRecord) -> None:
        name = None if record.name == _CRAWL_LOG else record.name
        self.lines.append((name, record.levelno, record.getMessage()))

    def take(self) -> list[LogLine]:
        lines, self.lines = self.lines, []
        return lines


_RUNNER: Runner | None = None
_CATCH = _Catch()


def start(store: str | None, options: DeclutterOptions) -> tuple[int, list[LogLine]]:
    """Set this process up for a crawl; its pid, and what it logged (a store it cannot open).

    The crawl's core is built now (the model loaded, the store opened), so
    that a worker that cannot work says so before its first page.
    """
    global _RUNNER
    from ..report.files import ReportSampler

    for name in (_PACKAGE, _CRAWL_LOG):
        log = logging.getLogger(name)
        log.setLevel(logging.INFO)
        log.propagate = False
        log.addHandler(_CATCH)
    analyser = Analyser(store, logging.getLogger(_CRAWL_LOG), trim=options.trim_memory)
    inspector = (ReportSampler(options.inspect_dir, options.inspect_sample)
                 if options.inspect_dir else None)
    _RUNNER = Runner(analyser, inspector, pack=True)
    analyser.core(options)
    # What is loaded now lives as long as the process: out of the collector's generations,
    # so that full collections walk only what pages leave.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    return os.getpid(), _CATCH.take()


def run(job: Job) -> Answer:
    """Analyse one page; its Answer, with what this process logged meanwhile."""
    answer = _started().run(job)
    answer.logs += _CATCH.take()
    return answer


def close() -> tuple[list[LogLine], float]:
    """Write the site models' pending increments and close the store.

    What was logged, and this process's peak resident memory in MB.
    """
    _started().analyser.close()
    # ru_maxrss is in KiB (Linux): MB of 10^6 bytes, as the crawl benchmark samples them.
    return _CATCH.take(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def _started() -> Runner:
    if _RUNNER is None:
        raise RuntimeError("this worker process was not started for a crawl")
    return _RUNNER
