"""The near-duplicate index: signatures of clean texts, the earliest copy, a Redis index shared."""

from __future__ import annotations

import json
import multiprocessing
import random
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("datasketch")

from scrapy_declutter import extract  # noqa: E402
from scrapy_declutter.errors import SettingsError, StoreError  # noqa: E402
from scrapy_declutter.nearduplicates import (  # noqa: E402
    DuplicateIndex,
    datasketch_missing,
    open_duplicate_index,
)
from scrapy_declutter.nearduplicates import signature  # noqa: E402
from scrapy_declutter.nearduplicates.index import MemoryIndex, bands, similarity  # noqa: E402
from scrapy_declutter.nearduplicates.signature import (  # noqa: E402
    MAX_SHINGLES,
    Signer,
    shingle_hashes,
    word_hashes,
)

WCXB = Path(__file__).parent / "sample_data" / "wcxb"
DOCS_SITE = Path(__file__).resolve().parents[1] / "example_project" / "site" / "docs.python.org"


def gold_text(file_id: str) -> str:
    """A bundled WCXB page's gold main content: real prose of one page."""
    truth = json.loads((WCXB / f"{file_id}.json").read_text(encoding="utf-8"))
    return truth["ground_truth"]["main_content"]


def edited(text: str, words: int) -> str:
    """The text with ``words`` words, spread over it, replaced by others."""
    tokens = text.split()
    step = len(tokens) // (words + 1)
    for k in range(1, words + 1):
        tokens[k * step] = f"changed{k}"
    return " ".join(tokens)


def test_words_fold_ascii_case_and_split_unspaced_scripts():
    assert np.array_equal(word_hashes("Hello, World!"), word_hashes("hello world"))
    assert word_hashes("東京は晴れ").size == 5  # one word per character
    assert np.array_equal(word_hashes("東京 x")[2:], word_hashes("x"))
    assert word_hashes(" ... !? ").size == 0
    assert not np.array_equal(word_hashes("ab"), word_hashes("ba"))


@pytest.mark.parametrize("file_id", ["0082", "0540", "2860", "4297"])
def test_compiled_words_are_the_reference_words(file_id):
    from conftest import require_compiled

    require_compiled(signature._compiled, "near-duplicate word hashing")
    odd = "x\xc2 ab\u3000cd\u3001東京は晴れ \xa0\u2014b «é» ÉCOLE école " + "w" * 90
    rnd = random.Random(file_id)
    alphabet = "ab Z9,.\xa0\u2014\u3000\u3001東京は晴れé«»\u2028\U0001f600\ud800"
    shuffled = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 30)))
                for _ in range(300)]
    for text in (gold_text(file_id), odd, "", "a", "\u2014", *shuffled):
        utf8 = text.encode("utf-8", "surrogatepass")
        assert np.array_equal(signature._compiled.word_hashes(utf8),
                              signature.python_word_hashes(utf8)), text[:40]


def test_long_texts_read_a_bounded_sample_of_shingles():
    text = " ".join(f"w{i}" for i in range(5 * MAX_SHINGLES))
    assert shingle_hashes(text).size == MAX_SHINGLES
    assert shingle_hashes("two words").size == 1


def test_signatures_agree_across_signers_and_estimate_jaccard():
    text = gold_text("0540")
    a, b = Signer().signature(text), Signer().signature(text)
    assert a.dtype == np.uint32 and np.array_equal(a, b)
    near = Signer().signature(edited(text, 4))
    assert 0.85 <= similarity(a, near) < 1.0
    assert similarity(a, Signer().signature(gold_text("0082"))) < 0.2
    assert Signer().signature("") is None and Signer().signature(None) is None


@pytest.mark.parametrize("file_id", ["0082", "0540"])
def test_a_signature_is_datasketchs_minhash_of_the_shingles(file_id):
    """The page's shingles given to datasketch as one array give the values it gives them
    one by one, so signatures compare with those of any datasketch user of the same seed."""
    from datasketch import MinHash

    shingles = shingle_hashes(gold_text(file_id))
    reference = MinHash(num_perm=128, seed=1, hashfunc=int, scheme="affine32")
    reference.update_batch(shingles.tolist())
    assert shingles.dtype == np.uint32 and shingles.size > 100
    assert np.array_equal(Signer().signature(gold_text(file_id)), reference.hashvalues)


