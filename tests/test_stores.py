"""Stores: URIs, merging deltas, concurrent writers, corrupt files, a Redis that goes away."""

from __future__ import annotations

import logging
import multiprocessing
import shutil
import socket
import subprocess
import time

import pytest

from scrapy_declutter import Declutter
from scrapy_declutter.errors import StoreError, StoreUnavailableError
from scrapy_declutter.sitelearning.fingerprints import fingerprint
from scrapy_declutter.sitelearning.model import SiteModel
from scrapy_declutter.sitelearning.ngram import KEEP
from scrapy_declutter.sitelearning.stores import open_store
from scrapy_declutter.sitelearning.stores.memory import MemoryStore
from scrapy_declutter.sitelearning.stores.sqlite import SQLiteStore

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
WRITES = 15
FP = fingerprint("Subscribe to our newsletter")
#: Pages made of these differ once digits are folded (else they are near-copies, not learned).
WORDS = ["Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth"]


def delta(site: str, i: int) -> SiteModel:
    d = SiteModel(site)
    d.observe([FP, fingerprint(f"page {i} body {'x' * (i % 5)}")], f"https://{site}/{i}")
    d.classifier.train(KEEP, f"text of page {i}")
    return d


def merged(store, d: SiteModel) -> SiteModel:
    """Write one delta as ``Declutter`` does (appended, its site folded) and read the site back."""
    store.append([d], fold={d.site})
    return store.load(d.site)


def _writer(uri: str, worker: int) -> None:
    store = open_store(uri)
    for i in range(WRITES):
        store.append([delta("example.org", worker * 1000 + i)], fold={"example.org"})
    store.close()


def assert_no_lost_counts(uri: str, workers: int = 2, writer=_writer,
                          per_worker: int = WRITES) -> None:
    """``workers`` processes run ``writer(uri, worker)``, each adding ``per_worker`` pages."""
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=writer, args=(uri, w)) for w in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with open_store(uri) as store:
        model = store.load("example.org")
    assert model.pages == workers * per_worker
    assert model.fingerprints[FP] == workers * per_worker
    assert model.classifier.examples[KEEP] == workers * per_worker
    assert len(model.urls) == workers * per_worker


@pytest.mark.parametrize("uri,kind", [
    ("memory:", MemoryStore),
    ("sqlite:///{tmp}/a/store.db", SQLiteStore),
    ("sqlite:{tmp}/b.db", SQLiteStore),
])
def test_uris_choose_the_store(tmp_path, uri, kind):
    with open_store(uri.format(tmp=tmp_path)) as store:
        assert isinstance(store, kind)
        assert merged(store, delta("s", 1)).pages == 1
        assert merged(store, delta("s", 2)).pages == 2
        assert store.sites() == ["s"]
        assert store.forget("s") and store.load("s") is None and not store.forget("s")


def test_unknown_uri_is_an_error_naming_the_valid_ones():
    with pytest.raises(StoreError, match="sqlite:///"):
        open_store("mongodb://x")


def test_sqlite_keeps_models_across_crawls(tmp_path):
    uri = f"sqlite:///{tmp_path}/sites.db"
    page = "<html><body><p>{}</p><footer><p>Shared footer text of the site</p></footer></body></html>"
    with Declutter("density", store=uri) as dec:
        for i in range(4):
            word = ["alpha", "bravo", "charlie", "delta"][i]
            dec.extract(page.format(f"Story {word} " * 20), f"https://example.org/{i}")
    with Declutter("density", store=uri) as again:
        assert again.model("example.org").pages == 4


def test_two_processes_writing_one_sqlite_store_lose_nothing(tmp_path):
    assert_no_lost_counts(f"sqlite:///{tmp_path}/shared.db")


def _open_at_once(uri: str, barrier) -> None:
    barrier.wait()
    open_store(uri).close()


