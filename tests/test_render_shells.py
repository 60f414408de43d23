"""DECLUTTER_RENDER_SHELLS: an app shell fetched again through scrapy-playwright, in real crawls.

The rendered crawl runs Debian's Chromium (``.ci/run`` installs it) through
scrapy-playwright's launch options, and skips where no browser or no
scrapy-playwright exists. Without scrapy-playwright configured, the setting
stops the crawl at start.
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from test_scrapy_crawl import _QuietHandler, crawl, feed, read_jsonl

SHELLS = Path(__file__).parent / "sample_data" / "appshell"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HANDLER = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
#: Flags for a root, sandboxed, offline machine (docs/../env: without the background-networking
#: ones Chromium keeps trying hosts it cannot reach).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def shells_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler,
                                                                     directory=str(SHELLS)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.skipif(CHROMIUM is None or importlib.util.find_spec("scrapy_playwright") is None,
                    reason="needs Chromium (apt-get install chromium) and scrapy-playwright")
def test_a_shell_is_rendered_once_and_its_page_analysed_instead(shells_url, tmp_path):
    out = tmp_path / "items.jsonl"
    [stats], log = crawl(tmp_path, {
        "args": {"start_url": f"{shells_url}/inline-shell.html"},
        "settings": {**feed(out), "DECLUTTER_RENDER_SHELLS": True, "DECLUTTER_PROCESSES": 0,
                     "DOWNLOAD_HANDLERS": {"http": HANDLER, "https": HANDLER},
                     "PLAYWRIGHT_BROWSER_TYPE": "chromium",
                     "PLAYWRIGHT_LAUNCH_OPTIONS": {"executable_path": CHROMIUM,
                                                   "args": CHROMIUM_ARGS}}})
    assert "bootstrap_error" not in stats, stats
    lines = out.read_text().splitlines()
    assert len(lines) == 1, log[-3000:]  # the shell's own response never reached the callback
    [item] = read_jsonl(out).values()
    assert "Leaf mould is the crumbly, dark material" in item["clean_text"]
    assert stats["declutter/app_shells"] == stats["declutter/app_shells/rendered"] == 1
    assert stats["declutter/pages"] == 2 and stats["declutter/items"] == 1


def test_a_shell_without_rendering_is_counted_and_needs_rendering(shells_url, tmp_path):
    out = tmp_path / "items.jsonl"
    [stats], _ = crawl(tmp_path, {
        "args": {"start_url": f"{shells_url}/inline-shell.html"},
        "settings": {**feed(out), "DECLUTTER_METADATA_FIELDS": ["needs_rendering"]}})
    [item] = read_jsonl(out).values()
    assert item["needs_rendering"] is True and item["clean_text"] == ""
    assert stats["declutter/app_shells"] == 1
    assert "declutter/app_shells/rendered" not in stats


def test_render_shells_without_scrapy_playwright_configured_stops_the_crawl(shells_url, tmp_path):
    [stats], _ = crawl(tmp_path, {
        "args": {"start_url": f"{shells_url}/inline-shell.html"},
        "settings": {**feed(tmp_path / "items.jsonl"), "DECLUTTER_RENDER_SHELLS": True}})
    assert stats["bootstrap_error"].startswith("scrapy_declutter cannot start:\n  "
                                               "DECLUTTER_RENDER_SHELLS=True needs scrapy-playwright")