@pytest.mark.parametrize("threshold", [0.8, 0.85, 0.9, 0.95, 1.0])
def test_bands_outnumber_the_unequal_values_allowed(threshold):
    """Every pair at the threshold shares a band: no candidate is lost to the LSH."""
    count, rows = bands(threshold, 128)
    assert count > (1 - threshold) * 128 and count * rows <= 128 and count >= 2


def test_exact_and_near_copies_point_to_the_first_page():
    index = MemoryIndex()
    text = gold_text("0540")
    assert index.first_copy("https://a.example/1", text) is None
    assert index.first_copy("https://b.example/1", text) == "https://a.example/1"
    assert index.first_copy("https://c.example/x", edited(text, 3)) == "https://a.example/1"
    assert index.first_copy("https://d.example/other", gold_text("4287")) is None
    assert len(index) == 3  # the exact copy needs no entry of its own


def test_pages_far_apart_are_not_duplicates():
    index = MemoryIndex()
    text = gold_text("0082")
    index.first_copy("https://a.example/", text)
    assert index.first_copy("https://b.example/", edited(text, 60)) is None


def test_same_url_again_is_not_its_own_duplicate():
    index = MemoryIndex()
    text = gold_text("0540")
    assert index.first_copy("https://a.example/", text) is None
    assert index.first_copy("https://a.example/", text) is None
    index.first_copy("https://b.example/", edited(text, 2))
    # Seen again, each page still has the earliest other page, or none if it came first.
    assert index.first_copy("https://b.example/", edited(text, 2)) == "https://a.example/"
    assert index.first_copy("https://a.example/", text) is None


def test_earliest_wins_among_several_similar_pages():
    index = MemoryIndex()
    text = gold_text("4287")
    index.first_copy("https://first.example/", edited(text, 3))
    index.first_copy("https://second.example/", text)
    assert index.first_copy("https://third.example/", text) == "https://first.example/"


def test_pages_with_the_same_bytes_are_copies_whatever_their_texts():
    """Site learning may label one page's copies differently as it learns: the bytes decide."""
    index = MemoryIndex()
    body = b"<html><body>the same page served under three URLs</body></html>"
    text = gold_text("0540")
    assert index.first_copy("https://a.example/", text, body=body) is None
    assert index.first_copy("https://a.example/?2", gold_text("4287"), body=body) == \
        "https://a.example/"
    assert index.first_copy("https://a.example/", gold_text("0082"), body=body) is None  # itself
    assert index.first_copy("https://b.example/", edited(text, 2), body=b"other") == \
        "https://a.example/"
    # Bytes register their first copy, which is also the earliest by text.
    assert index.first_copy("https://c.example/", gold_text("0619"), body=b"other") == \
        "https://a.example/"
    assert index.first_copy("https://d.example/", None, body=body) is None  # no text: never


@pytest.mark.parametrize("empty", [None, "", "   \n\t ", "— !? …"])
def test_pages_without_words_are_never_duplicates_nor_indexed(empty):
    index = MemoryIndex()
    assert index.first_copy("https://a.example/", empty) is None
    assert index.first_copy("https://b.example/", empty) is None
    assert len(index) == 0


def test_a_full_index_keeps_its_earliest_pages():
    index = MemoryIndex(max_pages=1)
    first, second = gold_text("0540"), gold_text("0082")
    index.first_copy("https://a.example/", first)
    index.first_copy("https://b.example/", second)
    assert len(index) == 1
    assert index.first_copy("https://c.example/", first) == "https://a.example/"
    assert index.first_copy("https://d.example/", second) is None


def test_pages_sharing_only_their_template_are_distinct():
    """The example project's Python docs share one template; their clean texts do not repeat."""
    pages = sorted(DOCS_SITE.rglob("*.html"))
    index = MemoryIndex()
    texts = {}
    for path in pages:
        url = "https://docs.python.org/" + path.relative_to(DOCS_SITE).as_posix()
        texts[url] = extract(path.read_bytes(), url).text
        assert index.first_copy(url, texts[url]) is None, url
    first = next(iter(texts))
    for url, text in texts.items():  # the same pages again, under other addresses
        assert index.first_copy(url.replace("docs.python.org", "mirror.example"), text) == \
            (url if text.strip() else None)
    assert len(texts) >= 20 and first


