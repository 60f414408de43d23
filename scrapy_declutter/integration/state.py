"""What the components of one crawler share: the options, the backend, the stats and the summary.

The downloader middleware, the spider middleware and the pipeline are
separate objects that Scrapy builds per crawler; they share one
``CrawlState``. It reads and checks the options once, starts the backend
(``backends``), records what each ``Answer`` says, and closes the backend
at spider close with one summary line.

A broken set-up is caught here, when Scrapy builds the first component:
the one message is logged first and whole, then raised, so ``scrapy
crawl`` exits with status 1 before the feed exporters open (and truncate)
any file.
"""

from __future__ import annotations

import logging
import textwrap
import weakref
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured

from ..limits import APP_SHELL
from ..report.files import ReportSampler
from .backends import Backend, InProcess
from .copies import CopyCheck
from .items import FieldWriter
from .output import PageSummary
from .runner import Answer, LogLine
from .settings import META_KEY, DeclutterOptions, SettingsError, boolean
from .setup_checks import checked_rendering, checked_store
from .workers import WorkerProcesses

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_STATES: weakref.WeakKeyDictionary[Crawler, CrawlState] = weakref.WeakKeyDictionary()


class CrawlState:
    """Per-crawler state; get it with ``CrawlState.of(crawler)``."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.writer = FieldWriter(self.stats)
        self.sites: set[str] = set()
        try:
            self.options = DeclutterOptions.from_crawler(crawler)
            checked_rendering(self.options, crawler.settings)
            store = checked_store(self.options)
            self.backend = self._backend(store)
            self.copies = (CopyCheck(self.options, store, crawler.spidercls.name, self.stats,
                                     self.log) if self.options.duplicate_field else None)
            self.backend.start()
        except SettingsError as e:
            message = "scrapy_declutter cannot start:\n" + textwrap.indent(str(e), "  ")
            self.log.error("%s", message)
            raise SettingsError(message) from None
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    def _backend(self, store: str | None) -> Backend:
        options = self.options
        inspector = (ReportSampler(options.inspect_dir, options.inspect_sample)
                     if options.inspect_dir else None)

        def in_process() -> InProcess:
            return InProcess(store, options, self.log, inspector)

        if options.processes:
            return WorkerProcesses(options.processes, store, options, in_process)
        return in_process()

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

    def options_for(self, request: Request | None, *, report: bool = True) -> DeclutterOptions | None:
        """The options for one request, or None when ``meta["declutter"]`` turns it off.

        A malformed override is an error of the spider: with ``report`` it is
        logged and counted in ``declutter/errors`` (``bad_meta``), and the
        request is left alone.
        """
        meta: Any = request.meta.get(META_KEY, True) if request is not None else True
        if meta is True or meta is None:
            return self.options
        if meta is False:
            return None
        try:
            if not isinstance(meta, dict):
                raise SettingsError(f"meta[{META_KEY!r}] must be True, False or a dict, "
                                    f"not {meta!r}")
            return self.options.override(meta)
        except (SettingsError, ValueError) as e:
            if report:
                self.count_error("bad_meta")
                self.log.error("%s (%s)", e, request.url if request is not None else None)
            return None

    async def analysed(self, answer: Answer, url: str | None, body: bytes | str) -> None:
        """Record an Answer; with a near-duplicate field, fill it on the page's output."""
        self.heard(answer, url)
        if self.copies is not None and answer.output.analysed and url is not None:
            await self.copies.mark(url, answer.output, body)

    def heard(self, answer: Answer, url: str | None) -> None:
        """Record one Answer: its log lines, reports, CPU time, error and page summary."""
        self.relay(answer.logs)
        if answer.reports_saved:
            self.stats.inc_value("declutter/inspect/saved", answer.reports_saved)
        if answer.report_errors:
            self.stats.inc_value("declutter/inspect/errors", answer.report_errors)
        self.stats.inc_value("declutter/seconds", answer.seconds, start=0.0)
        self.stats.max_value("declutter/max_seconds", answer.seconds)
        if answer.error:
            self.count_error(answer.error_type)
            self.log.error("scrapy_declutter could not analyse %s:\n%s", url, answer.error)
        if answer.output.summary is not None:
            self.record(answer.output.summary)

    def relay(self, logs: list[LogLine]) -> None:
        """Send log lines made elsewhere (a worker process) to this process's loggers."""
        for name, level, message in logs:
            (self.log if name is None else logging.getLogger(name)).log(level, "%s", message)

    def count_error(self, kind: str) -> None:
        self.stats.inc_value("declutter/errors")
        self.stats.inc_value(f"declutter/errors/{kind}")

    def record(self, page: PageSummary) -> None:
        stats = self.stats
        stats.inc_value("declutter/pages")
        if page.reason == APP_SHELL:  # its text came from the data it embeds, if any
            stats.inc_value("declutter/app_shells")
        elif page.reason:  # passed through by the core: "too_large: ...", "error: ..."
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
        try:
            if self.copies is not None:
                self.copies.close()
            logs, peak_mb = self.backend.close()
            self.relay(logs)
            if peak_mb:
                self.stats.max_value("declutter/workers/max_rss_mb", round(peak_mb))
        except Exception as e:  # noqa: BLE001 - closing must not hide the crawl's own outcome
            self.count_error(type(e).__name__)
            self.log.error("scrapy_declutter could not close its store or workers: %r", e)


class CrawlComponent:
    """Base of the middlewares and the pipeline: off with DECLUTTER_ENABLED, one shared state."""

    def __init__(self, crawler: Crawler) -> None:
        self.state = CrawlState.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Any:
        try:
            enabled = boolean(crawler.settings.get("DECLUTTER_ENABLED", True))
        except ValueError:
            enabled = True  # a bad value: CrawlState reports it and stops the crawl
        if not enabled:
            raise NotConfigured("DECLUTTER_ENABLED is False")
        return cls(crawler)
