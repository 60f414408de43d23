"""What the components of one crawler share: options, the analyser, stats and the summary.

The downloader middleware, the spider middleware and the pipeline are separate
objects that Scrapy builds per crawler; they share one ``CrawlState`` (one
store connection, one set of sites seen, one summary line at spider close).

The state is also where a broken set-up is caught: the first component
Scrapy builds reads and checks every option (``settings``), the store's
scheme and backend, and that site learning imports. Any problem becomes one error
logged when the spider opens, and the spider is closed before its first
request with the finish reason ``declutter_setup_error``. Raising from
``from_crawler`` instead would make Scrapy print a traceback under
"Task exception was never retrieved"; closing at open is Scrapy's own way
(2.18+) for a component that cannot start.
"""

from __future__ import annotations

import logging
import textwrap
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy import signals, version_info
from scrapy.exceptions import CloseSpider, DontCloseSpider, NotConfigured

from ..errors import DeclutterError
from ..report.files import ReportSampler
from .analyser import Analyser
from .handoff import PageOutput, PageSummary, Ticket
from .holding import HeldItems
from .items import FieldWriter
from .offload import analysis_thread, run_on, timed_analysis, timed_release
from .settings import DeclutterOptions, SettingsError, boolean
from .setup_checks import checked_store
from .worker import Answer
from .workers import Lost, Workers

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from ..result import Result
    from ..sitelearning.warmup import Released

logger = logging.getLogger(__name__)


#: Finish reason of a crawl stopped at start by a broken set-up.
SETUP_ERROR = "declutter_setup_error"
#: Scrapy 2.18 lets a component close the spider while it opens; before, only raising stops it.
_CLOSES_AT_OPEN = version_info >= (2, 18)


_STATES: weakref.WeakKeyDictionary[Crawler, CrawlState] = weakref.WeakKeyDictionary()


