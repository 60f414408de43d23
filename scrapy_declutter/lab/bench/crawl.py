"""Crawl benchmarks: pages/s with and without the plugin, CPU and memory per page.

Two of them. ``broad`` (the ``scrapy-declutter bench-crawl`` command) crawls
N test sites, each on its own loopback address (see ``testsites``), with
``scrapy runspider`` in a child process per crawl, the modes interleaved
round by round so all see the same machine load; it prints pages/s, CPU
ms/page and the ratio to the crawl without the plugin, and the crawl
process's resident memory over time with the CPU per page of its first and
last thousand pages (``--sites 10000 --pages 3`` is the scale test). CPU
counts the crawl's worker processes (``DECLUTTER_PROCESSES``) too; "in
crawl" is the crawl process's own, and "+worker MB" the workers' peak
resident memory (the stat ``declutter/workers/max_rss_mb``). The
one below measures the reactor's stalls on one site, in this process:

    python -m scrapy_declutter.lab.bench.crawl [--site DIR] [--rounds 3] [--scale 1]

Serves ``DIR`` (default: the example project's bundled Python docs) from a
child process on a free loopback port, then crawls it in this process,
alternating crawls without the plugin (``off``), with it (``on``), with it but
without the worker-thread offload (``on-nothreads``) and, on request, without
site learning (``on-nolearning``), ``--rounds`` times each, so all modes see the same
machine load. ``--scale K`` repeats each page's body K times, to measure the
reactor's stalls on big pages. A probe task sleeps 5 ms in a loop on the
reactor's event loop and records how late it wakes: that lateness is the
longest time the reactor could not serve anything else.

A command that prints numbers, not a test: timings on a shared machine vary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from . import environment_with

DEFAULT_SITE = Path("example_project/site/docs.python.org/3.11")
PROBE_INTERVAL = 0.005

SERVER = r"""
import functools, sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
root, scale = sys.argv[1], int(sys.argv[2])

class Handler(SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def send_head(self):
        path = self.translate_path(self.path)
        if scale == 1 or not path.endswith(".html"):
            return super().send_head()
        import io
        html = open(path, "rb").read()
        start = html.find(b">", html.find(b"<body")) + 1
        end = html.rfind(b"</body>")
        body = html[:end] + html[start:end] * (scale - 1) + html[end:]
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=root))
print(server.server_address[1], flush=True)
server.serve_forever()
"""

MODES: dict[str, dict[str, Any]] = {
    "off": {},
    "on": {"ADDONS": {"scrapy_declutter.Addon": 500}},
    "on-nolearning": {
        "ADDONS": {"scrapy_declutter.Addon": 500},
        "DECLUTTER_SITE_LEARNING": False,
    },
    "on-nothreads": {
        "ADDONS": {"scrapy_declutter.Addon": 500},
        "DECLUTTER_THREADS": False,
        "DECLUTTER_PROCESSES": 0,
    },
}


def _spider_class() -> Any:
    import scrapy

    class BenchSpider(scrapy.Spider):
        """Follows every link under the start URL's directory; one item per page."""

        name = "declutter_bench"

        def __init__(self, start_url: str, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.start_url = start_url
            self.prefix = start_url.rsplit("/", 1)[0] + "/"

        async def start(self):
            yield scrapy.Request(self.start_url)

        def parse(self, response):
            yield {"url": response.url, "title": response.css("title::text").get()}
            for href in response.css("a::attr(href)").getall():
                url = response.urljoin(href).split("#", 1)[0]
                if url.startswith(self.prefix) and url.endswith(".html"):
                    yield scrapy.Request(url)

    return BenchSpider


class _Window:
    """Measures one crawl from its first response to ``spider_closed``.

    Crawler start-up (imports, building components, the download handler made
    on the first request) is left out: it is the same with and without the
    plugin and would dominate a small crawl.
    """

    def __init__(self) -> None:
        self.active = False
        self.pages = 0
        self.lateness: list[float] = []
        self.busy: list[float] = []
        self.cpu = self.wall = 0.0

    def response(self, response: Any, request: Any, spider: Any) -> None:
        if not self.active:
            self.active = True
            self.cpu, self.wall = time.process_time(), time.perf_counter()
        elif response.status == 200:
            self.pages += 1  # pages after the first one, in the measured window

    def closed(self, spider: Any) -> None:
        self.active = False
        self.cpu, self.wall = time.process_time() - self.cpu, time.perf_counter() - self.wall

    async def probe(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            before, cpu = loop.time(), time.thread_time()
            await asyncio.sleep(PROBE_INTERVAL)
            if self.active:
                self.lateness.append(loop.time() - before - PROBE_INTERVAL)
                # CPU the reactor thread itself spent meanwhile: the stall without
                # the time the OS gave to other processes (a loaded machine).
                self.busy.append(time.thread_time() - cpu)


async def _crawl(spider: Any, start_urls: list[str], settings: dict[str, Any]) -> dict[str, float]:
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerRunner, Crawler

    base = {
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "DECLUTTER_STORE": "memory:",
        "CONCURRENT_REQUESTS": 16,
    }
    total = {"pages": 0, "wall": 0.0, "cpu": 0.0, "stall": 0.0, "busy": 0.0}
    for url in start_urls:
        window, stop = _Window(), asyncio.Event()
        probe = asyncio.ensure_future(window.probe(stop))
        crawler = Crawler(spider, {**base, **settings})
        crawler.signals.connect(window.response, signal=signals.response_received)
        crawler.signals.connect(window.closed, signal=signals.spider_closed)
        await AsyncCrawlerRunner(crawler.settings).crawl(crawler, start_url=url)
        stop.set()
        await probe
        total["pages"] += window.pages
        total["wall"] += window.wall
        total["cpu"] += window.cpu
        total["stall"] = max(total["stall"], *window.lateness, 0.0)
        total["busy"] = max(total["busy"], *window.busy, 0.0)
    return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=DEFAULT_SITE)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=int, default=1, help="repeat each page body K times")
    parser.add_argument("--modes", default="off,on,on-nothreads",
                        help=f"comma-separated, from: {', '.join(MODES)}")
    args = parser.parse_args(argv)
    sections = sorted(p.parent.name for p in args.site.glob("*/index.html"))
    if not sections:
        parser.error(f"{args.site} has no */index.html to start from")

    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(args.site), str(args.scale)], stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(server.stdout.readline())
        start_urls = [f"http://127.0.0.1:{port}/{s}/index.html" for s in sections]
        results = _run(start_urls, args.rounds, [m.strip() for m in args.modes.split(",")])
    finally:
        server.terminate()
        server.wait()
    _report(results, args)


