"""Scale-out: two Scrapy processes share one crawl through scrapy-redis and one Redis store.

A real ``redis-server`` on a loopback port holds the scrapy-redis request
queue and dupefilter and the plugin's site models; a loopback HTTP server
serves the 26 bundled docs.python.org pages (example_project/site/) and
counts every request per path. Two ``scrapy crawl`` processes of the project
in tests/redis_crawl/ (the recipe of docs/scale-out.md) are started, and the
start URLs are pushed once both are up, so both take part. Each response is
delayed a little so the crawl outlasts Scrapy's 5 s idle heartbeat, when an
idle process looks at the shared queue again.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from test_stores import redis_server  # noqa: F401 - a fixture

from scrapy_declutter.sitelearning.fingerprints import hash_text
from scrapy_declutter.sitelearning.stores import open_store
from conftest import NO_MAIN_TEXT

pytest.importorskip("scrapy_redis", reason="scrapy-redis is needed: pip install scrapy-redis")

PROJECT = Path(__file__).parent / "redis_crawl"
SITE = Path(__file__).parents[1] / "example_project" / "site"
SECTIONS = ("tutorial", "faq")
PAGES = {f"/docs.python.org/3.11/{p.parent.name}/{p.name}"
         for s in SECTIONS for p in (SITE / "docs.python.org" / "3.11" / s).glob("*.html")}
#: Sphinx chrome present on every page, never part of its main text.
CHROME = ("Navigation", "Report a Bug", "Show Source")
DELAY = 0.6  # seconds per response: one process alone would need over 5 s
DEADLINE = 55  # seconds for the whole crawl


class _CountingHandler(SimpleHTTPRequestHandler):
    hits: Counter  # set per server

    def do_GET(self):
        self.hits[self.path] += 1
        time.sleep(DELAY)
        super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def site():
    handler = type("Handler", (_CountingHandler,), {"hits": Counter()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler.hits
    server.shutdown()
    server.server_close()


def _wait_for(condition, seconds: float, what: str, procs) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        failed = [p for p in procs if p.poll() is not None]
        if failed or time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {seconds}s (exited: {[p.args for p in failed]})")
        time.sleep(0.1)


def test_two_processes_share_one_crawl_and_one_site_model(redis_server, site, tmp_path):  # noqa: F811
    import redis

    base, hits = site
    uri = redis_server["uri"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(PROJECT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    procs, logs, feeds = [], [], []
    started = time.monotonic()
    for i in (1, 2):
        logs.append(tmp_path / f"crawl{i}.log")
        feeds.append(tmp_path / f"items{i}.jsonl")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "scrapy", "crawl", "pages", "-O", str(feeds[-1]),
             "-s", f"REDIS_URL={uri}", "-s", f"DECLUTTER_STORE={uri}",
             "-s", "CONCURRENT_REQUESTS=2", "-s", f"LOG_FILE={logs[-1]}"],
            cwd=PROJECT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    try:
        _wait_for(lambda: all(log.is_file() and "Spider opened" in log.read_text()
                              for log in logs), 30, "both spiders open", procs)
        client = redis.Redis.from_url(uri)
        for section in SECTIONS:
            url = f"{base}/docs.python.org/3.11/{section}/index.html"
            client.lpush("pages:start_urls", json.dumps({"url": url}))
        client.close()
        for proc in procs:
            _, stderr = proc.communicate(timeout=max(1, DEADLINE - (time.monotonic() - started)))
            assert proc.returncode == 0, stderr[-3000:]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    elapsed = time.monotonic() - started

    # Every page fetched exactly once, whichever process fetched it.
    assert set(hits) == PAGES, sorted(set(hits) ^ PAGES)
    assert set(hits.values()) == {1}, {p: n for p, n in hits.items() if n != 1}
    # Both processes took part, and every item has clean text without the chrome.
    items = [[json.loads(line) for line in f.read_text().splitlines()] for f in feeds]
    assert all(items), [len(i) for i in items]
    urls = [item["url"] for part in items for item in part]
    assert sorted(u.removeprefix(base) for u in urls) == sorted(PAGES)
    for item in (item for part in items for item in part):
        assert not any(chrome in item["clean_text"] for chrome in CHROME), item["url"]
        if not item["url"].endswith(NO_MAIN_TEXT):
            assert item["clean_text"].strip(), item["url"]
            assert {b["label"] for b in item["blocks"]} == {"content", "boilerplate"}, item["url"]
    for log in logs:
        assert "scrapy_declutter: " in log.read_text()
        assert " ERROR: " not in log.read_text()
    # The site model in Redis counts every page of both processes, each once.
    with open_store(uri) as store:
        assert store.sites() == ["127.0.0.1"]
        model = store.load("127.0.0.1")
    assert model.pages == len(PAGES)
    assert set(model.urls) == {hash_text(u) for u in urls}
    assert elapsed < DEADLINE
