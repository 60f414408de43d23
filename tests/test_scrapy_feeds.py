"""What the feeds and the log get (issue 17): every field on every item, JSON text for nested
values in CSV and XML, lean items and a lean DEBUG log by default.

Real crawls: the fixture site through Scrapy's feed exports, and ``scrapy crawl``
in the example project (its 26 bundled pages, its settings as shipped).
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from lxml import etree
from scrapy.exporters import JsonLinesItemExporter
from scrapy.item import Field
from test_scrapy_crawl import by_path, crawl, read_jsonl, site_url  # noqa: F401 (fixture)

from scrapy_declutter.integration.exporters import CsvItemExporter, XmlItemExporter
from conftest import NO_MAIN_TEXT

EXAMPLE = Path(__file__).resolve().parents[1] / "example_project"
CHAIN = ["/data.json", "/tomatoes.html", "/notes.txt", "/bees.html"]  # the first is not HTML


def test_a_feed_whose_first_item_is_not_html_keeps_every_column(site_url, tmp_path):  # noqa: F811
    outs = {fmt: tmp_path / f"items.{fmt}" for fmt in ("csv", "xml", "jsonlines")}
    crawl(tmp_path, {
        "spider": "ChainSpider",
        "settings": {"FEEDS": {str(p): {"format": fmt} for fmt, p in outs.items()},
                     "DECLUTTER_BLOCKS_FIELD": "blocks", "DECLUTTER_TITLE_FIELD": "page_title"},
        "args": {"start_url": site_url, "paths": json.dumps(CHAIN)},
    })
    jsonl = read_jsonl(outs["jsonlines"])
    # The JSON file's item came first; HTML items wait for their site's warm-up.
    assert list(jsonl)[0] == CHAIN[0] and set(jsonl) == set(CHAIN)
    assert isinstance(jsonl["/tomatoes.html"]["blocks"], list)  # JSON output keeps the list

    with outs["csv"].open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert {"clean_text", "blocks", "page_title"} <= set(reader.fieldnames)
        rows = by_path(list(reader))
    assert rows["/data.json"]["clean_text"] == rows["/data.json"]["blocks"] == ""
    assert "six hours of direct sunlight" in rows["/tomatoes.html"]["clean_text"]
    assert "Single, open flowers" in rows["/bees.html"]["clean_text"]
    for path in ("/tomatoes.html", "/bees.html"):  # JSON text, the same as the JSON feed's
        assert json.loads(rows[path]["blocks"]) == jsonl[path]["blocks"]

    root = etree.parse(str(outs["xml"])).getroot()
    xml = {item.findtext("url").split("/", 3)[-1]: item for item in root}
    assert xml["data.json"].find("clean_text").text is None  # empty, not "None"
    assert json.loads(xml["tomatoes.html"].findtext("blocks")) == jsonl["/tomatoes.html"]["blocks"]
    assert xml["bees.html"].findtext("page_title") == jsonl["/bees.html"]["page_title"]


def test_exporters_change_nested_values_only():
    item = {"tags": ["a", "b"], "meta": {"k": "é"}, "rows": [{"n": 1}], "none": None, "n": 2}
    out = io.BytesIO()
    exporter = CsvItemExporter(out)
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    (row,) = csv.DictReader(io.StringIO(out.getvalue().decode()))
    assert row == {"tags": "a,b", "meta": '{"k": "é"}', "rows": '[{"n": 1}]', "none": "", "n": "2"}
    out = io.BytesIO()
    exporter = XmlItemExporter(out)
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    element = etree.fromstring(out.getvalue())[0]
    assert [v.text for v in element.find("tags")] == ["a", "b"]  # Scrapy's multi-value form
    assert element.findtext("rows") == '[{"n": 1}]' and element.find("none").text is None
    # A field's own serializer wins; JSON lines output is untouched.
    assert CsvItemExporter(io.BytesIO()).serialize_field(Field(serializer=repr), "x", [{}]) == "[{}]"
    out = io.BytesIO()
    JsonLinesItemExporter(out).export_item(item)
    assert json.loads(out.getvalue()) == item


def _scrapy_crawl(tmp_path: Path, name: str, *settings: str) -> tuple[list[dict], int]:
    """``scrapy crawl docs`` in the example project at DEBUG level: its items and log size."""
    items, log = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.log"
    args = ["-s", "DECLUTTER_STORE=memory:", "-s", "LOG_LEVEL=DEBUG", "-s", f"LOG_FILE={log}",
            "-s", "TELNETCONSOLE_ENABLED=False", *(a for s in settings for a in ("-s", s))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(EXAMPLE),
                                                                     os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-m", "scrapy", "crawl", "docs", "-O", str(items), *args],
                   cwd=EXAMPLE, env=env, check=True, capture_output=True, timeout=300)
    lines = items.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) | {"_size": len(line)} for line in lines], log.stat().st_size


def test_default_items_and_debug_log_stay_lean_on_the_example_project(tmp_path):
    items, log_size = _scrapy_crawl(tmp_path, "on")
    bare, bare_log_size = _scrapy_crawl(tmp_path, "off", "DECLUTTER_ENABLED=False")
    assert len(items) == len(bare) == 26
    text = 0
    for item in items:
        assert set(item) == {"url", "title", "clean_text", "_size"}
        assert item["clean_text"] or item["url"].endswith(NO_MAIN_TEXT), item["url"]
        assert item["_size"] <= 2 * len(item["clean_text"]) + 256, item["url"]
        text += len(item["clean_text"])
    # Scrapy logs every scraped item at DEBUG: with the plugin each one carries its clean
    # text once (as a repr) and no block list.
    log = (tmp_path / "on.log").read_text(encoding="utf-8")
    assert "'label'" not in log and "'xpath'" not in log
    assert log_size - bare_log_size <= 1.25 * text


METADATA = ["title", "authors", "author", "date_published", "site_name", "language", "confidence"]


def test_markdown_and_metadata_fields_on_every_item_of_a_feed(site_url, tmp_path):  # noqa: F811
    """DECLUTTER_FORMAT and DECLUTTER_METADATA_FIELDS in real crawls: JSON lines and a CSV
    whose first response is not HTML, then ``markdown`` alone with renamed metadata fields."""
    paths = ["/data.json", "/article.html", "/tomatoes.html"]
    both = {fmt: tmp_path / f"both.{fmt}" for fmt in ("csv", "jsonlines")}
    alone = tmp_path / "markdown.jsonl"
    crawl(tmp_path, {
        "spider": "MetadataThreadSpider",
        "settings": {"FEEDS": {str(p): {"format": fmt} for fmt, p in both.items()},
                     "DECLUTTER_FORMAT": "both", "DECLUTTER_METADATA_FIELDS": METADATA,
                     # The thread checked below is the crawl process's (the spider records it).
                     "DECLUTTER_PROCESSES": 0},
        "args": {"start_url": site_url, "paths": json.dumps(paths)},
    }, {
        "spider": "ChainSpider",
        "settings": {"FEEDS": {str(alone): {"format": "jsonlines"}}, "DECLUTTER_FORMAT": "markdown",
                     "DECLUTTER_METADATA_FIELDS": {"title": "headline", "date_published": "date"}},
        "args": {"start_url": site_url, "paths": json.dumps(paths)},
    })
    items = read_jsonl(both["jsonlines"])
    article = items["/article.html"]
    assert article["authors"] == ["Ann Hollis", "Ravi Menon"]
    assert article["author"] == "Ann Hollis, Ravi Menon"
    assert article["date_published"] == "2026-09-14T08:30:00+01:00"
    assert (article["site_name"], article["language"]) == ("Riverside Gardening Club", "en-GB")
    # The spider fills ``title`` itself (the <title> text), which the plugin never overwrites;
    # the second crawl writes the metadata title to a field of its own.
    assert article["title"] == "Saving seed from your own beans | Riverside Gardening Club"
    assert 0 < article["confidence"] <= 1
    assert "## What you need\n\n- a few healthy plants" in article["markdown"]
    assert "What you need\n\na few healthy plants" in article["clean_text"]
    assert items["/tomatoes.html"]["authors"] == [] and items["/tomatoes.html"]["date_published"] is None
    # Read with the other fields, on a worker thread, before the callback ran.
    for path in ("/article.html", "/tomatoes.html"):
        assert items[path]["metadata_threads"] == ["worker"] and items[path]["metadata_ready"]
    skipped = items["/data.json"]
    assert skipped["metadata_threads"] == [] and not skipped["metadata_ready"]
    configured = {"clean_text", "markdown", *METADATA}
    assert all(skipped[name] is None for name in configured)  # present, None

    with both["csv"].open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert configured <= set(reader.fieldnames)  # the first row's item was not HTML
        rows = by_path(list(reader))
    assert all(rows["/data.json"][name] == "" for name in configured)
    assert rows["/article.html"]["authors"] == "Ann Hollis,Ravi Menon"  # Scrapy's list form
    assert rows["/article.html"]["markdown"] == article["markdown"]
    assert float(rows["/article.html"]["confidence"]) == article["confidence"]

    items = read_jsonl(alone)
    assert "clean_text" not in items["/article.html"]  # Markdown only, in its own field
    assert items["/article.html"]["markdown"] == article["markdown"]
    assert items["/article.html"]["headline"] == "Saving seed from your own beans"
    assert items["/article.html"]["date"] == article["date_published"]
    assert items["/data.json"]["markdown"] is items["/data.json"]["date"] is None