def _run(start_urls: list[str], rounds: int, modes: list[str]) -> dict[str, list[dict[str, float]]]:
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from scrapy.utils.log import configure_logging
    from twisted.internet import defer, reactor

    configure_logging({"LOG_LEVEL": "WARNING"})
    spider = _spider_class()
    results: dict[str, list[dict[str, float]]] = {m: [] for m in modes}

    async def run_all() -> None:
        try:
            for mode in modes:  # warm-up: first-use imports and caches, not measured
                await _crawl(spider, start_urls[:1], MODES[mode])
            for _ in range(rounds):
                for mode in modes:
                    results[mode].append(await _crawl(spider, start_urls, MODES[mode]))
        finally:
            reactor.stop()

    defer.Deferred.fromFuture(asyncio.ensure_future(run_all()))
    reactor.run()
    return results


def _report(results: dict[str, list[dict[str, float]]], args: argparse.Namespace) -> None:
    print(f"site {args.site}, body x{args.scale}, {args.rounds} rounds, modes interleaved")
    print(f"{'mode':14} {'pages':>5} {'pages/s':>8} {'CPU ms/page':>11} "
          f"{'longest stall ms':>16} {'busiest gap ms':>14}")
    cpu_per_page = {}
    for mode, runs in results.items():
        pages = runs[0]["pages"]
        rate = statistics.median(r["pages"] / r["wall"] for r in runs)
        cpu_per_page[mode] = statistics.median(1000 * r["cpu"] / r["pages"] for r in runs)
        stall = max(r["stall"] for r in runs)
        busy = max(r["busy"] for r in runs)
        print(f"{mode:14} {pages:>5} {rate:>8.1f} {cpu_per_page[mode]:>11.1f} "
              f"{1000 * stall:>16.1f} {1000 * busy:>14.1f}")
    print("longest stall: the most a 5 ms timer on the reactor woke late (wall clock, so it also")
    print("counts time the OS gave other processes); busiest gap: the most CPU the reactor thread")
    print("itself used between two timer wakes (the stall an idle machine would see)")
    if "off" in cpu_per_page and "on" in cpu_per_page:
        added = cpu_per_page["on"] - cpu_per_page["off"]
        print(f"CPU added by the plugin: {added:.1f} ms/page (medians)")


