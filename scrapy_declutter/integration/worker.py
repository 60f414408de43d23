"""What runs inside one worker process (``DECLUTTER_PROCESSES``): its analyser, and what it sends back.

The crawl process sends a page as plain values (``WorkerPage``: body, URL,
Content-Type, the request's options, its ticket number) and gets an
``Answer`` back: for every page the analysis released, its ticket number and
its ``PageOutput`` (the item field values and a ``PageSummary`` for the
stats), plus the log lines and report counts the crawl process records.

The Result itself stays here unless the crawl asks for Results: sending one
back (``shipping``) costs about a tenth of the page's analysis, and most
crawls never read one. The worker keeps the last ``RECENT_RESULTS`` Results
it did not send; the first ``result_for(response)`` of the crawl fetches its
page's Result from here (``fetch``) and raises the crawl's shared flag
(``share``), after which every page's Result comes back with its answer.

The worker keeps its own ``Analyser`` with its own store connection (SQLite
and Redis take several writers; a ``memory:`` store is per process, which is
fine since every page of a site goes to the same worker), so each site's
warm-up and model live in one process, exactly as in-process. It writes the
inspection reports (``DECLUTTER_INSPECT_DIR``) itself, since only it has the
Results. Its log lines, the one INFO line per site at the end of its
warm-up among them, are caught and sent back, so that they reach Scrapy's log
through the crawl process's loggers.
"""

from __future__ import annotations

import gc
import logging
import os
import resource
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..page import parse_html, parse_utf8
from ..sniff import text_is_utf8
from .analyser import Analyser
from .handoff import PageOutput
from .shipping import ShippedResult

if TYPE_CHECKING:
    from scrapy.http import HtmlResponse

    from ..report.files import ReportSampler
    from ..result import Result
    from ..sitelearning.warmup import Released
    from .settings import DeclutterOptions

#: A caught log line: the logger's name (None: the crawl's own log), its level, the message.
LogLine = tuple["str | None", int, str]
#: The package whose module loggers are caught in a worker.
_PACKAGE = __name__.split(".")[0]
#: The logger the worker's analyser writes its per-site lines to: the spider's, back home.
_CRAWL_LOG = f"{_PACKAGE}.worker.crawl"


@dataclass(frozen=True)
class WorkerPage:
    """One response to analyse, as plain values (what crosses the pipe)."""

    ticket: int
    url: str
    body: bytes
    content_type: str | None
    options: DeclutterOptions


@dataclass
class Answer:
    """What a worker sends back for one call: the outputs it released, and what to record.

    ``error`` is the traceback of an analysis that raised (``error_type`` its
    exception's name), "" when none did: the crawl process logs and counts it
    as for an analysis in-process.
    """

    outputs: list[tuple[int, PageOutput]] = field(default_factory=list)
    seconds: float = 0.0
    logs: list[LogLine] = field(default_factory=list)
    reports_saved: int = 0
    report_errors: int = 0
    error: str = ""
    error_type: str = ""


@dataclass(frozen=True)
class _Key:
    """What a held page is submitted under in the worker: its ticket number and options."""

    ticket: int
    options: DeclutterOptions


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


