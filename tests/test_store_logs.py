"""Stores append increments to a per-site log and compact it; Declutter's working set is
bounded in bytes and its writes do not re-serialise whole models."""

from __future__ import annotations

import pytest
from test_sitemodel import article
from test_stores import assert_no_lost_counts, delta, redis_server  # noqa: F401  (a fixture)

from scrapy_declutter import Declutter
from scrapy_declutter.sitelearning.model import SiteModel
from scrapy_declutter.sitelearning.stores import open_store
from scrapy_declutter.sitelearning.stores.base import COMPACT_AFTER
from scrapy_declutter.sitelearning.stores.memory import MemoryStore
from scrapy_declutter.sitelearning.stores.sqlite import SQLiteStore
from scrapy_declutter.sitelearning.writes import WRITE_BATCH

BATCHES = 12  # x 2 deltas per batch x 2 writers: crosses COMPACT_AFTER while both append


@pytest.fixture(params=["memory", "sqlite", "redis"])
def store_uri(request, tmp_path):
    if request.param == "redis":
        return request.getfixturevalue("redis_server")["uri"]
    return "memory:" if request.param == "memory" else f"sqlite:///{tmp_path}/s.db"


def test_append_logs_deltas_then_compacts_them_into_the_model(store_uri):
    with open_store(store_uri) as store:
        store.append([delta("s", i) for i in range(COMPACT_AFTER - 1)])
        assert store._read("s")[0] is None  # nothing rewritten: only the log grew
        assert len(store._read("s")[1]) == COMPACT_AFTER - 1
        assert store.load("s").pages == COMPACT_AFTER - 1 and store.sites() == ["s"]
        store.append([delta("s", COMPACT_AFTER), delta("t", 0)])
        blob, log = store._read("s")
        assert log == [] and SiteModel.from_bytes(blob).pages == COMPACT_AFTER
        assert store._read("t")[0] is None and store.load("t").pages == 1
        store.append([delta("t", 1)], fold={"t"})  # no stored model: nothing to fold yet
        assert store._read("t")[0] is None
        store.append([SiteModel("t")] * COMPACT_AFTER)  # its log reaches the cut: a model
        store.append([delta("t", 2)], fold={"t"})  # fold: compacted at once
        assert store._read("t")[1] == [] and SiteModel.from_bytes(store._read("t")[0]).pages == 3
        assert store.forget("t") and store.sites() == ["s"]


def test_an_unreadable_delta_is_logged_and_skipped(caplog):
    store = MemoryStore()
    store.append([delta("s", 1)])
    store._logs["s"].append(b"not a model")
    store.append([delta("s", 2)])
    assert store.load("s").pages == 2
    assert any("unreadable" in r.message for r in caplog.records)


def _appender(uri: str, worker: int) -> None:
    store = open_store(uri)
    for i in range(BATCHES):
        n = worker * 1000 + 2 * i
        store.append([delta("example.org", n), delta("example.org", n + 1)])
    store.close()


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_two_processes_appending_and_compacting_lose_nothing(backend, tmp_path, request):
    uri = (request.getfixturevalue("redis_server")["uri"] if backend == "redis"
           else f"sqlite:///{tmp_path}/s.db")
    assert_no_lost_counts(uri, writer=_appender, per_worker=2 * BATCHES)
    with open_store(uri) as store:
        assert store._read("example.org")[0] is not None  # at least one compaction ran
        assert len(store._read("example.org")[1]) < COMPACT_AFTER


def test_a_write_costs_the_delta_not_the_stored_model(tmp_path):
    store = SQLiteStore(tmp_path / "s.db")
    big = SiteModel("s")
    for i in range(300):
        big.merge(delta("s", i))
    store.append([big] + [SiteModel("s")] * (COMPACT_AFTER - 1))  # compacted: a model row
    store.append([delta("s", 1000)])
    (model_size,) = store.conn.execute("SELECT length(model) FROM site_models").fetchone()
    (delta_size,) = store.conn.execute("SELECT length(delta) FROM site_deltas").fetchone()
    assert delta_size * 10 < model_size
    assert store.load("s").pages == 301