def test_threshold_below_the_accepted_range_is_refused():
    with pytest.raises(ValueError, match="0.8"):
        MemoryIndex(threshold=0.5)


def test_keeping_an_index_needs_redis():
    assert isinstance(open_duplicate_index("memory:", name="s"), DuplicateIndex)
    with pytest.raises(StoreError, match="Redis"):
        open_duplicate_index("sqlite:///x.db", name="s", keep=True)


def test_missing_datasketch_is_one_clear_setup_error(monkeypatch):
    from scrapy.settings import Settings

    from scrapy_declutter.integration.settings import DeclutterOptions

    assert DeclutterOptions.from_settings(Settings({})).duplicate_field is None
    monkeypatch.setitem(sys.modules, "datasketch", None)  # import fails as if not installed
    assert "pip install" in datasketch_missing()
    DeclutterOptions.from_settings(Settings({}))  # off: the plugin needs no datasketch
    with pytest.raises(SettingsError, match=r"DECLUTTER_DUPLICATE_FIELD=.*datasketch"):
        DeclutterOptions.from_settings(Settings({"DECLUTTER_DUPLICATE_FIELD": "duplicate_of"}))


@pytest.mark.parametrize("value", ["0.5", 2, True, "high"])
def test_threshold_setting_is_checked(value):
    from scrapy.settings import Settings

    from scrapy_declutter.integration.settings import DeclutterOptions

    with pytest.raises(SettingsError, match="DECLUTTER_DUPLICATE_THRESHOLD"):
        DeclutterOptions.from_settings(Settings({"DECLUTTER_DUPLICATE_THRESHOLD": value}))
    assert DeclutterOptions.from_settings(
        Settings({"DECLUTTER_DUPLICATE_THRESHOLD": "0.95"})).duplicate_threshold == 0.95


def test_kept_index_in_a_process_store_is_refused_at_start():
    from scrapy.settings import Settings

    from scrapy_declutter.integration.settings import DeclutterOptions
    from scrapy_declutter.integration.setup_checks import checked_store

    options = DeclutterOptions.from_settings(Settings({
        "DECLUTTER_DUPLICATE_FIELD": "duplicate_of", "DECLUTTER_KEEP_DUPLICATE_INDEX": True,
        "DECLUTTER_STORE": "memory:"}))
    with pytest.raises(SettingsError, match="DECLUTTER_KEEP_DUPLICATE_INDEX"):
        checked_store(options)


# --- Redis: one index shared by processes -------------------------------------------------

from test_stores import redis_server  # noqa: E402,F401  (the fixture: a real redis-server)


def _groups() -> list[list[tuple[str, str]]]:
    """Pages in groups of copies: each bundled text under three addresses, one copy edited."""
    groups = []
    for file_id in ("0082", "0540", "0619", "2860", "4280", "4287", "4297"):
        text = gold_text(file_id)
        groups.append([(f"https://s{k}.example/{file_id}", edited(text, 2) if k == 2 else text)
                       for k in range(3)])
    return groups


def _index_in_process(uri: str, pages: list[tuple[str, str]], answers, start) -> None:
    index = open_duplicate_index(uri, name="shared")
    start.wait(120)  # both processes begin together
    try:
        answers.put({url: index.first_copy(url, text) for url, text in pages})
    finally:
        index.close()


