"""Stores under faults the store tests (test_stores.py) do not cover; crawls with a broken store.

test_stores.py already covers: random bytes as the SQLite file, a corrupt
model row, a newer format version, Redis going away and coming back, and
concurrent writers. Here: a real SQLite file cut in half, hostile model
blobs (nesting, decompression bombs), an unusable store path, and whole
Scrapy crawls whose store is unreachable or unusable: every item is still
exported.
"""

from __future__ import annotations

import logging
import socket
import tracemalloc
import zlib

import pytest

sitelearning = pytest.importorskip("scrapy_declutter.sitelearning.declutter")
from scrapy_declutter import DeclutterError
from scrapy_declutter.sitelearning.declutter import Declutter
from scrapy_declutter.sitelearning.model import SiteModel
from scrapy_declutter.sitelearning.stores.memory import MemoryStore

PAGE = ("<html><body><p>{}</p><p>Shared footer text of the site, long enough to count as a "
        "block of its own.</p></body></html>")


def story(i: int) -> str:
    return PAGE.format(f"Story number {i} tells of the garden in spring. " * 8)


def test_a_truncated_sqlite_store_is_set_aside_and_learning_starts_again(tmp_path, caplog):
    path = tmp_path / "sites.db"
    with Declutter("density", store=f"sqlite:///{path}", flush_every=1) as dec:
        for i in range(20):
            dec.extract(story(i), f"https://site{i}.example/{i}")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a disk that filled up, a copy cut short
    store = f"sqlite:///{path}"
    with caplog.at_level(logging.WARNING), Declutter("density", store=store, flush_every=1) as dec:
        results = [dec.extract(story(i), f"https://site{i}.example/again") for i in range(3)]
    assert all("Story number" in r.text for r in results)
    assert "not a usable SQLite database" in caplog.text
    assert list(tmp_path.glob("sites.db.corrupt-*"))


def _store_with(blob: bytes) -> MemoryStore:
    store = MemoryStore()
    store._data["example.org"] = blob
    return store


def test_a_model_nested_beyond_json_recursion_is_refused_not_raised():
    store = _store_with(zlib.compress(b"[" * 200_000))
    with Declutter("density", store=store) as dec:
        result = dec.extract(story(1), "https://example.org/1")
    assert "Story number" in result.text