class _Worker:
    """The state of this worker process: its analyser, report sampler and log catcher."""

    def __init__(self, store: str | None, max_held: int, inspector: ReportSampler | None,
                 trim: bool) -> None:
        self.catch = _Catch()
        for name in (_PACKAGE, _CRAWL_LOG):
            log = logging.getLogger(name)
            log.setLevel(logging.INFO)
            log.propagate = False
            log.addHandler(self.catch)
        self.analyser = Analyser(store, logging.getLogger(_CRAWL_LOG), max_held=max_held,
                                 trim=trim)
        self.inspector = inspector
        #: Ticket number -> Result, for the last pages answered without theirs (``fetch``).
        self.recent: dict[int, Result] = {}

    def answer(self, released: list[Released]) -> Answer:
        answer = Answer()
        ship = bool(_SHIP is not None and _SHIP.value)
        for r in released:
            answer.outputs.append((r.key.ticket, PageOutput.of_worker(r.result, r.key.options,
                                                                      ship=ship)))
            self.report(r.result, answer)
            if not ship:
                self.keep(r.key.ticket, r.result)
        answer.logs = self.catch.take()
        return answer

    def keep(self, ticket: int, result: Result) -> None:
        """Keep a Result not sent back, without its tree, for a while (``RECENT_RESULTS``)."""
        result.root = None  # a callback's Result is rebuilt on the crawl process's own tree
        self.recent[ticket] = result
        if len(self.recent) > RECENT_RESULTS:
            del self.recent[next(iter(self.recent))]  # the oldest: dicts keep insertion order

    def report(self, result: Any, answer: Answer) -> None:
        """Save the page's inspection report if sampled; a disk error only warns (back home)."""
        if self.inspector is None:
            return
        try:
            if self.inspector.save(result) is not None:
                answer.reports_saved += 1
        except OSError as e:
            answer.report_errors += 1
            answer.logs.append((_CRAWL_LOG, logging.WARNING,
                                f"scrapy_declutter could not save the report of {result.url}: {e}"))


_WORKER: _Worker | None = None
#: The crawl's flag, shared with every worker (``share``): nonzero once a callback asked
#: for a Result, from when on every Result is sent back with its page's answer.
_SHIP: Any = None
#: The worker's collector thresholds. Over 400 WCXB-dev pages through ``submit``, the
#: collector's time fell 0.50 -> 0.23 ms a page against (700, 10, 10), with the same peak
#: (275 MB). Before ``_parsed`` the same setting kept 100 MB more: every tree then waited
#: in a cycle for the collector.
GC_THRESHOLDS = (20_000, 10, 10)
#: Results kept for ``fetch``. A callback runs as soon as its page's answer arrives, so
#: only the last few are ever asked for; 64 cover CONCURRENT_REQUESTS = 32 twice.
RECENT_RESULTS = 64


def start(store: str | None, max_held: int, inspect_dir: str | None, inspect_sample: float,
          options: DeclutterOptions) -> tuple[int, list[LogLine]]:
    """Set this process up for a crawl; its pid, and what it logged (a store it cannot open).

    The crawl's core is built now (the model loaded, the store opened), so
    that a worker that cannot work fails here, at the crawl's start.
    """
    global _WORKER
    from ..report.files import ReportSampler

    inspector = ReportSampler(inspect_dir, inspect_sample) if inspect_dir else None
    _WORKER = _Worker(store, max_held, inspector, options.trim_memory)
    _WORKER.analyser.core(options)
    # What is loaded now (modules, the model) lives as long as the process: out of the
    # collector's generations, so that full collections walk only what pages leave (this
    # process is the plugin's own; the crawl process's collector is left alone). Measured
    # over 400 WCXB-dev pages through ``submit``: 15.2 -> 14.9 ms a page.
    gc.freeze()
    # A page makes some 10^5 objects and frees nearly all by reference counting (``_parsed``
    # keeps no cycle), so the default 700 ran a young collection every few blocks and a
    # full one, over the held pages' Blocks and the site models, every few pages.
    gc.set_threshold(*GC_THRESHOLDS)
    return os.getpid(), _WORKER.catch.take()


def share(flag: Any) -> None:
    """The pool's initializer: keep the crawl's shared "send Results back" flag."""
    global _SHIP
    _SHIP = flag


def fetch(ticket: int) -> ShippedResult | None:
    """The Result of a page answered without it, as sent back; None when no longer kept."""
    result = _started().recent.pop(ticket, None)
    return None if result is None else ShippedResult.of(result)