def test_processes_opening_a_fresh_sqlite_file_at_once_all_get_the_store(tmp_path):
    # Two crawls started together: the switch to WAL answered "database is locked"
    # without waiting (7 of 180 openers failed before the set-up was retried).
    ctx = multiprocessing.get_context("fork")
    failed = 0
    for trial in range(30):
        barrier = ctx.Barrier(6)
        uri = f"sqlite:///{tmp_path}/fresh-{trial}.db"
        procs = [ctx.Process(target=_open_at_once, args=(uri, barrier)) for _ in range(6)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        failed += sum(p.exitcode != 0 for p in procs)
    assert failed == 0


def test_corrupt_sqlite_file_is_moved_aside_with_a_logged_error(tmp_path, caplog):
    path = tmp_path / "sites.db"
    path.write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.ERROR):
        dec = Declutter("density", store=f"sqlite:///{path}", flush_every=1)
        result = dec.extract("<p>" + "Some article text here. " * 10 + "</p>", "https://e.org/1")
    assert "article text" in result.text
    assert dec.model("e.org").pages == 1
    assert any("not a usable SQLite database" in r.message for r in caplog.records)
    assert list(tmp_path.glob("sites.db.corrupt-*"))
    dec.close()


def test_corrupt_model_row_in_sqlite_is_replaced(tmp_path, caplog):
    store = SQLiteStore(tmp_path / "s.db")
    store.conn.execute("INSERT INTO site_models VALUES ('s', x'00ff', 0)")
    with caplog.at_level(logging.ERROR):
        assert store.load("s") is None
        assert merged(store, delta("s", 1)).pages == 1
    assert store.load("s").pages == 1 and store._read("s")[1] == []  # folded into a new row
    assert any("corrupt" in r.message for r in caplog.records)


def test_newer_format_is_logged_and_left_untouched(caplog):
    store = MemoryStore()
    from scrapy_declutter.sitelearning.modelbytes import pack, unpack

    header, arrays = unpack(SiteModel("s").to_bytes(), 1 << 20)
    blob = pack({**header, "version": 99}, arrays)
    store._data["s"] = blob
    with caplog.at_level(logging.ERROR):
        assert store.load("s") is None
        store.append([delta("s", 1)], fold={"s"})
    assert store._read("s")[0] == blob
    assert any("newer" in r.message for r in caplog.records)


# -- Redis, against a real server ------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_redis(port: int) -> subprocess.Popen:
    proc = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("redis-server did not start")


@pytest.fixture
def redis_server():
    if not shutil.which(REDIS_SERVER):
        pytest.skip(f"redis-server is not installed ({REDIS_SERVER}); apt-get install redis-server")
    pytest.importorskip("redis", reason="the redis client is needed: pip install redis")
    port = _free_port()
    proc = _start_redis(port)
    info = {"port": port, "uri": f"redis://127.0.0.1:{port}/0", "proc": proc}
    yield info
    info["proc"].terminate()
    info["proc"].wait(10)


def test_redis_store_round_trip(redis_server):
    with open_store(redis_server["uri"]) as store:
        assert merged(store, delta("s", 1)).pages == 1
        assert merged(store, delta("s", 2)).pages == 2
        assert store.sites() == ["s"] and store.load("s").pages == 2
        assert store.forget("s") and store.sites() == []


def test_two_processes_writing_one_redis_store_lose_nothing(redis_server):
    assert_no_lost_counts(redis_server["uri"])


