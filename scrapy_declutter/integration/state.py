"""What the components of one crawler share: options, the analyser, stats and the summary.

The downloader middleware, the spider middleware and the pipeline are separate
objects that Scrapy builds per crawler; they share one ``CrawlState`` (one
store connection, one set of sites seen, one summary line at spider close).
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import run_in_thread

from ..registry import build_extractor
from .analyser import Analyser
from .items import FieldWriter, field_values
from .settings import DeclutterOptions, default_store_uri

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from ..result import Result

logger = logging.getLogger(__name__)


class Analysis(NamedTuple):
    """One page's Result and the item field values made from it."""

    result: Result
    fields: dict[str, Any]


def _timed(func: Callable[..., Result], *args: Any) -> tuple[Analysis, float]:
    """Call ``func`` (its last argument: the options), build the field values, and
    measure the CPU time of the calling thread.

    The field values are built here, on the worker thread, off the reactor: on a
    page of thousands of blocks that takes milliseconds. CPU time, not wall
    time: with many pages analysed on concurrent threads, wall time would
    count the waits for the GIL and the analyser's lock.
    """
    start = time.thread_time()
    result = func(*args)
    analysis = Analysis(result, field_values(result, args[-1]))
    return analysis, time.thread_time() - start


_STATES: weakref.WeakKeyDictionary[Crawler, CrawlState] = weakref.WeakKeyDictionary()


class CrawlState:
    """Per-crawler state; get it with ``CrawlState.of(crawler)``."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.options = DeclutterOptions.from_crawler(crawler)
        build_extractor(self.options.extractor)  # an unknown name fails at start-up, not per page
        store = self.options.store
        if store is None and self.options.site_learning:
            store = default_store_uri()
        self.analyser = Analyser(store)
        self.stats = crawler.stats
        self.writer = FieldWriter(self.stats)
        self.sites: set[str] = set()
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

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
    ) -> Analysis | None:
        """Run one extraction (on a thread unless DECLUTTER_THREADS is off).

        Any exception is caught here: it is logged with the URL, counted in
        ``declutter/errors``, and None is returned so the item goes out
        without the clean fields.
        """
        try:
            if options.threads:
                analysis, seconds = await run_in_thread(_timed, func, *args, options)
            else:
                analysis, seconds = _timed(func, *args, options)
        except Exception as e:  # one bad page must never stop a crawl or lose its items
            self.stats.inc_value("declutter/errors")
            self.stats.inc_value(f"declutter/errors/{type(e).__name__}")
            self.log.exception("scrapy_declutter could not analyse %s", url)
            return None
        self.record(analysis.result, seconds)
        return analysis

    def record(self, result: Result, seconds: float) -> None:
        stats = self.stats
        stats.inc_value("declutter/pages")
        stats.inc_value("declutter/seconds", seconds, start=0.0)
        stats.max_value("declutter/max_seconds", seconds)
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
        if not crawler.settings.getbool("DECLUTTER_ENABLED", True):
            raise NotConfigured("DECLUTTER_ENABLED is False")
        return cls(crawler)