def test_a_decompression_bomb_in_the_store_is_refused_in_bounded_memory():
    bomb = zlib.compress(b" " * 40_000_000)
    assert len(bomb) < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(DeclutterError):
            SiteModel.from_bytes(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000


def test_a_bomb_or_a_deep_model_never_stops_a_scrapy_style_caller():
    """Whatever the store holds, the Scrapy path (which catches per page) goes on to the next page."""
    for blob in (zlib.compress(b"[" * 200_000), zlib.compress(b'{"format": 1}' * 10)):
        dec = Declutter("density", store=_store_with(blob))
        outcomes = []
        for i in range(2):
            try:
                outcomes.append("Story number" in dec.extract(story(i), f"https://example.org/{i}").text)
            except Exception as exc:  # noqa: BLE001 - what the Scrapy glue does with it
                outcomes.append(type(exc).__name__)
        assert outcomes[-1] in (True, "RecursionError"), outcomes
        other = dec.extract(story(9), "https://other.example/9")  # other sites are unaffected
        assert "Story number" in other.text


def test_an_unusable_store_path_is_a_declutter_error(tmp_path):
    (tmp_path / "a-file").write_text("not a directory")
    with pytest.raises(DeclutterError):
        Declutter("density", store=f"sqlite:///{tmp_path}/a-file/sub/sites.db")


# -- whole crawls ------------------------------------------------------------------------------
def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


@pytest.mark.parametrize("store", ["redis", "unusable-sqlite"])
def test_a_crawl_with_a_broken_store_exports_every_item(store, site_url, tmp_path):
    pytest.importorskip("redis")
    from test_scrapy_crawl import CONTENT, HTML_PAGES, OTHER_FILES, crawl, feed, read_jsonl

    if store == "redis":
        uri = f"redis://127.0.0.1:{_dead_port()}/0"
    else:
        (tmp_path / "a-file").write_text("not a directory")
        uri = f"sqlite:///{tmp_path}/a-file/sites.db"
    out = tmp_path / "items.jsonl"
    (stats,), log = crawl(tmp_path, {
        "settings": {**feed(out), "DECLUTTER_STORE": uri},
        "args": {"start_url": f"{site_url}/index.html"},
    })
    items = read_jsonl(out)
    assert set(items) == HTML_PAGES | OTHER_FILES  # nothing lost
    assert stats["item_scraped_count"] == len(HTML_PAGES | OTHER_FILES)
    # Either way: generic extraction with a warning, no page counted as an error.
    for path, snippet in CONTENT.items():
        assert snippet in items[path]["clean_text"]
    assert "declutter/errors" not in stats
    if store == "redis":  # unreachable
        assert "unavailable" in log
    else:  # cannot be opened at all: one warning for the crawl, not one per page
        assert log.count("cannot open the site store") == 1



@pytest.fixture(scope="module")
def site_url():
    """The fixture site of test_scrapy_crawl.py on a loopback port."""
    import functools
    import threading
    from http.server import ThreadingHTTPServer

    from test_scrapy_crawl import SITE, _QuietHandler

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


# -- Redis going away in the middle of a real crawl, and coming back ------------------------------
CHAIN = ["p1", "p2", "down", "p3", "p4", "up", "p5", "p6"]


def test_redis_going_away_mid_crawl_and_back_costs_no_item(tmp_path):
    """Pages link in a chain, one request at a time; fetching /down.html kills redis-server,
    /up.html starts it again. Pages of the outage belong to a site not loaded yet (per-request
    ``site_key``), so the store is asked and found gone. Every item is exported; the first
    site's learning waits in memory and lands in the revived server on close."""
    import functools
    import json
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    pytest.importorskip("redis")
    from test_scrapy_crawl import crawl, feed, read_jsonl
    from test_stores import REDIS_SERVER, _free_port, _start_redis

    from scrapy_declutter.sitelearning.stores import open_store

    if not __import__("shutil").which(REDIS_SERVER):
        pytest.skip("redis-server is not installed")
    site = tmp_path / "site"
    site.mkdir()
    for i, name in enumerate(CHAIN):
        nxt = f"<a href='/{CHAIN[i + 1]}.html'>next</a>" if i + 1 < len(CHAIN) else ""
        body = f"Page {name} of the chain tells its own story about the garden. " * 6
        (site / f"{name}.html").write_text(
            f"<html><body><nav>Home | About | Contact us today</nav><p>{body}</p>{nxt}"
            "<footer>Shared footer of the club site, on every page.</footer></body></html>")
    port = _free_port()
    redis = {"proc": _start_redis(port)}

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/down.html":
                redis["proc"].terminate()
                redis["proc"].wait(10)
            elif self.path == "/up.html":
                redis["proc"] = _start_redis(port)
            super().do_GET()

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    uri = f"redis://127.0.0.1:{port}/0"
    try:
        out = tmp_path / "items.jsonl"
        (stats,), log = crawl(tmp_path, {
            "settings": {**feed(out), "DECLUTTER_STORE": uri, "CONCURRENT_REQUESTS": 1},
            "args": {"start_url": f"http://127.0.0.1:{server.server_address[1]}/p1.html",
                     "meta": json.dumps({f"/{n}.html": {"site_key": "fixed:outage.example"} for n in ("p3", "p4")})},
        })
        items = read_jsonl(out)
        assert set(items) == {f"/{name}.html" for name in CHAIN}  # nothing lost
        for name in CHAIN:
            assert f"Page {name} of the chain" in items[f"/{name}.html"]["clean_text"]
        assert "declutter/errors" not in stats
        assert "unavailable" in log
        with open_store(uri) as store:  # the revived (empty) server got what waited in memory
            assert store.load("127.0.0.1").pages >= 1
            assert store.load("outage.example") is None  # learned nothing while the store was gone
    finally:
        server.shutdown()
        server.server_close()
        redis["proc"].terminate()
        redis["proc"].wait(10)
