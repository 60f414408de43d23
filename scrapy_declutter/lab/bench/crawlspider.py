"""The spider the broad crawl benchmark runs with ``scrapy runspider`` in a child process.

It reads its job from the ``SCRAPY_DECLUTTER_BENCH_JOB`` environment variable (JSON:
``settings`` for this mode, ``urls`` a file of start URLs, ``out`` the file
for the figures, ``sample_every`` pages between memory samples), follows a
site's ``pN.html`` links on the same host, yields one item per page (written
to a JSON lines feed, as a real crawl does) and measures from the first
response to the engine's stop, so interpreter and crawler start-up, the same
in every mode, are left out. The garbage collector's share is measured too
(``gc.callbacks``: the CPU time of each collection on the thread that ran it,
and how many were full ones), since the pages in flight are what it walks.
Settings come through the environment because ``-s`` cannot carry a dict
such as ``ADDONS``.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import resource
import time
from typing import Any

import scrapy
from scrapy import signals

#: The environment variable that carries the job (not a Scrapy setting).
JOB_ENV = "SCRAPY_DECLUTTER_BENCH_JOB"
JOB: dict[str, Any] = json.loads(os.environ.get(JOB_ENV, "{}"))
#: A setting of the job: give each item a digest of its response's bytes, in this field.
BODY_DIGESTS = "BENCH_BODY_DIGESTS"
BODY_DIGEST_FIELD = "body_digest"
SITE_PAGE = re.compile(r"/p\d+(?:-\d+)?\.html$")  # a page, or a copy of it (p3-2.html)
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


_TICKS = os.sysconf("SC_CLK_TCK")


def rss_mb(pid: str = "self") -> float:
    """Resident memory now, in MB (the kernel's count, not the peak)."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * _PAGE_SIZE / 1e6


def children() -> list[str]:
    """The pids of this process's live children: the plugin's worker processes among them."""
    pids: list[str] = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                pids += f.read().split()
        except OSError:  # the thread ended meanwhile
            pass
    return pids


def cpu_seconds() -> tuple[float, float]:
    """CPU time of this process, and of it with its children, live or ended
    (``DECLUTTER_PROCESSES``), from one reading of its own so that the two differ only
    by the children's.

    Ended children count once waited for (the worker pools join theirs at
    close); live ones are read from /proc, so that a worker's start-up,
    before the first response, is left out like the crawl's own.
    """
    own = time.process_time()
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    live = 0.0
    for pid in children():
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        live += (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime
    return own, own + ended.ru_utime + ended.ru_stime + live


def children_rss_mb() -> float:
    """Resident memory of the live children now, in MB (the worker processes')."""
    total = 0.0
    for pid in children():
        try:
            total += rss_mb(pid)
        except OSError:  # it ended meanwhile
            pass
    return total


def _max_rss_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    # ru_maxrss is in KiB (Linux); MB here are 10^6 bytes, as rss_mb gives them.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


class GCTimer:
    """A ``gc.callbacks`` entry: CPU seconds in collections, and how many were full ones."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.seconds, self.full = 0.0, 0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.thread_time()
            return
        self.seconds += time.thread_time() - self._start
        self.full += info["generation"] == 2


class BenchSpider(scrapy.Spider):
    """Crawls every start URL's site, one item per page."""

    name = "declutter_broad_bench"
    custom_settings = JOB.get("settings", {})

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> "BenchSpider":
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.response_received, signal=signals.response_received)
        crawler.signals.connect(spider.engine_stopped, signal=signals.engine_stopped)
        # Connected before the plugin's components exist, so it runs before their close.
        crawler.signals.connect(spider.closing, signal=signals.spider_closed)
        spider.pages = 0
        spider.samples = []
        spider.before_close: dict[str, float] = {}
        spider.gc = GCTimer()
        gc.callbacks.append(spider.gc)
        return spider

    async def start(self):
        with open(JOB["urls"]) as f:
            for url in f.read().split():
                yield scrapy.Request(url)

    def parse(self, response):
        item = {"url": response.url, "title": response.css("title::text").get()}
        if JOB.get("settings", {}).get(BODY_DIGESTS):  # bench-crawl --duplicates replays them
            item[BODY_DIGEST_FIELD] = hashlib.blake2b(response.body, digest_size=16).hexdigest()
        yield item
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if SITE_PAGE.search(url) and url.split("/", 3)[2] == response.url.split("/", 3)[2]:
                yield scrapy.Request(url)

    def response_received(self, response: Any, request: Any, spider: Any) -> None:
        if not self.samples:  # the first response starts the clock
            self.gc.reset()
            self._sample()
        elif response.status == 200:
            self.pages += 1
            if self.pages % JOB.get("sample_every", 1000) == 0:
                self._sample()

    def _sample(self) -> None:
        own, cpu = cpu_seconds()
        self.samples.append({"pages": self.pages, "cpu": cpu, "main_cpu": own,
                             "wall": time.perf_counter(), "rss_mb": rss_mb(),
                             "children_rss_mb": children_rss_mb()})

    def closing(self, spider: Any) -> None:
        """spider_closed: memory before the components close (the plugin's close writes
        what its sites learned, and a peak set there is the close's)."""
        self.before_close = {"pages": self.pages, "rss_mb": rss_mb(),
                             "max_rss_mb": _max_rss_mb()}

    def engine_stopped(self) -> None:
        self._sample()
        first, last = self.samples[0], self.samples[-1]
        figures = {
            "pages": self.pages,
            "wall": last["wall"] - first["wall"],
            "cpu": last["cpu"] - first["cpu"],
            "max_rss_mb": _max_rss_mb(),
            "before_close": self.before_close,
            # The worker processes' peak (the largest), which they report at close.
            "children_max_rss_mb": self.crawler.stats.get_value("declutter/workers/max_rss_mb", 0),
            "main_cpu": last["main_cpu"] - first["main_cpu"],
            # The plugin's own count: CPU of the pages' analysis (thread time, wherever it ran).
            "analysis_cpu": self.crawler.stats.get_value("declutter/seconds", 0.0),
            "gc_cpu": self.gc.seconds,
            "gc_full": self.gc.full,
            "samples": self.samples,
        }
        with open(JOB["out"], "w") as f:
            json.dump(figures, f)
