"""Near-duplicates across two crawl processes that share one real Redis store (issue 44).

Five loopback sites of real pages (the example project's, through the crawl
benchmark's ``testsites``), each page served under three names and the first
page of each odd site syndicated from its even neighbour with that site's
chrome. Process 1 crawls the first name of every page of sites 0-3 but the
syndicated ones; process 2 crawls every other name, the syndicated pages and
site 4, which process 1 never saw. Both are Scrapy crawls of their own
(``scrapy_crawl.py``), with ``DECLUTTER_STORE`` the same ``redis://`` URI.

A small gate server orders them without sleeping: process 2's first request
waits until process 1 has indexed its six pages, and process 1's last request
waits until process 2 has joined the index, so the index, which lives as long
as the crawl, is never closed by all its users in between.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import NO_MAIN_TEXT
from test_stores import redis_server  # noqa: F401 - a fixture

pytest.importorskip("datasketch")

from scrapy_declutter.lab.bench import testsites
from scrapy_declutter.lab.bench.duplicates import site_path
from scrapy_declutter.nearduplicates.redisindex import PREFIX

RUNNER = Path(__file__).parent / "scrapy_crawl.py"
SITES, PAGES, COPIES = 5, 2, 3
FIRST_SITES = range(4)  # process 1's sites; site 4 is process 2's alone
GATE_SECONDS = 30  # a gate opens anyway after this, and the assertions say what went wrong


class _Gate(BaseHTTPRequestHandler):
    """``/after-first.html`` waits for process 1's pages in the index, ``/after-second.html``
    for process 2 to have joined it; both are then a page without text (never indexed)."""

    redis: object  # set per server: a client of the crawl's Redis
    indexed: int  # pages process 1 indexes

    def do_GET(self):
        key, least = {"/after-first.html": (b"rank", self.indexed),
                      "/after-second.html": (b"open", 2)}.get(self.path, (None, 0))
        deadline = time.monotonic() + GATE_SECONDS
        while key and int(self.redis.get(f"{PREFIX}chain:".encode() + key) or 0) < least \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        body = b"<html><head><title>gate</title></head><body></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _crawl(tmp_path: Path, name: str, urls: list[str],
           uri: str) -> tuple[subprocess.Popen, Path, Path]:
    """Start one crawl process over ``urls`` in this order; (process, feed, stats file)."""
    out, stats = tmp_path / f"{name}.jsonl", tmp_path / f"{name}-stats.json"
    spec = [{"spider": "ChainSpider", "stats": str(stats),
             "args": {"start_url": "", "paths": json.dumps(urls)},
             "settings": {"ADDONS": {"scrapy_declutter.Addon": 500},
                          "FEEDS": {str(out): {"format": "jsonlines"}},
                          "DECLUTTER_STORE": uri, "DECLUTTER_PROCESSES": 0,
                          "DECLUTTER_DUPLICATE_FIELD": "duplicate_of"}}]
    (tmp_path / f"{name}.json").write_text(json.dumps(spec))
    proc = subprocess.Popen([sys.executable, str(RUNNER), str(tmp_path / f"{name}.json")],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=os.environ.copy())
    return proc, out, stats


def test_two_processes_sharing_redis_flag_each_copy_with_its_first_copy(
        redis_server, tmp_path):  # noqa: F811 - the fixture
    import redis

    sources = [p for p in testsites.real_pages([])
               if not p.as_posix().endswith(NO_MAIN_TEXT)][:SITES * PAGES]  # pages with text
    root = tmp_path / "sites"
    root.mkdir()
    hosts = testsites.build(root, SITES, PAGES, sources, copies=COPIES, syndicate=True)
    groups = testsites.copy_groups(hosts, PAGES, sources, copies=COPIES, syndicate=True)
    syndicated = {(i, 0) for i in range(SITES) if i % 2}
    first_pages = [(i, j) for i in FIRST_SITES for j in range(PAGES) if (i, j) not in syndicated]
    client = redis.Redis.from_url(redis_server["uri"])
    gate = ThreadingHTTPServer(("127.0.0.1", 0), type("Gate", (_Gate,), {
        "redis": client, "indexed": len(first_pages)}))
    threading.Thread(target=gate.serve_forever, daemon=True).start()
    gate_url = f"http://127.0.0.1:{gate.server_address[1]}"
    procs = []
    try:
        with testsites.serve(root, hosts, use_nginx=False) as (port, _):
            def url(i: int, name: str) -> str:
                return f"http://{hosts[i]}:{port}/{name}"

            first = [url(i, f"p{j}.html") for i, j in first_pages]
            second = [url(i, name) for i in range(SITES) for j in range(PAGES)
                      for name in testsites.page_names(j, COPIES)
                      if url(i, name) not in first]
            procs.append(_crawl(tmp_path, "first", [*first, f"{gate_url}/after-second.html"],
                                redis_server["uri"]))
            procs.append(_crawl(tmp_path, "second", [f"{gate_url}/after-first.html", *second],
                                redis_server["uri"]))
            for proc, _, _ in procs:
                _, stderr = proc.communicate(timeout=90)
                assert proc.returncode == 0, stderr[-3000:]
    finally:
        for proc, _, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        gate.shutdown()
        gate.server_close()

    feeds = [[json.loads(line) for line in out.read_text().splitlines()] for _, out, _ in procs]
    flags = [{item["url"]: item["duplicate_of"] for item in feed
              if not item["url"].startswith(gate_url)} for feed in feeds]
    assert list(flags[0]) == first and set(flags[1]) == set(second)
    # Each group's first copy is its first URL in crawl order: process 1's, then process 2's.
    earliest: dict[int, str] = {}
    for u in [*first, *second]:
        earliest.setdefault(groups[site_path(u)], u)
    assert len({groups[site_path(u)] for u in first}) == len(first)  # distinct pages, then
    assert flags[0] == dict.fromkeys(first)  # no distinct page flagged
    expected = {u: (None if earliest[groups[site_path(u)]] == u
                    else earliest[groups[site_path(u)]]) for u in second}
    assert flags[1] == expected
    copies_of_first = [u for u, f in expected.items() if f in first]
    assert len(copies_of_first) >= 2 * len(first)  # process 2 found process 1's pages
    assert any(f is None for f in expected.values())  # site 4's first copies: not flagged
    stats = [json.loads(s.read_text()) for _, _, s in procs]
    assert "declutter/duplicates" not in stats[0]
    assert stats[1]["declutter/duplicates"] == sum(f is not None for f in expected.values())
    assert not any("declutter/errors" in s or "declutter/duplicates/unavailable" in s
                   for s in stats)
    # The last process to close deleted the index: it lived as long as the crawl.
    assert not list(client.scan_iter(match=f"{PREFIX}*"))
    client.close()
