"""Real crawls: a threaded HTTP server on a loopback port, Scrapy in a child process, exported feeds.

The fixture site (tests/sample_data/scrapy/) is a small club journal whose
pages share a template: navigation, a cookie banner, a "Related posts" box
and a footer around one article each, plus an image, a JSON file and a text
file that must pass through untouched, and one page that makes the
``poison-test`` extractor raise.
"""

from __future__ import annotations

import csv
import functools
import json
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

SITE = Path(__file__).parent / "sample_data" / "scrapy"
RUNNER = Path(__file__).parent / "scrapy_crawl.py"
HTML_PAGES = {"/index.html", "/tomatoes.html", "/compost.html", "/bees.html", "/pruning.html",
              "/poison.html"}
OTHER_FILES = {"/plan.png", "/data.json", "/notes.txt"}
BOILERPLATE = ("We use cookies", "Related posts", "Follow us", "Privacy policy")
CONTENT = {
    "/tomatoes.html": "six hours of direct sunlight",
    "/compost.html": "balance of green material",
    "/bees.html": "Single, open flowers",
    "/pruning.html": "between leaf fall and the end of February",
}


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture(scope="module")
def site_url():
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def crawl(tmp_path: Path, *specs: dict) -> tuple[list[dict], str]:
    """Run the crawls in one child process; return each crawl's stats and the log."""
    for i, spec in enumerate(specs):
        spec.setdefault("spider", "SiteSpider")
        spec["stats"] = str(tmp_path / f"stats{i}.json")
        spec.setdefault("settings", {}).setdefault("ADDONS", {"scrapy_declutter.Addon": 500})
        spec["settings"].setdefault("DECLUTTER_STORE", "memory:")
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(list(specs)))
    proc = subprocess.run(
        [sys.executable, str(RUNNER), str(spec_file)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    stats = [json.loads(Path(s["stats"]).read_text()) for s in specs]
    return stats, proc.stderr


@pytest.fixture(scope="module")
def docs_url():
    """The example project's bundled Python docs, served on a loopback port."""
    root = Path(__file__).resolve().parents[1] / "example_project" / "site"
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler,
                                                                     directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/docs.python.org/3.11"
    server.shutdown()
    server.server_close()


def feed(path: Path, fmt: str = "jsonlines", **options) -> dict:
    return {"FEEDS": {str(path): {"format": fmt, **options}}}


def by_path(items: list[dict]) -> dict[str, dict]:
    return {"/" + item["url"].split("/", 3)[-1]: item for item in items}


def read_jsonl(path: Path) -> dict[str, dict]:
    return by_path([json.loads(line) for line in path.read_text().splitlines()])


def test_addon_alone_cleans_every_html_item(site_url, tmp_path):
    out = tmp_path / "items.jsonl"
    (stats,), log = crawl(tmp_path, {"settings": {**feed(out), "DECLUTTER_BLOCKS_FIELD": "blocks"},
                                     "args": {"start_url": f"{site_url}/index.html"}})
    items = read_jsonl(out)
    assert set(items) == HTML_PAGES | OTHER_FILES
    for path, snippet in CONTENT.items():
        item = items[path]
        assert snippet in item["clean_text"]
        for chrome in BOILERPLATE:
            assert chrome not in item["clean_text"]
        labels = {b["label"] for b in item["blocks"]}
        assert labels == {"content", "boilerplate"}
        assert any(b["label"] == "content" and snippet in b["text"] for b in item["blocks"])
        assert item["title"].endswith("| Riverside Gardening Club")  # the spider's own field
    # Non-HTML responses: untouched bodies, no flag, the fields present and empty.
    assert items["/plan.png"]["kind"] == f"other:{(SITE / 'plan.png').stat().st_size}:False"
    for path in OTHER_FILES:
        assert items[path]["clean_text"] is None and items[path]["blocks"] is None
    assert stats["declutter/pages"] == len(HTML_PAGES)
    assert stats["declutter/skipped/non_html"] == len(OTHER_FILES)
    assert stats["declutter/items"] == len(HTML_PAGES)
    assert stats["declutter/sites"] == 1
    assert stats["declutter/blocks"] > stats["declutter/content_blocks"] >= len(CONTENT) * 3
    assert stats["declutter/seconds"] > 0
    assert "declutter/errors" not in stats
    assert "scrapy_declutter: 6 pages from 1 sites" in log


def test_poisoned_page_costs_no_item_and_spider_args_map_to_settings(site_url, tmp_path):
    out, binary_out = tmp_path / "items.csv", tmp_path / "binary.jsonl"
    (stats, binary_stats), log = crawl(tmp_path, {
        "settings": feed(out, "csv"),
        "args": {"start_url": f"{site_url}/index.html",
                 "declutter_extractor": "poison-test", "declutter_blocks_field": "none"},
    }, {  # a PNG served as text/html: checked before parsing, passed through with a reason
        "settings": feed(binary_out),
        "args": {"start_url": f"{site_url}/binary-as-html.html"},
    })
    with out.open(newline="") as f:
        rows = by_path(list(csv.DictReader(f)))
    assert set(rows) == HTML_PAGES | OTHER_FILES  # every item exported
    assert "blocks" not in next(iter(rows.values()))  # blocks_field=none: a CSV-friendly feed
    assert rows["/poison.html"]["clean_text"] == ""  # exported with empty clean fields
    for path, snippet in CONTENT.items():
        assert snippet in rows[path]["clean_text"]
        assert "We use cookies" not in rows[path]["clean_text"]
    assert stats["declutter/errors"] == 1
    assert stats["declutter/errors/RuntimeError"] == 1
    assert stats["declutter/pages"] == len(HTML_PAGES) - 1
    assert "could not analyse" in log and "/poison.html" in log
    (binary,) = read_jsonl(binary_out).values()
    assert binary["clean_text"] == "" and "blocks" not in binary
    assert binary_stats["declutter/rejected/binary"] == 1


def test_per_request_meta_and_per_spider_settings(site_url, tmp_path):
    meta = {
        "/bees.html": False,
        "/compost.html": {"text_field": "main_text", "blocks_field": None},
        "/pruning.html": {"DECLUTTER_TITLE_FIELD": "page_title"},
        "/tomatoes.html": {"no_such_option": 1},
    }
    out1, out2, out3, out4 = (tmp_path / f"{n}.jsonl" for n in "abcd")
    start = f"{site_url}/index.html"
    stats, log = crawl(
        tmp_path,
        {"settings": feed(out1), "args": {"start_url": start, "meta": json.dumps(meta)}},
        # per spider, custom_settings: off altogether
        {"spider": "OffSiteSpider", "settings": feed(out2), "args": {"start_url": start}},
        # the spider's own value is never overwritten
        {"settings": feed(out3), "args": {"start_url": start, "preset_text": "mine"}},
        # per spider, custom_settings: field names that beat the project's
        {"spider": "RenamingSiteSpider", "settings": {**feed(out4), "DECLUTTER_TEXT_FIELD": "x"},
         "args": {"start_url": start}},
    )
    items = read_jsonl(out1)
    assert items["/bees.html"]["clean_text"] is None  # meta False: skipped, the column kept
    assert "balance of green material" in items["/compost.html"]["main_text"]
    # A renamed field adds its column; the crawl's own stays, so feeds keep their columns.
    assert items["/compost.html"]["clean_text"] == items["/compost.html"]["main_text"]
    assert "blocks" not in items["/compost.html"]
    assert items["/pruning.html"]["page_title"].startswith("Pruning apple trees")
    assert items["/tomatoes.html"]["clean_text"] is None  # a bad override is an error, not a guess
    assert "no_such_option" in log
    assert stats[0]["declutter/skipped/meta"] == 2
    assert stats[0]["declutter/errors/bad_meta"] >= 1
    assert stats[0]["declutter/errors"] == stats[0]["declutter/errors/bad_meta"]  # in the summary
    assert all("clean_text" not in item for item in read_jsonl(out2).values())
    assert not any(k.startswith("declutter/") for k in stats[1])
    assert {item.get("clean_text") for item in read_jsonl(out3).values()} == {"mine"}
    renamed = read_jsonl(out4)["/bees.html"]
    assert "Single, open flowers" in renamed["body_text"] and "x" not in renamed
    assert renamed["page_title"] == "Planting for bees | Riverside Gardening Club"


def test_all_item_types(site_url, tmp_path):
    start = f"{site_url}/tomatoes.html"
    kinds = ["declared", "dataclass", "attrs", "undeclared"]
    outs = {k: tmp_path / f"{k}.jsonl" for k in kinds}
    stats, log = crawl(tmp_path, *[
        {"settings": {**feed(outs[k]), "DECLUTTER_BLOCKS_FIELD": "blocks"},
         "args": {"start_url": start, "item_type": k}}
        for k in kinds
    ])
    for kind in ("declared", "dataclass", "attrs"):
        item = read_jsonl(outs[kind])["/tomatoes.html"]
        assert "six hours of direct sunlight" in item["clean_text"], kind
        assert item["blocks"] and "Related posts" not in item["clean_text"]
    for kind in ("declared", "dataclass", "attrs"):  # every item has the fields, if empty
        item = read_jsonl(outs[kind])["/data.json"]
        assert item["clean_text"] is None and item["blocks"] is None, kind
    undeclared = read_jsonl(outs["undeclared"])
    assert set(undeclared) == HTML_PAGES | OTHER_FILES  # nothing dropped
    assert all("clean_text" not in item for item in undeclared.values())
    # Counted and warned about only where there was a value to write: the analysed pages.
    assert stats[3]["declutter/fields_skipped"] == 2 * len(HTML_PAGES)
    assert log.count("UndeclaredItem does not declare the field 'clean_text'") == 1


def test_items_carrying_html_go_through_the_pipeline(site_url, tmp_path):
    out = tmp_path / "items.jsonl"
    pages = {f"https://garden.example/{p}": str(SITE / p) for p in ("bees.html", "compost.html")}
    (stats,), _ = crawl(tmp_path, {
        "spider": "HtmlItemSpider",
        "settings": {**feed(out), "DECLUTTER_HTML_FIELD": "html"},
        "args": {"pages": json.dumps(pages)},
    })
    items = read_jsonl(out)
    assert "Single, open flowers" in items["/bees.html"]["clean_text"]
    assert "We use cookies" not in items["/compost.html"]["clean_text"]
    assert items["/bees.html"]["html"].startswith("<!DOCTYPE html>")  # kept as the spider gave it
    assert stats["declutter/html_items"] == 2
    assert stats["declutter/sites"] == 1


def test_second_crawl_starts_with_the_site_model_in_the_default_sqlite_store(site_url, tmp_path):
    pytest.importorskip("scrapy_declutter.sitelearning.declutter")
    outs = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]
    footer = "Copyright 2026 Riverside Gardening Club"
    start = f"{site_url}/index.html"
    stats, _ = crawl(tmp_path, *[
        # DECLUTTER_STORE unset: SQLite in the project data dir (.scrapy/ under the cwd)
        # The density filter keeps this footer on its own (the learned default already drops
        # it), so what removes it on the second crawl is the site model alone.
        {"settings": {**feed(out), "DECLUTTER_STORE": None, "DECLUTTER_EXTRACTOR": "density"},
         "args": {"start_url": start}}
        for out in outs
    ])
    assert (tmp_path / ".scrapy" / "declutter.sqlite3").is_file()
    first, second = read_jsonl(outs[0]), read_jsonl(outs[1])
    # The start page is analysed first, before the first crawl has learned anything ...
    assert footer in first["/index.html"]["clean_text"]
    # ... while the second crawl already knows the site's template from its first page.
    for path in HTML_PAGES:
        assert footer not in second[path]["clean_text"], path
    assert "Welcome to the Riverside" in second["/index.html"]["clean_text"]
    assert stats[1]["declutter/site_learning/template_blocks"] > stats[0]["declutter/site_learning/template_blocks"]


def test_a_callback_gets_its_result_on_every_page_of_a_site_from_the_first(docs_url, tmp_path):
    """docs/meta-keys.md's ParagraphsSpider, 12 pages of one host: 12 Results, 12 items."""
    out = tmp_path / "paragraphs.jsonl"
    [stats], _ = crawl(tmp_path, {
        "spider": "ParagraphsSpider", "settings": feed(out),
        "args": {"start_url": f"{docs_url}/tutorial/index.html", "limit": "12"}})
    items = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(items) == 12 == stats["declutter/pages"] == stats["declutter/items"]
    assert len({item["url"] for item in items}) == 12
    assert all(item["paragraphs"] for item in items)  # a Result on every page
    assert stats["declutter/sites"] == 1


ONE_PAGE_SPIDER = '''
import os, scrapy
class One(scrapy.Spider):
    name = "one"
    start_urls = [os.environ["ONE_PAGE_URL"]]
    def parse(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}
'''


def test_a_one_page_crawl_waits_for_nothing(docs_url, tmp_path):
    """No page is held for later ones: a one-page crawl with the plugin (a worker process
    starting beside it) takes little longer than without. The bound is generous for a
    loaded CI machine; docs/results.md has the figure measured on a quiet one."""
    import os
    import time

    spider = tmp_path / "one.py"
    spider.write_text(ONE_PAGE_SPIDER)
    env = {**os.environ, "ONE_PAGE_URL": f"{docs_url}/tutorial/index.html"}

    def run(*settings: str) -> float:
        begin = time.perf_counter()
        subprocess.run([sys.executable, "-m", "scrapy", "runspider", str(spider), "-O",
                        str(tmp_path / "items.jsonl"), "-s", "TELNETCONSOLE_ENABLED=False",
                        "-s", "DECLUTTER_STORE=memory:", *settings],
                       cwd=tmp_path, env=env, capture_output=True, check=True, timeout=120)
        return time.perf_counter() - begin

    off = min(run() for _ in range(2))
    on = min(run("-s", 'ADDONS={"scrapy_declutter.Addon": 500}') for _ in range(2))
    [item] = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert item["clean_text"].startswith("Python is an easy to learn")  # the headline: in the Markdown
    assert on - off < 5.0, (on, off)