def test_processes_sharing_redis_agree_on_the_first_copy(redis_server):
    """Two processes index the same groups at once, in opposite orders, racing for each group's
    first place: exactly one page of a group is the first, and every other page names it."""
    uri = redis_server["uri"]
    groups = _groups()
    pages = [page for group in groups for page in group]
    halves = [pages[0::2], pages[1::2][::-1]]
    holder = open_duplicate_index(uri, name="shared")  # keeps the index while both run...
    assert holder.first_copy("https://holder.example/", gold_text("0688")) is None  # ...once in
    context = multiprocessing.get_context("spawn")
    queue, start = context.Queue(), context.Barrier(len(halves) + 1)
    workers = [context.Process(target=_index_in_process, args=(uri, half, queue, start))
               for half in halves]
    for w in workers:
        w.start()
    start.wait(120)
    answers = {**queue.get(timeout=120), **queue.get(timeout=120)}
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    for group in groups:
        urls = [url for url, _ in group]
        firsts = [url for url in urls if answers[url] is None]
        assert len(firsts) == 1, (urls, [answers[u] for u in urls])
        assert all(answers[url] == firsts[0] for url in urls if url != firsts[0])
        # A third process, later, agrees too.
        for url, text in group:
            assert holder.first_copy(f"{url}?again", text) == firsts[0]
    holder.close()  # the last one out deletes the index
    assert not list(holder.client.scan_iter(match="scrapy-declutter:duplicates:*"))


def test_redis_index_kept_on_request_and_unreadable_entries_skipped(redis_server, caplog):
    uri = redis_server["uri"]
    text = gold_text("0540")
    with open_duplicate_index(uri, name="kept", keep=True) as index:
        index.first_copy("https://a.example/", text)
    with open_duplicate_index(uri, name="kept", keep=True) as index:
        assert index.first_copy("https://b.example/", text) == "https://a.example/"
        index.client.hset(index.prefix + b"pages", 0, b"garbage")
        assert index.first_copy("https://c.example/", text) is None
    assert "unreadable" in caplog.text
    with open_duplicate_index(uri, name="kept") as index:  # not kept: a fresh crawl
        assert index.first_copy("https://d.example/", text, body=b"page") is None
        assert index.first_copy("https://e.example/", gold_text("4287"), body=b"page") == \
            "https://d.example/"
        assert index.first_copy("https://f.example/", text, body=b"other") == "https://d.example/"
        assert index.first_copy("https://g.example/", gold_text("0082"), body=b"other") == \
            "https://d.example/"
    assert not list(index.client.scan_iter(match="scrapy-declutter:duplicates:kept:*"))


def test_redis_down_is_store_unavailable():
    from test_stores import _free_port

    from scrapy_declutter.errors import StoreUnavailableError

    pytest.importorskip("redis")
    index = open_duplicate_index(f"redis://127.0.0.1:{_free_port()}/0", name="x")  # no error yet
    assert index.first_copy("https://a.example/", "") is None  # no text: nothing to ask
    with pytest.raises(StoreUnavailableError):
        index.first_copy("https://a.example/", gold_text("0540"))
    index.close()  # never counted in: nothing to undo, no error


# -- in a real crawl: the item field, in-process and from a worker process -------------------
@pytest.mark.parametrize("processes", [0, 1])
def test_a_crawl_flags_each_copy_with_its_first_copy(processes, tmp_path):
    import functools
    import threading
    from http.server import ThreadingHTTPServer

    from test_scrapy_crawl import SITE, _QuietHandler, crawl, feed

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler,
                                                                     directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}"
    # The same bytes under another URL (the query is ignored by the server), a distinct page
    # of the same template, and the first page's URL again.
    paths = ["/tomatoes.html", "/compost.html", "/tomatoes.html?copy=1", "/bees.html?a=b",
             "/tomatoes.html?copy=2"]
    out = tmp_path / "items.jsonl"
    try:
        [stats], _ = crawl(tmp_path, {
            "spider": "ChainSpider", "args": {"start_url": site, "paths": json.dumps(paths)},
            "settings": {**feed(out), "DECLUTTER_DUPLICATE_FIELD": "duplicate_of",
                         "DECLUTTER_PROCESSES": processes}})
    finally:
        server.shutdown()
        server.server_close()
    items = [json.loads(line) for line in out.read_text().splitlines()]
    flags = {item["url"].removeprefix(site): item["duplicate_of"] for item in items}
    first = f"{site}/tomatoes.html"
    assert flags == {"/tomatoes.html": None, "/compost.html": None,
                     "/tomatoes.html?copy=1": first, "/bees.html?a=b": None,
                     "/tomatoes.html?copy=2": first}
    assert stats["declutter/duplicates"] == 2