class CrawlState:
    """Per-crawler state; get it with ``CrawlState.of(crawler)``."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.writer = FieldWriter(self.stats)
        self.sites: set[str] = set()
        #: Why the plugin cannot run (every problem, one per line); "" when it can.
        self.setup_error = ""
        try:
            self.options = DeclutterOptions.from_crawler(crawler)
            store = checked_store(self.options)
        except SettingsError as e:
            self.options, store, self.setup_error = DeclutterOptions(), None, str(e)
        self.analyser = Analyser(store, self.log, trim=self.options.trim_memory)
        self.held = HeldItems(crawler, self.writer)
        #: Where analyses run with DECLUTTER_THREADS (``offload``: one thread, not a pool).
        self.thread = analysis_thread()
        # DECLUTTER_INSPECT_DIR / DECLUTTER_INSPECT_SAMPLE: HTML reports of a sample of pages.
        self.inspector = (ReportSampler(self.options.inspect_dir, self.options.inspect_sample)
                          if self.options.inspect_dir else None)
        #: DECLUTTER_PROCESSES: the worker processes, started when the spider opens.
        self.workers: Workers | None = None
        if self.options.processes and not self.setup_error:
            from ..sitelearning.warmup import MAX_HELD_PAGES

            self.workers = Workers(self.options.processes, store, self.options, MAX_HELD_PAGES)
            crawler.signals.connect(self.start_workers, signal=signals.spider_opened)
        if self.setup_error:
            if not _CLOSES_AT_OPEN:
                raise SettingsError(self.setup_error)
            crawler.signals.connect(self.refuse_to_start, signal=signals.spider_opened)
        else:
            crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
            crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)

    def refuse_to_start(self, spider: Any) -> None:
        """spider_opened: log the set-up problems once and close the spider before it crawls."""
        self.log.error("scrapy_declutter cannot start, so the spider is closed:\n%s",
                       textwrap.indent(self.setup_error, "  "))
        raise CloseSpider(SETUP_ERROR)

    def start_workers(self, spider: Any) -> None:
        """spider_opened: start the worker processes; a crawl whose workers cannot start stops."""
        assert self.workers is not None
        try:
            self.heard(Answer(logs=self.workers.start()))
            # Said once, since the default starts one: where the analysis (and its CPU) is.
            self.log.info("scrapy_declutter analyses pages in %d worker process(es), pids %s "
                          "(DECLUTTER_PROCESSES=0 keeps them in this process)",
                          self.workers.count, ", ".join(map(str, self.workers.pids)))
        except DeclutterError as e:
            self.workers = None
            if not _CLOSES_AT_OPEN:  # cannot close now: the analysis stays in this process
                self.log.error("%s; the pages are analysed in the crawl process instead", e)
                return
            self.log.error("scrapy_declutter cannot start, so the spider is closed:\n  %s", e)
            raise CloseSpider(SETUP_ERROR) from None

    @classmethod
    def of(cls, crawler: Crawler) -> CrawlState:
        state = _STATES.get(crawler)
        if state is None:
            state = _STATES[crawler] = cls(crawler)
        return state

    @property
    def log(self) -> Any:
        spider = getattr(self.crawler, "spider", None)
        return spider.logger if spider is not None else logger

    async def analyse(
        self, url: str | None, options: DeclutterOptions, func: Callable[..., Result], *args: Any
    ) -> PageOutput:
        """Run one extraction, ``func(*args, options)``, on a thread unless DECLUTTER_THREADS is off.

        Any exception is caught here: it is logged with the URL, counted in
        ``declutter/errors``, and the output has no Result and None fields, so
        the items go out with empty clean fields.
        """
        try:
            if options.threads:
                output, seconds = await run_on(self.thread, timed_analysis, func, options, *args)
            else:
                output, seconds = timed_analysis(func, options, *args)
        except Exception as e:  # one bad page must never stop a crawl or lose its items
            self.failed(url, e)
            return PageOutput.unanalysed(options)
        self.timed(seconds)
        self.record(output.summary)
        return output

    async def submit(self, ticket: Ticket, func: Callable[..., list[Released]],
                     *args: Any) -> None:
        """Run ``func(*args, ticket.options, ticket)`` through the site's warm-up; settle what it releases.

        Like ``analyse``: on a thread unless DECLUTTER_THREADS is off, and any
        exception is logged and counted, the ticket settled with None fields.
        """
        self.held.open(ticket)
        options = ticket.options
        try:
            if options.threads:
                outputs, seconds = await run_on(self.thread, timed_release, func, *args,
                                                options, ticket)
            else:
                outputs, seconds = timed_release(func, *args, options, ticket)
        except Exception as e:  # one bad page must never stop a crawl or lose its items
            self.failed(ticket.url, e)
            outputs, seconds = [(ticket, PageOutput.unanalysed(options))], 0.0
        self._submitted(ticket, outputs, seconds)

    async def send(self, ticket: Ticket, body: bytes, content_type: str | None,
                   func: Callable[..., list[Released]], *args: Any) -> None:
        """``submit`` in the worker process of the ticket's site (``workers``), if there is one.

        Without workers, or once that site's worker died, the page is
        analysed here by ``func(*args, ticket.options, ticket)``. A worker
        that died gives up the pages it held: they are settled here with
        None fields.
        """
        workers = self.workers
        index = workers.of(ticket.url, ticket.options) if workers is not None else None
        if workers is None or index is None:
            await self.submit(ticket, func, *args)
            return
        self.held.open(ticket)
        try:
            reply = await workers.submit(index, ticket, body, content_type)
            if isinstance(reply, Lost):
                self.held.send(self.lose(reply))
                return
            outputs, answer = reply
        except Exception as e:  # noqa: BLE001 - the page's items go on with empty fields
            self.failed(ticket.url, e)
            outputs, answer = [(ticket, PageOutput.unanalysed(ticket.options))], Answer()
        self.heard(answer)
        if answer.error:
            self.count_error(answer.error_type)
            self.log.error("scrapy_declutter could not analyse %s (in its worker process):\n%s",
                           ticket.url, answer.error)
            outputs.append((ticket, PageOutput.unanalysed(ticket.options)))
        self._submitted(ticket, outputs, answer.seconds)

    def _submitted(self, ticket: Ticket, outputs: list[tuple[Ticket, PageOutput]],
                   seconds: float) -> None:
        """Settle what a submitted page released: it may be held (none of the outputs is its)."""
        if not any(t is ticket for t, _ in outputs):
            self.stats.inc_value("declutter/warmup/held_pages")
        self.timed(seconds)
        self.held.send(self.settle(outputs))

    def heard(self, answer: Answer) -> None:
        """Record what a worker sent back beside its outputs: its log lines and reports saved."""
        for name, level, message in answer.logs:
            (self.log if name is None else logging.getLogger(name)).log(level, "%s", message)
        if answer.reports_saved:
            self.stats.inc_value("declutter/inspect/saved", answer.reports_saved)
        if answer.report_errors:
            self.stats.inc_value("declutter/inspect/errors", answer.report_errors)

    def lose(self, lost: Lost) -> list[Any]:
        """A worker died: report it once, settle its pages with None fields; their held items."""
        if lost.reason:
            self.count_error("worker_lost")
            self.stats.inc_value("declutter/workers/lost_pages", len(lost.tickets))
            self.log.error("scrapy_declutter's worker process %d stopped (%s): the %d pages it "
                           "was analysing or holding go on with empty fields, and its sites are "
                           "analysed in the crawl process from now on", lost.worker, lost.reason,
                           len(lost.tickets))
        items: list[Any] = []
        for ticket in lost.tickets:
            items += self.held.settle(ticket, PageOutput.unanalysed(ticket.options))
        return items

    def settle(self, outputs: list[tuple[Ticket, PageOutput]]) -> list[Any]:
        """Give released pages their outputs; send on (and return) the items they held."""
        items: list[Any] = []
        for ticket, output in outputs:
            if output.summary is not None:
                self.record(output.summary)
            if output.shipped is not None:
                self.stats.inc_value("declutter/workers/results_sent")
            if output.result is not None:
                self.report(output.result)
            items += self.held.settle(ticket, output)
        return items

    def failed(self, url: str | None, error: Exception) -> None:
        """Log and count an analysis that raised (called from its ``except`` block)."""
        self.count_error(type(error).__name__)
        self.log.exception("scrapy_declutter could not analyse %s", url)

    def count_error(self, kind: str) -> None:
        self.stats.inc_value("declutter/errors")
        self.stats.inc_value(f"declutter/errors/{kind}")

    def release_all(self) -> list[Any]:
        """End every warm-up now, here and in the workers; settle every ticket; the items waiting."""
        items: list[Any] = []
        try:
            outputs, seconds = timed_release(self.analyser.release)
            if self.workers is not None:
                replies, lost = self.workers.release()
                for released, answer in replies:
                    self.heard(answer)
                    outputs += released
                    seconds += answer.seconds
                for dead in lost:
                    items += self.lose(dead)
        except Exception as e:  # noqa: BLE001 - the tickets are settled below all the same
            self.failed("the pages held in site warm-ups", e)
            outputs, seconds = [], 0.0
        self.timed(seconds)
        items += self.settle(outputs)
        for ticket in self.held.unsettled():
            self.log.warning("scrapy_declutter lost the analysis of %s in its site's warm-up; "
                             "its items go on with empty fields", ticket.url)
            items += self.held.settle(ticket, PageOutput.unanalysed(ticket.options))
        return items

    def spider_idle(self, spider: Any) -> None:
        """spider_idle: end the warm-ups of sites with fewer pages than DECLUTTER_WARMUP_PAGES."""
        items = self.release_all()
        if items:
            self.held.send(items)
            raise DontCloseSpider  # the items are on their way through the pipelines

    def report(self, result: Result) -> None:
        """Save the page's inspection report if sampled; a disk error only warns."""
        if self.inspector is None:
            return
        try:
            if self.inspector.save(result) is not None:
                self.stats.inc_value("declutter/inspect/saved")
        except OSError as e:
            self.stats.inc_value("declutter/inspect/errors")
            self.log.warning("scrapy_declutter could not save the report of %s: %s",
                             result.url, e)

    def timed(self, seconds: float) -> None:
        """CPU seconds of one analysis (one page, or a warm-up it released)."""
        self.stats.inc_value("declutter/seconds", seconds, start=0.0)
        self.stats.max_value("declutter/max_seconds", seconds)

    def record(self, page: PageSummary) -> None:
        stats = self.stats
        stats.inc_value("declutter/pages")
        if page.reason:  # passed through by the core: "too_large: ...", "error: ..."
            kind = page.reason.split(":", 1)[0].strip()
            stats.inc_value(f"declutter/rejected/{kind}")
            if kind == "error":
                stats.inc_value("declutter/errors")
        stats.inc_value("declutter/blocks", page.blocks)
        stats.inc_value("declutter/content_blocks", page.content_blocks)
        learned = page.site_learning
        if learned is not None:  # what the site model decided on this page
            stats.inc_value("declutter/site_learning/pages")
            if learned.template:
                stats.inc_value("declutter/site_learning/template_blocks", learned.template)
            if learned.voted:
                stats.inc_value("declutter/site_learning/voted_blocks", learned.voted)
        if page.site and page.site not in self.sites:
            self.sites.add(page.site)
            stats.set_value("declutter/sites", len(self.sites))

    def skip(self, reason: str) -> None:
        self.stats.inc_value(f"declutter/skipped/{reason}")

    def spider_closed(self, spider: Any, reason: str) -> None:
        get = self.stats.get_value
        pages = get("declutter/pages", 0)
        seconds = get("declutter/seconds", 0.0)
        self.log.info(
            "scrapy_declutter: %d pages from %d sites, %d blocks (%d content), %d items, "
            "%d errors, %d skipped responses; %.2f CPU s extracting (%.1f ms/page, longest %.0f ms)",
            pages,
            len(self.sites),
            get("declutter/blocks", 0),
            get("declutter/content_blocks", 0),
            get("declutter/items", 0),
            get("declutter/errors", 0),
            sum(v for k, v in self.stats.get_stats().items() if k.startswith("declutter/skipped/")),
            seconds,
            1000 * seconds / pages if pages else 0.0,
            1000 * get("declutter/max_seconds", 0.0),
        )
        self.thread.shutdown()  # the crawl is over: nothing is in flight
        if self.workers is not None:
            try:
                logs, peak_mb = self.workers.close()
                self.heard(Answer(logs=logs))
                self.stats.max_value("declutter/workers/max_rss_mb", round(peak_mb))
                if self.workers.fetched:
                    self.stats.set_value("declutter/workers/results_fetched",
                                         self.workers.fetched)
            except Exception as e:  # noqa: BLE001 - closing must not hide the crawl's outcome
                self.count_error(type(e).__name__)
                self.log.error("scrapy_declutter could not close its worker processes: %r", e)
        try:
            self.analyser.close()
        except Exception as e:  # noqa: BLE001 - closing must not hide the crawl's own outcome
            self.stats.inc_value("declutter/errors")
            self.log.error("scrapy_declutter could not close its store: %r", e)


class CrawlComponent:
    """Base of the middlewares and the pipeline: off with DECLUTTER_ENABLED, one shared state."""

    def __init__(self, crawler: Crawler) -> None:
        self.state = CrawlState.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Any:
        try:
            enabled = boolean(crawler.settings.get("DECLUTTER_ENABLED", True))
        except ValueError:
            enabled = True  # a bad value: CrawlState reports it and stops the spider
        if not enabled:
            raise NotConfigured("DECLUTTER_ENABLED is False")
        return cls(crawler)