def test_redis_going_away_degrades_to_generic_and_recovers(redis_server, caplog):
    page = "<html><body><p>{}</p><p>Shared footer text of the site, long enough.</p></body></html>"
    dec = Declutter("density", store=redis_server["uri"], flush_every=1, retry_after=0.0)
    dec.extract(page.format("First story " * 20), "https://example.org/1")
    redis_server["proc"].terminate()
    redis_server["proc"].wait(10)
    with caplog.at_level(logging.WARNING):
        result = dec.extract(page.format("Second story " * 20), "https://example.org/2")
        other = dec.extract(page.format("Other site " * 20), "https://other.org/1")
    assert "Second story" in result.text and "Other site" in other.text
    assert other.site_learning is None  # not cached: plain generic extraction
    assert any("unavailable" in r.message for r in caplog.records)
    redis_server["proc"] = _start_redis(redis_server["port"])  # back, empty
    with caplog.at_level(logging.WARNING):
        dec.extract(page.format("Third story " * 20), "https://example.org/3")
    assert any("back" in r.message for r in caplog.records)
    with open_store(redis_server["uri"]) as store:
        assert store.load("example.org").pages >= 2  # the increments waited and landed
    dec.close()


def test_failed_writes_wait_for_redis_and_land_when_it_is_back(redis_server, caplog):
    """A batch that fails stays queued and is sent again."""
    page = "<html><body><p>{}</p><p>Shared footer text of the site, long enough.</p></body></html>"
    dec = Declutter("density", store=redis_server["uri"], flush_every=1, retry_after=0.0)
    dec.extract(page.format("First story " * 20), "https://example.org/1")
    dec.extract(page.format("Second story " * 20), "https://example.org/2")
    redis_server["proc"].terminate()
    redis_server["proc"].wait(10)
    with caplog.at_level(logging.WARNING):
        for i, word in enumerate(WORDS[:3], 3):  # each write fails and is queued again
            assert word in dec.extract(page.format(f"{word} story " * 20),
                                       f"https://example.org/{i}").text
    assert any("unavailable" in r.message for r in caplog.records)
    redis_server["proc"] = _start_redis(redis_server["port"])  # back, empty
    with caplog.at_level(logging.WARNING):
        dec.flush()
    assert any("back" in r.message for r in caplog.records) and not dec.writes.queue
    with open_store(redis_server["uri"]) as store:
        assert store.load("example.org").pages == 3  # pages 3-5 waited and landed
    dec.close()


def test_a_site_back_in_memory_reads_its_queued_increments(tmp_path):
    """Evicted with its delta queued, a site reloads with every page counted."""
    page = "<html><body><p>{}</p><p>Shared footer text of the site, long enough.</p></body></html>"
    dec = Declutter("density", store=f"sqlite:///{tmp_path}/s.db", flush_every=1,
                    max_cache_bytes=1)  # every other site is evicted at once
    for i, word in enumerate(WORDS):
        for site in ("a.example", "b.example"):
            dec.extract(page.format(f"{word} story of {site} " * 20), f"https://{site}/{i}")
            assert dec.model(site).pages == i + 1
    dec.close()
    with open_store(f"sqlite:///{tmp_path}/s.db") as store:
        assert store.load("a.example").pages == store.load("b.example").pages == 6


def test_unreachable_redis_raises_unavailable():
    pytest.importorskip("redis")
    store = open_store(f"redis://127.0.0.1:{_free_port()}/0")
    with pytest.raises(StoreUnavailableError):
        store.load("s")


def test_redis_password_stays_out_of_messages(caplog):
    """The store-unavailable warning goes to the crawl log: it must not carry the password."""
    pytest.importorskip("redis")
    port = _free_port()
    store = open_store(f"redis://crawler:s3cret@127.0.0.1:{port}/0")
    assert store.uri == f"redis://crawler:***@127.0.0.1:{port}/0"
    assert open_store(f"redis://:s3cret@127.0.0.1:{port}/0").uri.startswith("redis://:***@")
    with pytest.raises(StoreUnavailableError) as raised:
        store.load("s")
    dec = Declutter("density", store=store, flush_every=1)
    with caplog.at_level(logging.WARNING):
        dec.extract("<p>" + "Some words of a story. " * 10 + "</p>", "https://example.org/1")
    assert "unavailable" in caplog.text
    assert "s3cret" not in str(raised.value) + caplog.text
