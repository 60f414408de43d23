"""Test spiders and a runner that performs real Scrapy crawls in a child process.

``python tests/scrapy_crawl.py SPEC.json`` runs, one after the other in one
asyncio reactor, every crawl listed in the spec file::

    [{"spider": "SiteSpider", "settings": {...}, "args": {...}, "stats": "out.json"}, ...]

and writes each crawl's stats as JSON. A child process, because Twisted's
reactor cannot be restarted inside the pytest process. A spec may also list
``"unimportable": ["redis"]``: modules that then fail to import, as in an
install that lacks them, and ``"worker_python"``: the interpreter that worker
processes (``DECLUTTER_PROCESSES``) are started with.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, ClassVar

import attrs
import scrapy

from scrapy_declutter.registry import REGISTRY
from scrapy_declutter.steps.density import DensityFilter


class PoisonStep:
    """Raises on a page that contains POISON-PILL: a stand-in for any extraction bug."""

    name = "poison"

    def process(self, page: Any) -> None:
        if any("POISON-PILL" in b.text for b in page.blocks):
            raise RuntimeError("poisoned page")


def poison_chain(*, min_chars: int = 60) -> list:
    return [DensityFilter(min_chars=min_chars), PoisonStep()]


REGISTRY["poison-test"] = "scrapy_crawl:poison_chain"
#: An extractor whose module is missing, as in an install without one of its dependencies.
REGISTRY["missing-module-test"] = "scrapy_declutter_no_such_module:chain"


class DeclaredItem(scrapy.Item):
    url = scrapy.Field()
    title = scrapy.Field()
    kind = scrapy.Field()
    clean_text = scrapy.Field()
    blocks = scrapy.Field()


class UndeclaredItem(scrapy.Item):
    """A scrapy.Item that does not declare the plugin's fields."""

    url = scrapy.Field()
    title = scrapy.Field()
    kind = scrapy.Field()


@dataclasses.dataclass
class DataclassItem:
    url: str
    title: str | None = None
    kind: str | None = None
    clean_text: str | None = None
    blocks: list | None = None


@attrs.define
class AttrsItem:
    url: str
    title: str | None = None
    kind: str | None = None
    clean_text: str | None = None
    blocks: list | None = None


ITEM_TYPES = {
    "dict": dict,
    "declared": DeclaredItem,
    "undeclared": UndeclaredItem,
    "dataclass": DataclassItem,
    "attrs": AttrsItem,
}


