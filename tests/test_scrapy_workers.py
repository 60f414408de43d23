"""Worker processes (``DECLUTTER_PROCESSES``) in real crawls: the same items as in-process.

The analysis moves to another process; nothing a crawl produces may change:
the items and their fields, the Result a callback reads, the per-site INFO
line in Scrapy's log. A worker killed mid-crawl loses no item: a page it was
analysing goes on with empty fields, once counted as an error, and the rest
of the crawl is analysed in-process.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import WCXB_SAMPLES
from test_scrapy_crawl import CONTENT, crawl, feed, read_jsonl, site_url  # noqa: F401 (fixture)

from scrapy_declutter.integration.converters import processes
from scrapy_declutter.integration.runner import Job
from scrapy_declutter.integration.settings import DEFAULTS, DeclutterOptions
from scrapy_declutter.integration.workers import WorkerProcesses
from scrapy_declutter.segment import FALLBACK_SAID

PAGES = ["/index.html", "/tomatoes.html", "/compost.html", "/bees.html", "/pruning.html"]

#: A bundled page (Python docs, PSF licence; see example_project/site): real markup to parse.
CONTENT_PAGE = (Path(__file__).resolve().parents[1]
                / "example_project/site/docs.python.org/3.11/tutorial/classes.html")


def test_items_from_a_worker_process_are_identical_to_in_process(site_url, tmp_path):
    specs = [{"args": {"start_url": f"{site_url}/index.html"},
              # One request at a time: the same arrival order, so the same site learning.
              "settings": {**feed(tmp_path / f"items{n}.jsonl"), "DECLUTTER_PROCESSES": n,
                           "CONCURRENT_REQUESTS": 1, "DECLUTTER_BLOCKS_FIELD": "blocks", "DECLUTTER_TITLE_FIELD": "page_title",
                           "DECLUTTER_INSPECT_DIR": str(tmp_path / f"reports{n}"),
                           "DECLUTTER_INSPECT_SAMPLE": 1.0}}
             for n in (0, 1)]
    (inline, worker), log = crawl(tmp_path, *specs)
    in_process, in_worker = (read_jsonl(tmp_path / f"items{n}.jsonl") for n in (0, 1))
    assert in_worker == in_process
    for path, phrase in CONTENT.items():
        assert phrase in in_worker[path]["clean_text"]
    for key in ("declutter/pages", "declutter/blocks", "declutter/content_blocks",
                "declutter/items", "declutter/sites", "declutter/site_learning/pages",
                "declutter/inspect/saved"):
        assert worker[key] == inline[key], key
    assert "declutter/errors" not in worker
    # Said once, by the crawl that has a worker: where the analysis runs.
    assert log.count("scrapy_declutter's worker process 0 is ready, pid ") == 1
    # The reports were written by the worker, one per analysed page, as in-process.
    reports = sorted(p.name for p in (tmp_path / "reports1").iterdir())
    assert reports == sorted(p.name for p in (tmp_path / "reports0").iterdir())
    assert len(reports) == inline["declutter/inspect/saved"] > 0


def test_result_for_gives_a_callback_the_same_result_in_a_worker_as_in_process(site_url,
                                                                               tmp_path):
    specs = [{"args": {"start_url": f"{site_url}/index.html", "with_result": "1"},
              "settings": {**feed(tmp_path / f"items{n}.jsonl"), "DECLUTTER_PROCESSES": n,
                           "DECLUTTER_SITE_LEARNING": False}}
             for n in (0, 1)]
    (_, stats), _ = crawl(tmp_path, *specs)
    in_process, in_worker = (read_jsonl(tmp_path / f"items{n}.jsonl") for n in (0, 1))
    assert in_worker == in_process
    results = {path: item["result"] for path, item in in_worker.items() if item["kind"] == "html"}
    assert len(results) == stats["declutter/pages"] > 5
    for path, phrase in CONTENT.items():
        result = results[path]
        assert phrase in result["text"] and result["text"] == in_worker[path]["clean_text"]
        assert result["blocks"] and result["markdown"] and result["metadata"]["title"]
        assert result["same_object"]
    # Pages that are not HTML get None, in both.
    assert all(item["result"] is None for item in in_worker.values() if item["kind"] != "html")


def test_a_site_learned_in_a_worker_gives_the_items_of_in_process(site_url, tmp_path):
    order = [PAGES[i] for i in (2, 0, 4, 1, 3)]
    specs = [{"spider": "ChainSpider", "args": {"start_url": site_url, "paths": json.dumps(order)},
              "settings": {**feed(tmp_path / f"items{n}.jsonl"), "DECLUTTER_PROCESSES": n}}
             for n in (1, 0)]
    stats, log = crawl(tmp_path, *specs)
    in_worker, in_process = (read_jsonl(tmp_path / f"items{n}.jsonl") for n in (1, 0))
    assert set(in_worker) == set(PAGES) and in_worker == in_process
    assert all(s["declutter/site_learning/pages"] == len(PAGES) for s in stats)


def test_a_killed_worker_loses_no_item(site_url, tmp_path):
    spec = {"spider": "KillWorkerSpider",
            "args": {"start_url": site_url, "paths": json.dumps(PAGES), "kill_at": "2"},
            "settings": {**feed(tmp_path / "items.jsonl"), "DECLUTTER_PROCESSES": 1}}
    [stats], log = crawl(tmp_path, spec)
    lines = (tmp_path / "items.jsonl").read_text().splitlines()
    items = read_jsonl(tmp_path / "items.jsonl")
    assert len(lines) == len(PAGES) and set(items) == set(PAGES)  # every item, once
    # Pages 0-2 were analysed before the kill (in page 2's callback); page 3 either reached
    # the dead worker (empty fields) or was analysed here; page 4 was analysed here.
    assert all(items[p]["clean_text"] for p in PAGES[:3] + PAGES[4:])
    assert stats["declutter/errors"] == stats["declutter/errors/worker_lost"] == 1
    assert log.count("worker process 0 stopped") == 1


def test_a_worker_that_cannot_start_stops_the_crawl_at_start(site_url, tmp_path):
    # As in a frozen or moved install: no interpreter where the workers are started from.
    spec = {"args": {"start_url": f"{site_url}/index.html"},
            "worker_python": str(tmp_path / "no-such-python"),
            "settings": {**feed(tmp_path / "items.jsonl"), "DECLUTTER_PROCESSES": 1}}
    [stats], log = crawl(tmp_path, spec)
    assert stats["bootstrap_error"].startswith("scrapy_declutter cannot start:\n  "
                                               "DECLUTTER_PROCESSES=1: worker processes cannot")
    assert log.count("DECLUTTER_PROCESSES=1: worker processes cannot start") >= 1
    assert not (tmp_path / "items.jsonl").exists()


def test_pages_of_a_site_go_to_one_worker_whatever_the_process():
    options = DeclutterOptions()
    workers = WorkerProcesses(3, None, options, fallback=lambda: None)

    def index(url: str) -> int | None:
        return workers._index(Job(url, b"", None, options))

    # zlib.crc32 of the site key: the same in every process and run (hash() is salted).
    assert index("http://example.com/a") == index("http://example.com/b/c") is not None
    assert {index(f"http://site{i}.example/") for i in range(30)} == {0, 1, 2}


def test_processes_setting():
    assert processes("2") == 2 and processes(0) == 0
    assert processes("auto") == (1 if len(os.sched_getaffinity(0)) >= 2 else 0)
    # The default: a worker wherever there is a core for it.
    assert processes(DEFAULTS["DECLUTTER_PROCESSES"]) == processes("auto")
    for bad in (-1, "many", True):
        try:
            processes(bad)
        except ValueError as e:
            assert "auto" in str(e)
        else:
            raise AssertionError(bad)


def test_a_started_worker_freezes_what_it_loaded_and_collects_less_often(tmp_path):
    from scrapy_declutter.integration import worker

    # In a child process, as a worker is: the pytest process's collector is left alone.
    code = ("import gc; from scrapy_declutter.integration import worker; "
            "from scrapy_declutter.integration.settings import DeclutterOptions; "
            "before = gc.get_freeze_count(); "
            "worker.start('memory:', DeclutterOptions()); "
            "print(before, gc.get_freeze_count(), gc.get_threshold()[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.split()
    before, frozen, gen0 = map(int, out)
    assert before == 0 and frozen > 10_000  # the imports and the model
    assert gen0 == worker.GC_THRESHOLDS[0] != 700


#: Bodies (with a Content-Type) for the worker's two parses: UTF-8 declared, inferred and
#: with a BOM; a ``<base>``, early and late; Latin-1 declared and lied about; ASCII with
#: nothing declared (Scrapy: windows-1252).
WORKER_BODIES = (
    ('<html><head><meta charset="utf-8"><base href="/b/"></head><p>café ’</p>'.encode(), None),
    ("<p>naïve</p>\n".encode(), None),
    ("\ufeff<p>naïve</p>".encode(), None),
    ("<p>café</p>".encode("latin-1"), "text/html; charset=iso-8859-1"),
    ("<p>café</p>".encode(), "text/html; charset=iso-8859-1"),
    ("<p>café</p>".encode("latin-1"), "text/html; charset=utf-8"),
    (b"  <p>plain \x00text</p> ", None),
    (("<p>" + "x" * 5000 + "</p><base href='/late/'>é").encode(), None),
)


@pytest.mark.parametrize("body, content_type", WORKER_BODIES + ((CONTENT_PAGE.read_bytes(), None),) + tuple(
    (gzip.decompress(p.read_bytes()), None) for p in sorted(WCXB_SAMPLES.glob("*.html.gz"))))
def test_a_worker_parses_as_scrapy_does_without_keeping_the_response_alive(body, content_type):
    import gc
    import weakref

    from lxml import etree
    from scrapy.http import HtmlResponse

    from scrapy_declutter.integration.runner import _parsed
    from scrapy_declutter.sniff import text_is_utf8

    headers = {"Content-Type": content_type} if content_type else None
    scrapys = HtmlResponse("http://example.com/a/", body=body, headers=headers).selector.root
    gc.disable()
    try:
        response = HtmlResponse("http://example.com/a/", body=body, headers=headers)
        alive = weakref.ref(response)
        utf8 = text_is_utf8(body, content_type)
        ours = _parsed(response, utf8)
        del response
        # Scrapy's selector and its response refer to each other: a cycle only the collector
        # frees, with the page's tree. Ours is freed as soon as it is let go.
        assert alive() is None
    finally:
        gc.enable()
    assert etree.tostring(ours) == etree.tostring(scrapys)
    assert ours.getroottree().docinfo.URL == scrapys.getroottree().docinfo.URL


def test_the_worker_takes_the_bytes_of_utf8_responses_and_decodes_the_rest():
    from scrapy.http import HtmlResponse

    from scrapy_declutter.sniff import _is_utf8, text_is_utf8

    if _is_utf8 is None:
        pytest.skip("built without a compiler: every body is decoded")
    taken = [text_is_utf8(body, content_type) for body, content_type in WORKER_BODIES]
    assert taken == [True, True, False, False, False, False, True, True]
    # Scrapy's own text is the bytes read as UTF-8 wherever the worker takes the bytes.
    bundled = [(gzip.decompress(p.read_bytes()), None) for p in sorted(WCXB_SAMPLES.glob("*.html.gz"))]
    taken_bundled = 0
    for body, content_type in WORKER_BODIES + tuple(bundled):
        headers = {"Content-Type": content_type} if content_type else None
        text = HtmlResponse("http://example.com/", body=body, headers=headers).text
        if text_is_utf8(body, content_type):
            assert text == body.decode("utf-8")
            taken_bundled += (body, content_type) in bundled
    assert taken_bundled == len(bundled) > 5  # one of them declares no charset


def test_workers_start_told_the_crawl_process_said_the_pure_python_walk(monkeypatch):
    """The workers' imports stay quiet about a missing compiled walk (one warning a crawl):
    the environment they are spawned with says the crawl process said it; its own is left as it was."""
    seen = []

    class Pool:
        def __init__(self, *args, **kwargs) -> None:
            pass

        def submit(self, *args):
            seen.append(os.environ.get(FALLBACK_SAID))

    monkeypatch.setattr("scrapy_declutter.integration.workers.ProcessPoolExecutor", Pool)
    options = DeclutterOptions()
    WorkerProcesses(2, None, options, fallback=lambda: None).start()
    assert seen == ["1", "1"] and FALLBACK_SAID not in os.environ


def test_a_worker_without_the_compiled_walk_says_nothing():
    script = ("import logging, sys\nsys.modules['scrapy_declutter._segment'] = None\n"
              "from scrapy_declutter import segment\nassert segment.COMPILED is None\n")
    env = {**os.environ, FALLBACK_SAID: "1"}
    quiet = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, timeout=120, check=False)
    env.pop(FALLBACK_SAID)
    said = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert quiet.returncode == said.returncode == 0, quiet.stderr + said.stderr
    assert "not available" not in quiet.stderr and "not available" in said.stderr