def test_the_working_set_is_bounded_in_bytes_and_evicted_sites_keep_their_counts(tmp_path):
    one_site = Declutter("density", store="memory:")
    for i in range(3):
        one_site.extract(article(i), f"https://site0.example/{i}")
    site_bytes = one_site._sites["site0.example"].nbytes
    bound = 5 * site_bytes
    dec = Declutter("density", store=f"sqlite:///{tmp_path}/s.db", max_cache_bytes=bound)
    for i in range(3):
        for site in range(20):
            dec.extract(article(i + site), f"https://site{site}.example/{i}")
            assert dec._cached_bytes <= bound + site_bytes
            assert dec._cached_bytes == sum(s.nbytes for s in dec._sites.values())
    assert 2 <= len(dec._sites) < 20
    dec.close()
    with open_store(f"sqlite:///{tmp_path}/s.db") as store:
        assert store.sites() == sorted(f"site{s}.example" for s in range(20))
        assert all(store.load(f"site{s}.example").pages == 3 for s in range(20))


def test_the_working_set_is_bounded_when_only_reading_too():
    dec = Declutter("density", store="memory:", learn=False, max_cache_bytes=1)
    for site in range(5):
        dec.extract(article(site), f"https://site{site}.example/1")
        assert list(dec._sites) == [f"site{site}.example"]  # the page's own site stays


def test_a_fresh_site_keeps_one_copy_and_writes_its_whole_model(tmp_path):
    uri = f"sqlite:///{tmp_path}/s.db"
    dec = Declutter("density", store=uri)
    for i in range(3):
        dec.extract(article(i), f"https://fresh.example/{i}")
    state = dec._sites["fresh.example"]
    assert state.delta is None  # the model is its own delta: no second copy
    assert state.nbytes == state.model.estimated_bytes()
    dec.flush()
    assert dec._sites["fresh.example"].delta is not None  # written: increments from now on
    with open_store(uri) as store:
        assert store.load("fresh.example").to_bytes() == dec.model("fresh.example").to_bytes()
    dec.extract(article(3), "https://fresh.example/3")  # an increment over the stored model
    dec.close()
    with open_store(uri) as store:
        assert store.load("fresh.example").pages == 4


class _CountingStore(MemoryStore):
    """A memory store that records the size of every write."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def append(self, deltas, fold=()):
        self.batches.append(len(deltas))
        super().append(deltas, fold)


def test_a_flush_of_many_sites_is_written_in_bounded_batches_and_loses_nothing():
    # flush() at the end of a broad crawl queues every site still in memory; one write of
    # them all held every serialised delta at once.
    store = _CountingStore()
    sites = WRITE_BATCH * 2 + 7
    dec = Declutter("density", store=store, flush_every=10)
    for site in range(sites):
        dec.extract(article(site), f"https://site{site}.example/1")
    assert store.batches == []  # nothing due yet: every site is below flush_every
    dec.flush()
    assert store.batches == [WRITE_BATCH, WRITE_BATCH, 7]
    assert all(store.load(f"site{s}.example").pages == 1 for s in range(sites))
    dec.close()


def test_a_site_loaded_again_sees_increments_queued_past_the_first_batch():
    store = _CountingStore()
    dec = Declutter("density", store=store, flush_every=1, max_cache_bytes=1)
    writes = dec.writes
    writes.learned = lambda flush_every: False  # evicted sites pile up, as in an eviction storm
    for site in range(WRITE_BATCH + 5):
        dec.extract(article(site), f"https://site{site}.example/1")
    queued = [delta.site for delta in writes.queue]
    last = f"site{WRITE_BATCH + 3}.example"
    assert len(queued) > WRITE_BATCH and queued.index(last) >= WRITE_BATCH
    dec.extract(article(99), f"https://{last}/2")  # loaded again: its first page lands first
    assert dec.model(last).pages == 2
    dec.close()
    assert store.load(last).pages == 2