class SiteSpider(scrapy.Spider):
    """Crawls the fixture site from ``start_url``, one item per response, following links.

    ``meta`` (JSON: path -> meta["declutter"] value) sets per-request overrides;
    ``preset_text`` fills ``clean_text`` itself, which the plugin must keep;
    ``with_result`` puts what ``result_for(response)`` gives the callback in the
    item's ``result`` field (``Result.as_dict()``, Markdown and metadata
    included, and every block's structure), None when it gives None.
    """

    name = "site"

    def __init__(self, start_url: str, item_type: str = "dict", meta: str = "{}",
                 preset_text: str = "", with_result: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_url = start_url
        self.item_cls = ITEM_TYPES[item_type]
        self.meta_by_path = json.loads(meta)
        self.preset_text = preset_text
        self.with_result = bool(with_result)

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> SiteSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.with_result:  # before the settings freeze, as a spider argument can
            crawler.settings.set("DECLUTTER_CALLBACK_RESULTS", True, priority="spider")
        return spider

    def request(self, url: str) -> scrapy.Request:
        path = "/" + url.split("/", 3)[-1]
        meta = {"declutter": self.meta_by_path[path]} if path in self.meta_by_path else {}
        return scrapy.Request(url, callback=self.parse, meta=meta)

    async def start(self):
        yield self.request(self.start_url)

    def parse(self, response):
        is_html = isinstance(response, scrapy.http.HtmlResponse)
        fields = {
            "url": response.url,
            "title": response.css("title::text").get() if is_html else None,
            "kind": "html" if is_html else "other",
        }
        if self.preset_text:
            fields["clean_text"] = self.preset_text
        if self.with_result:
            from scrapy_declutter import result_for

            result = result_for(response)
            fields["result"] = None if result is None else {
                **result.as_dict(), "structure": [list(b.structure) for b in result.blocks],
                "same_object": result_for(response) is result}
        if not is_html:
            # Proof that the plugin left the response alone.
            fields["kind"] = f"other:{len(response.body)}:{'declutter' in response.flags}"
        yield self.item_cls(**fields)
        if is_html:
            for href in response.css("a::attr(href)").getall():
                if href.startswith("/") and not href.startswith("//"):
                    yield self.request(response.urljoin(href))


class MetaCopySpider(SiteSpider):
    """From its start page, follows every path in ``follow`` with ``meta=dict(response.meta)``.

    The common pattern that once carried the start page's Result to responses
    that are not analysed. ``handle_404`` lets 404s reach the callback; without
    it they go to the errback, which yields an item too.
    """

    name = "meta_copy"

    def __init__(self, start_url: str, follow: str, handle_404: str = "", **kwargs: Any) -> None:
        super().__init__(start_url, **kwargs)
        self.follow = json.loads(follow)
        if handle_404:
            self.handle_httpstatus_list = [404]

    def parse(self, response):
        for obj in super().parse(response):
            if not isinstance(obj, scrapy.Request):
                yield obj
        if response.url == self.start_url:
            for path in self.follow:
                yield response.follow(path, callback=self.parse, errback=self.failed,
                                      meta=dict(response.meta))

    def failed(self, failure):
        yield self.item_cls(url=failure.value.response.url, kind="errback")


class ChainSpider(SiteSpider):
    """Visits ``paths`` one after another (each callback requests the next), one item each.

    So the order of the exported items is known: the first item comes from the first path.
    """

    name = "chain"

    def __init__(self, start_url: str, paths: str, **kwargs: Any) -> None:
        super().__init__(start_url, **kwargs)
        self.paths = json.loads(paths)

    async def start(self):
        yield scrapy.Request(self.start_url + self.paths[0], callback=self.parse, cb_kwargs={"i": 0})

    def parse(self, response, i=0):
        for obj in super().parse(response):
            if not isinstance(obj, scrapy.Request):
                yield obj
        if i + 1 < len(self.paths):
            yield scrapy.Request(self.start_url + self.paths[i + 1], callback=self.parse,
                                 cb_kwargs={"i": i + 1})


class MetadataThreadSpider(ChainSpider):
    """A ChainSpider whose items say where each page's metadata was read.

    ``metadata_threads`` lists the threads ``read_metadata`` ran on for the
    page, and ``metadata_ready`` whether ``Result.metadata`` was already
    computed when the callback ran: the metadata fields are built off the
    reactor, with the rest of the item's fields.
    """

    name = "metadata_thread"
    custom_settings: ClassVar[dict] = {"DECLUTTER_CALLBACK_RESULTS": True}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        import threading

        import scrapy_declutter.metadata as metadata

        self.threads: dict[str, list[str]] = {}
        read = metadata.read_metadata

        def recording(root: Any, url: Any, **kw: Any) -> Any:
            on_reactor = threading.current_thread() is threading.main_thread()
            self.threads.setdefault(url, []).append("reactor" if on_reactor else "worker")
            return read(root, url, **kw)

        metadata.read_metadata = recording

    def parse(self, response, i=0):
        from scrapy_declutter import result_for

        result = result_for(response)
        ready = result is not None and "metadata" in vars(result)
        for obj in super().parse(response, i):
            if not isinstance(obj, scrapy.Request):
                obj["metadata_ready"] = ready
                obj["metadata_threads"] = self.threads.get(response.url, [])
            yield obj


class KillWorkerSpider(ChainSpider):
    """A ChainSpider that kills the plugin's worker process in the callback of path ``kill_at``.

    As the kernel's OOM killer or an operator would: SIGKILL, no chance to clean up.
    """

    name = "kill_worker"

    def __init__(self, *args: Any, kill_at: str = "2", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kill_at = int(kill_at)

    def parse(self, response, i=0):
        if i == self.kill_at:
            import os
            import signal

            from scrapy_declutter.integration.state import CrawlState

            for pid in CrawlState.of(self.crawler).backend.pids:
                os.kill(pid, signal.SIGKILL)
        yield from super().parse(response, i)


class ParagraphsSpider(scrapy.Spider):
    """docs/meta-keys.md's spider, following same-site links up to ``limit`` pages.

    Each item holds the paragraphs its callback read from ``result_for(response)``,
    or None where the callback got no Result.
    """

    name = "paragraphs"
    custom_settings: ClassVar[dict] = {"DECLUTTER_CALLBACK_RESULTS": True}

    def __init__(self, start_url: str, limit: str = "12", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [start_url]
        self.prefix = start_url.rsplit("/", 1)[0] + "/"  # pages of the start page's folder
        self.limit = int(limit)
        self.seen = {start_url}

    def parse(self, response):
        from scrapy_declutter import result_for

        result = result_for(response)
        paragraphs = None if result is None else [b.text for b in result.content_blocks]
        yield {"url": response.url, "paragraphs": paragraphs}
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href).split("#")[0]
            if (url.startswith(self.prefix) and url.endswith(".html") and url not in self.seen
                    and len(self.seen) < self.limit):
                self.seen.add(url)
                yield scrapy.Request(url, callback=self.parse)


class OffSiteSpider(SiteSpider):
    """The plugin switched off for this spider only."""

    name = "site_off"
    custom_settings: ClassVar[dict] = {"DECLUTTER_ENABLED": False}


class RenamingSiteSpider(SiteSpider):
    """Per-spider field names, which beat the project's."""

    name = "site_renaming"
    custom_settings: ClassVar[dict] = {
        "DECLUTTER_TEXT_FIELD": "body_text",
        "DECLUTTER_TITLE_FIELD": "page_title",
    }


class HtmlItemSpider(scrapy.Spider):
    """Yields items built in ``start()`` that carry raw HTML: the pipeline's path."""

    name = "html_items"

    def __init__(self, pages: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pages = json.loads(pages)  # url -> file path

    async def start(self):
        for url, path in self.pages.items():
            yield {"url": url, "html": Path(path).read_text(encoding="utf-8")}


SPIDERS = {
    cls.__name__: cls
    for cls in (SiteSpider, MetaCopySpider, ChainSpider, MetadataThreadSpider, OffSiteSpider,
                RenamingSiteSpider, HtmlItemSpider, KillWorkerSpider, ParagraphsSpider)
}


def _plain(value: Any) -> Any:
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)


def main(spec_path: str) -> None:
    import asyncio

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from scrapy.core.engine import ExecutionEngine
    from scrapy.crawler import AsyncCrawlerRunner, Crawler
    from scrapy.utils.log import configure_logging
    from twisted.internet import defer, reactor

    # The engine checks every 5 s whether an idle spider is done; a test need not wait that long.
    ExecutionEngine._SLOT_HEARTBEAT_INTERVAL = 0.2
    specs = json.loads(Path(spec_path).read_text())
    for spec in specs:
        for module in spec.get("unimportable", ()):
            sys.modules[module] = None  # "import redis" now raises ImportError
        if "worker_python" in spec:  # the interpreter worker processes are started with
            import multiprocessing

            multiprocessing.set_executable(spec["worker_python"])
    configure_logging({"LOG_LEVEL": "INFO"})
    failures: list[BaseException] = []

    async def crawl_all() -> None:
        try:
            for spec in specs:
                settings = {
                    "TELNETCONSOLE_ENABLED": False,
                    "REMOTE_CONTROL_ENABLED": False,
                    "LOG_LEVEL": "INFO",
                    **spec["settings"],
                }
                runner = AsyncCrawlerRunner(settings)
                crawler = Crawler(SPIDERS[spec["spider"]], settings)
                try:
                    await runner.crawl(crawler, **spec.get("args", {}))
                except Exception as e:  # a crawl that did not start, as `scrapy crawl` exits 1
                    Path(spec["stats"]).write_text(json.dumps({"bootstrap_error": str(e)}))
                    continue
                stats = {k: _plain(v) for k, v in crawler.stats.get_stats().items()}
                Path(spec["stats"]).write_text(json.dumps(stats, indent=1))
        except BaseException as e:  # surface in the exit code
            failures.append(e)
            raise

    d = defer.Deferred.fromFuture(asyncio.ensure_future(crawl_all()))
    d.addBoth(lambda _: reactor.stop())
    reactor.run()
    if failures:
        raise SystemExit(f"crawl failed: {failures[0]!r}")


if __name__ == "__main__":
    main(sys.argv[1])
