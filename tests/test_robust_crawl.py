"""A real crawl through a zoo of broken pages: every item is exported, each page's fate is counted.

The poisoned-extractor crawl (an exception inside extraction) is in
test_scrapy_crawl.py; this one serves the bad input of issue 7 over HTTP,
all of it labelled ``text/html; charset=utf-8``, among good pages, and
points site learning at a corrupt SQLite file.
"""

from __future__ import annotations

import functools
import gzip
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from test_scrapy_crawl import crawl, feed, read_jsonl

ARTICLE = ("<p>The allotment committee met on Tuesday to agree the planting plan for the "
           "spring season, with a long discussion of crop rotation and shared tools.</p>") * 3
GOOD = "<html><head><title>Good {n}</title></head><body><nav><a href='/index.html'>Home</a></nav>{a}</body></html>"
BAD = {
    "empty.html": b"",
    "blank.html": b"   \n\n\t  ",
    "png.html": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40,
    "gzip.html": gzip.compress(GOOD.format(n=0, a=ARTICLE).encode() * 20),
    "pdf.html": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(range(256)) * 40,
    "cp1251.html": ("<html><body><p>" + "Привет, садоводы! Сегодня мы сажаем томаты. " * 20
                    + "</p></body></html>").encode("cp1251"),
    "deep.html": ("<html><body><p>Top.</p>" + "<div>" * 100_000 + "<p>Bottom.</p>" + "</div>" * 100_000
                  + "</body></html>").encode(),
    "siblings.html": ("<html><body>" + "<p>x y</p>" * 200_000 + "</body></html>").encode(),
    "frames.html": b"<html><frameset cols='50%,50%'><frame src='/good1.html'><frame src='/good2.html'></frameset></html>",
    "stray-end.html": f"<html><body><p>Before.</p></body></html>{ARTICLE}".encode(),
    "nul.html": GOOD.format(n="nul", a=ARTICLE.replace("committee", "comm\x00ittee")).encode(),
    "huge.html": b"<html><body>" + b"<p>lorem ipsum dolor sit amet</p>" * 350_000 + b"</body></html>",
}
GOOD_PAGES = {f"good{n}.html": GOOD.format(n=n, a=ARTICLE).encode() for n in range(1, 4)}


class _Handler(SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {".html": "text/html; charset=utf-8", "": "application/octet-stream"}

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def zoo_url(tmp_path_factory):
    root = tmp_path_factory.mktemp("zoo")
    pages = {**BAD, **GOOD_PAGES}
    for name, body in pages.items():
        (root / name).write_bytes(body)
    links = "".join(f"<li><a href='/{name}'>{name}</a></li>" for name in pages)
    (root / "index.html").write_text(f"<html><body><ul>{links}</ul>{ARTICLE}</body></html>")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_crawl_through_broken_pages_exports_every_item(zoo_url, tmp_path):
    out = tmp_path / "items.jsonl"
    store = tmp_path / "sites.db"
    store.write_bytes(b"SQLite format 3\x00" + b"\xff" * 3000)  # a corrupt store file
    (stats,), log = crawl(tmp_path, {
        "settings": {**feed(out), "DECLUTTER_STORE": f"sqlite:///{store}",
                     "DECLUTTER_BLOCKS_FIELD": "blocks"},
        "args": {"start_url": f"{zoo_url}/index.html"},
    })
    items = read_jsonl(out)
    expected = {f"/{name}" for name in [*BAD, *GOOD_PAGES, "index.html"]}
    assert set(items) == expected  # nothing lost
    for name in GOOD_PAGES:
        assert "planting plan" in items[f"/{name}"]["clean_text"]
    assert "planting plan" in items["/stray-end.html"]["clean_text"]  # text after </html> is kept
    assert "planting plan" in items["/nul.html"]["clean_text"]
    assert items["/cp1251.html"]["blocks"]  # a lying charset: analysed (as Scrapy decoded it), exported
    for name in ("png.html", "gzip.html", "pdf.html", "siblings.html", "frames.html", "huge.html"):  # passed through
        assert items[f"/{name}"]["clean_text"] == "", name
        assert items[f"/{name}"]["blocks"] == [], name
    rejected = {k.rsplit("/", 1)[-1]: v for k, v in stats.items() if k.startswith("declutter/rejected/")}
    assert rejected == {"binary": 3, "too_many_elements": 1, "too_large": 1, "frameset": 1, "too_deep": 1}, rejected
    assert stats["declutter/skipped/empty"] == 2
    assert "declutter/errors" not in stats
    assert stats["item_scraped_count"] == len(expected)
    assert "not a usable SQLite database" in log  # the corrupt store was set aside, the crawl went on
    assert "passes" in log and "binary: png" in log