def submit(page: WorkerPage) -> Answer:
    """Analyse one page through its site's warm-up; the outputs it releases."""
    from scrapy.http import HtmlResponse  # the crawl process's decoding, exactly

    worker = _started()
    begin = time.thread_time()
    try:
        headers = {"Content-Type": page.content_type} if page.content_type else None
        response = HtmlResponse(page.url, body=page.body, headers=headers)
        utf8 = text_is_utf8(page.body, page.content_type)
        analyser = worker.analyser
        parsed = analyser.page_of_response(page.body, page.content_type,
                                           lambda: _parsed(response, utf8),
                                           lambda: response.text, page.url, page.options,
                                           utf8=utf8)
        released = analyser.submit(parsed, page.options, _Key(page.ticket, page.options))
    except Exception as e:  # logged and counted back home; the page's items go on
        return Answer(seconds=time.thread_time() - begin, logs=worker.catch.take(),
                      error=traceback.format_exc(), error_type=type(e).__name__)
    # Fields are built here, with the Result; counted in the page's CPU time.
    answer = worker.answer(released)
    answer.seconds = time.thread_time() - begin
    return answer


#: The characters of a page's text in which Scrapy's ``get_base_url`` looks for ``<base>``.
BASE_CHARS = 4096


def _parsed(response: HtmlResponse, utf8: bool) -> Any:
    """The tree ``response.selector.root`` gives, without the cycle it makes.

    Scrapy's ``Selector(response)`` is parsel's ``Selector`` over the
    response's text, HTML, with the response's base URL. ``page.parse_html``
    builds parsel's tree from the same text, node for node (a test holds it
    to parsel's on every bundled page), and finds it faster: parsel encodes
    the text with CPython's encoder, which takes text beyond Latin-1 a
    character at a time, and copies it twice more to strip it and drop NULs
    (0.4 ms of a worker's 9 ms a page, in a replay of the benchmark's
    pages). It is given the same base URL. Scrapy's selector also keeps the
    response, which caches it: a reference cycle that only the garbage
    collector frees, and with it the page's tree (40 pages of 40 in a
    worker's loop, ``gc.DEBUG_SAVEALL``). Freed by reference counting, this
    tree goes as soon as the page's analysis lets it go.

    With ``utf8`` (the response's text is its body read as UTF-8,
    ``sniff.text_is_utf8``) the body goes to the parser as it came
    (``page.parse_utf8``, the same bytes), and the text is not made: decoding,
    searching it for U+FFFD and encoding it again cost more than the
    validation. The base URL is then found as Scrapy's ``get_base_url`` finds
    it, in the text's first ``BASE_CHARS`` characters, decoded from at most
    four bytes each, as UTF-8 (Scrapy's windows-1252 for an ASCII page that
    declares nothing reads and quotes an ASCII ``<base>`` the same).
    """
    if not utf8:
        from scrapy.utils.response import get_base_url

        return parse_html(response.text, base_url=get_base_url(response))
    from w3lib.html import get_base_url as base_url_in

    head = response.body[:4 * BASE_CHARS].decode("utf-8", "ignore")[:BASE_CHARS]
    return parse_utf8(response.body, base_url=base_url_in(head, response.url, "utf-8"))


def release() -> Answer:
    """End every site's warm-up (the crawl is idle or closing): the held pages' outputs."""
    worker = _started()
    begin = time.thread_time()
    answer = worker.answer(worker.analyser.release())
    answer.seconds = time.thread_time() - begin
    return answer


def close() -> tuple[list[LogLine], float]:
    """Write the site models' pending increments and close the store.

    What was logged, and this process's peak resident memory in MB: a
    crawl's memory is the crawl process's and its workers'.
    """
    worker = _started()
    worker.analyser.close()
    # ru_maxrss is in KiB (Linux): MB of 10^6 bytes, as the crawl benchmark samples them.
    return worker.catch.take(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def _started() -> _Worker:
    if _WORKER is None:
        raise RuntimeError("this worker process was not started for a crawl")
    return _WORKER