ADDON = {"scrapy_declutter.Addon": 500}
#: The broad benchmark's modes: Scrapy settings over ``BROAD_SETTINGS``.
BROAD_MODES: dict[str, dict[str, Any]] = {
    "off": {},
    # The defaults: a worker process on a machine with two cores or more.
    "on": {"ADDONS": ADDON},
    # The defaults, each page's Result kept for its callback (sent back by the worker).
    "on-results": {"ADDONS": ADDON, "DECLUTTER_CALLBACK_RESULTS": True},
    "on-nolearning": {"ADDONS": ADDON, "DECLUTTER_SITE_LEARNING": False},
    # The analysis inline on the reactor, without the plugin's thread or a worker.
    "on-inline": {"ADDONS": ADDON, "DECLUTTER_THREADS": False, "DECLUTTER_PROCESSES": 0},
    "on-nolearning-inline": {"ADDONS": ADDON, "DECLUTTER_SITE_LEARNING": False,
                             "DECLUTTER_THREADS": False, "DECLUTTER_PROCESSES": 0},
    # The analysis on the plugin's thread (no worker process), and in one or two workers.
    "on-thread": {"ADDONS": ADDON, "DECLUTTER_PROCESSES": 0},
    "on-nolearning-thread": {"ADDONS": ADDON, "DECLUTTER_SITE_LEARNING": False,
                             "DECLUTTER_PROCESSES": 0},
    "on-proc1": {"ADDONS": ADDON, "DECLUTTER_PROCESSES": 1},
    "on-nolearning-proc1": {"ADDONS": ADDON, "DECLUTTER_SITE_LEARNING": False,
                            "DECLUTTER_PROCESSES": 1},
    "on-proc2": {"ADDONS": ADDON, "DECLUTTER_PROCESSES": 2},
    "density-nolearning": {"ADDONS": ADDON, "DECLUTTER_EXTRACTOR": "density",
                           "DECLUTTER_SITE_LEARNING": False},
}
BROAD_SETTINGS: dict[str, Any] = {
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    "ROBOTSTXT_OBEY": False,
    "RETRY_ENABLED": False,
    "CONCURRENT_REQUESTS": 32,
    "DOWNLOAD_DELAY": 0,
    "AUTOTHROTTLE_ENABLED": False,
}


def broad(root: Path, start_urls: list[str], modes: list[str], rounds: int, *,
          sample_every: int = 1000, pythonpath: str | None = None,
          baseline: str | None = None, concurrency: int = 32,
          minimal: bool = False,
          extra: dict[str, Any] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Crawl ``start_urls``' sites once per mode and round; the figures of every crawl.

    Each crawl gets a fresh SQLite site store and, unless ``minimal`` (the
    spider then only yields each page's URL and title, to no feed), a JSON
    lines feed under ``root`` (``items-<mode>-<round>.jsonl``). ``pythonpath``
    puts another checkout of the package first on the crawls' path;
    ``baseline`` crawls every plugin mode once more per round with that
    checkout (``MODE@base``), so two commits are compared in the same rounds;
    ``extra`` settings go on top of every mode's.
    """
    from . import crawlspider

    urls = root / "start-urls.txt"
    urls.write_text("\n".join(start_urls))
    runs = [(mode, mode, pythonpath) for mode in modes]
    if baseline:
        runs += [(f"{mode}@base", mode, baseline) for mode in modes if mode != "off"]
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in runs}
    for r in range(rounds):
        for label, mode, path in runs:
            tag = f"{label}-{r}".replace("@", "-")
            settings = {**BROAD_SETTINGS, "CONCURRENT_REQUESTS": concurrency, **BROAD_MODES[mode],
                        **(extra or {}),
                        "DECLUTTER_STORE": f"sqlite:///{root}/store-{tag}.db"}
            if not minimal:
                settings["FEEDS"] = {str(root / f"items-{tag}.jsonl"): {"format": "jsonlines"}}
            out = root / f"figures-{tag}.json"
            job = {"settings": settings, "urls": str(urls), "out": str(out),
                   "sample_every": sample_every}
            with open(root / f"crawl-{tag}.log", "wb") as log:
                done = subprocess.run(
                    [sys.executable, "-m", "scrapy", "runspider", crawlspider.__file__],
                    cwd=root, env={**environment_with(path), crawlspider.JOB_ENV: json.dumps(job)},
                    stdout=log, stderr=subprocess.STDOUT)
            if done.returncode or not out.exists():
                tail = (root / f"crawl-{tag}.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"crawl {tag} failed (status {done.returncode}):\n{tail}")
            results[label].append(json.loads(out.read_text()))
    return results


if __name__ == "__main__":
    main()
