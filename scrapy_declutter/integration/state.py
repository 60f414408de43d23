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
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import signals, version_info
from scrapy.exceptions import CloseSpider, DontCloseSpider, NotConfigured

from ..errors import DeclutterError
from ..report.files import ReportSampler
from .analyser import Analyser
from .handoff import PageOutput, Ticket
from .holding import HeldItems
from .items import FieldWriter, field_values
from .offload import analysis_thread, run_on
from .settings import DeclutterOptions, SettingsError, boolean, default_store_uri

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from ..result import Result
    from ..sitelearning.warmup import Released

logger = logging.getLogger(__name__)


#: Finish reason of a crawl stopped at start by a broken set-up.
SETUP_ERROR = "declutter_setup_error"
#: Scrapy 2.18 lets a component close the spider while it opens; before, only raising stops it.
_CLOSES_AT_OPEN = version_info >= (2, 18)


def _timed(
    func: Callable[..., Result], options: DeclutterOptions, *args: Any
) -> tuple[PageOutput, float]:
    """Call ``func``, build the item field values, and measure the calling thread's CPU time.

    CPU time, not wall time: with many pages analysed on concurrent threads,
    wall time would count the waits for the GIL and the analyser's lock. The
    field values (a dict per block when blocks are asked for) are built here,
    off the reactor: on a page of thousands of blocks that takes milliseconds.
    """
    start = time.thread_time()
    result = func(*args, options)
    output = PageOutput(result, field_values(result, options))
    return output, time.thread_time() - start


def _timed_released(
    func: Callable[..., list[Released]], *args: Any
) -> tuple[list[tuple[Ticket, PageOutput]], float]:
    """``_timed`` for a page submitted through its site's warm-up: every page it releases."""
    start = time.thread_time()
    outputs = [(r.key, PageOutput(r.result, field_values(r.result, r.key.options)))
               for r in func(*args)]
    return outputs, time.thread_time() - start


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
            store = self._checked_store(self.options)
        except SettingsError as e:
            self.options, store, self.setup_error = DeclutterOptions(), None, str(e)
        self.analyser = Analyser(store, self.log)
        self.held = HeldItems(crawler, self.writer)
        #: Where analyses run with DECLUTTER_THREADS (``offload``: one thread, not a pool).
        self.thread = analysis_thread()
        # DECLUTTER_INSPECT_DIR / DECLUTTER_INSPECT_SAMPLE: HTML reports of a sample of pages.
        self.inspector = (ReportSampler(self.options.inspect_dir, self.options.inspect_sample)
                          if self.options.inspect_dir else None)
        if self.setup_error:
            if not _CLOSES_AT_OPEN:
                raise SettingsError(self.setup_error)
            crawler.signals.connect(self.refuse_to_start, signal=signals.spider_opened)
        else:
            crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
            crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)

    @staticmethod
    def _checked_store(options: DeclutterOptions) -> str | None:
        """The store URI to use, with its scheme and backend checked; SettingsError if wrong.

        An unknown scheme or a backend whose package is missing (``redis``)
        stops the crawl. What can go wrong later is not a set-up error and
        is not probed here: a Redis server that is down (site learning waits
        for it), a SQLite path that cannot be opened (the crawl goes on
        without site learning, with one warning) or a corrupt SQLite file
        (set aside and replaced).
        """
        store = options.store
        if store is None and options.site_learning:
            store = default_store_uri()
        try:
            from ..sitelearning import open_store  # NumPy and the n-gram models
        except ImportError as e:
            raise SettingsError(f"site learning cannot be loaded: {type(e).__name__}: {e}; "
                                "reinstall scrapy-declutter with its dependencies") from None
        if store is not None and not store.lower().startswith("sqlite:"):
            try:
                open_store(store).close()  # memory: or a Redis client, which connects lazily
            except (DeclutterError, OSError) as e:
                raise SettingsError(f"DECLUTTER_STORE={store!r} cannot be opened: {e}") from None
        if options.inspect_dir:
            try:
                Path(options.inspect_dir).mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise SettingsError(f"DECLUTTER_INSPECT_DIR={options.inspect_dir!r} cannot be "
                                    f"created: {e}") from None
        return store

    def refuse_to_start(self, spider: Any) -> None:
        """spider_opened: log the set-up problems once and close the spider before it crawls."""
        self.log.error("scrapy_declutter cannot start, so the spider is closed:\n%s",
                       textwrap.indent(self.setup_error, "  "))
        raise CloseSpider(SETUP_ERROR)

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
                output, seconds = await run_on(self.thread, _timed, func, options, *args)
            else:
                output, seconds = _timed(func, options, *args)
        except Exception as e:  # one bad page must never stop a crawl or lose its items
            self.failed(url, e)
            return PageOutput.unanalysed(options)
        self.timed(seconds)
        self.record(output.result)
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
                outputs, seconds = await run_on(self.thread, _timed_released, func, *args,
                                                options, ticket)
            else:
                outputs, seconds = _timed_released(func, *args, options, ticket)
        except Exception as e:  # one bad page must never stop a crawl or lose its items
            self.failed(ticket.url, e)
            outputs, seconds = [(ticket, PageOutput.unanalysed(options))], 0.0
        if not any(t is ticket for t, _ in outputs):
            self.stats.inc_value("declutter/warmup/held_pages")
        self.timed(seconds)
        self.held.send(self.settle(outputs))

    def settle(self, outputs: list[tuple[Ticket, PageOutput]]) -> list[Any]:
        """Give released pages their outputs; send on (and return) the items they held."""
        items: list[Any] = []
        for ticket, output in outputs:
            if output.result is not None:
                self.record(output.result)
                self.report(output.result)
            items += self.held.settle(ticket, output)
        return items

    def failed(self, url: str | None, error: Exception) -> None:
        """Log and count an analysis that raised (called from its ``except`` block)."""
        self.stats.inc_value("declutter/errors")
        self.stats.inc_value(f"declutter/errors/{type(error).__name__}")
        self.log.exception("scrapy_declutter could not analyse %s", url)

    def release_all(self) -> list[Any]:
        """End every warm-up now; settle every ticket; the items that were waiting."""
        try:
            outputs, seconds = _timed_released(self.analyser.release)
        except Exception as e:  # noqa: BLE001 - the tickets are settled below all the same
            self.failed("the pages held in site warm-ups", e)
            outputs, seconds = [], 0.0
        self.timed(seconds)
        items = self.settle(outputs)
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

    def record(self, result: Result) -> None:
        stats = self.stats
        stats.inc_value("declutter/pages")
        if result.reason:  # passed through by the core: "too_large: ...", "error: ..."
            kind = result.reason.split(":", 1)[0].strip()
            stats.inc_value(f"declutter/rejected/{kind}")
            if kind == "error":
                stats.inc_value("declutter/errors")
        stats.inc_value("declutter/blocks", len(result.blocks))
        stats.inc_value("declutter/content_blocks", sum(1 for b in result.blocks if b.is_content))
        learned = result.site_learning
        if learned is not None:  # what the site model decided on this page
            stats.inc_value("declutter/site_learning/pages")
            if learned.template:
                stats.inc_value("declutter/site_learning/template_blocks", learned.template)
            if learned.voted:
                stats.inc_value("declutter/site_learning/voted_blocks", learned.voted)
        if result.site and result.site not in self.sites:
            self.sites.add(result.site)
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
