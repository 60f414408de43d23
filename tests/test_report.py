"""The HTML inspection report: content, labels, SVG charts, escaping, files, the CLI."""

from __future__ import annotations

import re
import threading
from functools import partial
from html import escape
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import lxml.html
import pytest
from lxml import etree

from scrapy_declutter import extract
from scrapy_declutter.cli import main
from scrapy_declutter.cli.inspect import fetch
from scrapy_declutter.errors import DeclutterError
from scrapy_declutter.report import render_index, render_report, report_name, sampled, save_report
from scrapy_declutter.report.document import IndexEntry
from scrapy_declutter.result import Result, SiteDecisions

SVG = "{http://www.w3.org/2000/svg}"
#: Every element the report itself writes; page markup must never add one.
REPORT_TAGS = set(
    "html head meta title style body header h1 h2 p ul li i a section figure figcaption span b "
    "svg line rect ol details summary table tr th td label input pre footer".split()
)
_SVG_ELEMENT = re.compile(r"<svg\b.*?</svg>", re.S)

HOSTILE = b"""<!DOCTYPE html><html><head><title>T</title><script>alert('head')</script></title>
<title>x</title></head><body>
<div id='a"><script>alert(1)</script>' class="x&quot;y <b>z</b>">
<p>&lt;script&gt;alert("in text")&lt;/script&gt; and &lt;img src=x onerror=alert(2)&gt;
enough words here to make the block long enough to be kept by the density filter, surely.</p>
<p><a href="/">Home</a></p></div></body></html>"""


@pytest.fixture(scope="module")
def page_0082():
    """News listing from nssa.stanford.edu: a long navigation, then teaser paragraphs."""
    from conftest import wcxb_page

    html, truth = wcxb_page("0082")
    result = extract(html, truth["url"], extractor="density")
    return result, render_report(result)


def _block_items(report: str):
    doc = lxml.html.fromstring(report)
    return doc.xpath('//ol[@class="blocks"]/li')


def test_report_lists_every_block_once_in_order_with_its_label(page_0082):
    result, report = page_0082
    items = _block_items(report)
    assert [li.get("id") for li in items] == [f"b{b.index}" for b in result.blocks]
    texts = [li.xpath('string(.//span[@class="tx"])') for li in items]
    assert texts == [b.text for b in result.blocks]
    assert [li.get("class") for li in items] == [b.label for b in result.blocks]
    blocks_section = report.split('<ol class="blocks">', 1)[1].split("</ol>", 1)[0]
    for b in result.blocks:
        if len(b.text) >= 30 and sum(b.text in o.text for o in result.blocks) == 1:
            assert blocks_section.count(escape(b.text)) == 1, b.text


def test_known_content_and_boilerplate_blocks_carry_the_right_label(page_0082):
    _, report = page_0082
    items = {li.xpath('string(.//span[@class="tx"])'): li for li in _block_items(report)}
    assert items["Skip to main content"].get("class") == "boilerplate"
    assert items["About Us"].get("class") == "boilerplate"
    teaser = next(t for t in items if t.startswith("High-impact tutoring has emerged"))
    assert items[teaser].get("class") == "content"
    assert "CONTENT" in items[teaser].xpath('string(.//span[@class="lab"])').upper()
    assert items[teaser].xpath('string(.//span[@class="st"])') == "density"


def test_counts_and_clean_text_are_the_exported_ones(page_0082):
    result, report = page_0082
    doc = lxml.html.fromstring(report)
    assert doc.xpath('string(//pre[@class="clean"])') == result.text
    counts = doc.xpath('string(//ul[@class="counts"])')
    assert f"{len(result.content_blocks)} of {len(result.blocks)} blocks kept" in counts
    kept_chars = sum(b.text_chars for b in result.content_blocks)
    assert f"{kept_chars:,} characters kept" in counts


def test_charts_are_valid_svg_with_one_bar_per_block(page_0082):
    result, report = page_0082
    svgs = _SVG_ELEMENT.findall(report)
    assert len(svgs) >= 4  # text density, link density, char density, score
    for raw in svgs:
        svg = etree.fromstring(raw.encode())  # raises on anything that is not well-formed XML
        assert svg.tag == f"{SVG}svg"
        rects = svg.findall(f"{SVG}a/{SVG}rect")
        assert len(rects) == len(result.blocks)
        content = [r for r in rects if r.get("class") == "c"]
        assert len(content) == len(result.content_blocks)
        for r in rects:
            assert float(r.get("height")) >= 0 and 0 <= float(r.get("y")) <= 100


def test_page_markup_is_escaped_everywhere():
    result = extract(HOSTILE, 'https://example.com/"><script>x</script>', extractor="density")
    result.blocks[0].cf_class = "<script>alert(3)</script>"
    result.blocks[0].justext_class = "<b>key</b>"
    report = render_report(result)
    assert "<script" not in report.lower() and "<img" not in report.lower()
    assert "<b>key" not in report
    tags = {el.tag for el in lxml.html.fromstring(report).iter() if isinstance(el.tag, str)}
    assert tags <= REPORT_TAGS, tags - REPORT_TAGS  # nothing but the report's own elements
    assert escape('<script>alert("in text")</script>') in report
    # Escaped text still reads as the page's text once parsed.
    texts = [li.xpath('string(.//span[@class="tx"])') for li in _block_items(report)]
    assert texts == [b.text for b in result.blocks]
    for raw in _SVG_ELEMENT.findall(report):
        etree.fromstring(raw.encode())


def test_optional_numbers_get_a_chart_and_every_optional_field_a_row():
    result = extract(HOSTILE, "https://example.com/a", extractor="density")
    assert "optional features" not in render_report(result)  # none set: no panel, no key
    for b in result.blocks:
        b.site_fingerprint_pages = b.index % 4
        b.ngram_log_odds = b.index / 10 - 3
        b.cf_class = "near-good"
    doc = lxml.html.fromstring(render_report(result))
    captions = doc.xpath("//figcaption//b/text()")
    assert "site_fingerprint_pages" in captions and "ngram_log_odds" in captions
    assert "cf_class" not in captions  # text is shown in the table, not charted
    assert doc.xpath('//li[@id="b1"]//tr[th="ngram_log_odds"]/td/text()') == ["-2.9"]
    assert doc.xpath('//li[@id="b1"]//tr[th="cf_class"]/td/text()') == ["near-good"]
    assert doc.xpath('//li[@id="b1"]//tr[th="justext_class"]') == []  # unset: no row


def test_what_site_learning_decided_is_shown():
    result = extract(HOSTILE, "https://example.com/a", extractor="density")
    assert not lxml.html.fromstring(render_report(result)).xpath('//p[@class="meta facts"]')
    result.site_learning = SiteDecisions(pages=12, template=4, voted=0, supervised=False)
    doc = lxml.html.fromstring(render_report(result))
    facts = doc.xpath('string(//p[@class="meta facts"])')
    assert "model of 12 pages" in facts and "4 template blocks" in facts


def test_a_page_without_blocks_still_reports_why():
    result = Result(text="", blocks=[], url="https://example.com/x", reason="empty body")
    doc = lxml.html.fromstring(render_report(result))
    assert "empty body" in doc.xpath('string(//p[@class="reason"])')
    assert doc.xpath('//ol[@class="blocks"]/li') == []


def test_index_links_each_report(page_0082):
    result, _ = page_0082
    index = render_index([IndexEntry("a.html", result), IndexEntry('b"<x>.html', result)])
    hrefs = lxml.html.fromstring(index).xpath("//table//a/@href")
    assert hrefs == ["a.html", 'b"<x>.html']
    assert "<x>" not in index


def test_save_report_names_files_from_the_url(tmp_path, page_0082):
    result, report = page_0082
    path = save_report(result, tmp_path / "reports")
    assert path.parent == tmp_path / "reports"
    assert path.name.startswith("nssa.stanford.edu-news-") and path.suffix == ".html"
    assert path.read_text(encoding="utf-8") == report
    assert save_report(result, tmp_path, "../../etc/passwd").parent == tmp_path
    assert report_name("https://a.com/x?p=1") != report_name("https://a.com/x?p=2")


def test_sampling_is_a_stable_rate():
    urls = [f"https://example.com/page/{i}" for i in range(2000)]
    assert not any(sampled(u, 0) for u in urls)
    assert all(sampled(u, 1) for u in urls)
    share = sum(sampled(u, 0.25) for u in urls) / len(urls)
    assert 0.2 < share < 0.3
    assert [sampled(u, 0.25) for u in urls] == [sampled(u, 0.25) for u in urls]


def test_cli_one_page_and_several_with_an_index(tmp_path, capsys):
    from conftest import WCXB_SAMPLES

    one = tmp_path / "one.html"
    assert main(["inspect", str(WCXB_SAMPLES / "0688.html.gz"), "-o", str(one),
                 "--extractor", "density"]) == 0
    assert "grep(1)" in lxml.html.fromstring(one.read_text("utf-8")).findtext(".//h1")
    pages = [str(WCXB_SAMPLES / f"{i}.html.gz") for i in ("0688", "4297")]
    assert main(["inspect", *pages, "-o", str(tmp_path / "many")]) == 0
    index = (tmp_path / "many" / "index.html").read_text("utf-8")
    hrefs = lxml.html.fromstring(index).xpath("//table//a/@href")
    assert hrefs == ["0688.html", "4297.html"]
    assert all((tmp_path / "many" / h).is_file() for h in hrefs)
    assert main(["inspect", str(WCXB_SAMPLES), "-o", str(tmp_path / "folder")]) == 0
    assert len(list((tmp_path / "folder").glob("*.html"))) == 10  # nine pages and the index
    assert main(["inspect", *pages, "-o", str(one)]) == 2  # a file cannot hold several reports
    assert "need a folder" in capsys.readouterr().err


@pytest.fixture
def http_server(tmp_path):
    (tmp_path / "page.html").write_bytes(HOSTILE)
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_cli_fetches_an_explicit_url_within_a_size_cap(tmp_path, http_server):
    out = tmp_path / "r.html"
    assert main(["inspect", f"{http_server}/page.html", "-o", str(out)]) == 0
    doc = lxml.html.fromstring(out.read_text("utf-8"))
    assert f"{http_server}/page.html" in doc.xpath('string(//p[@class="meta"])')
    with pytest.raises(DeclutterError, match="over 100 bytes"):
        fetch(f"{http_server}/page.html", max_bytes=100)
    with pytest.raises(DeclutterError, match="cannot fetch"):
        fetch(f"{http_server}/missing.html")


def test_cli_store_classifies_with_the_learned_site_model(tmp_path):
    import scrapy_declutter
    from conftest import SAMPLE_DATA

    declutter_cls = getattr(scrapy_declutter, "Declutter", None)
    if declutter_cls is None:
        pytest.skip("site learning (scrapy_declutter.Declutter) is not in this checkout")
    site = SAMPLE_DATA / "scrapy"
    store = f"sqlite:///{tmp_path / 'sites.sqlite3'}"
    from scrapy_declutter.sitelearning.learner import SiteLearner

    # A learner whose unsupervised pages teach the classifier (the default one's do only where
    # a vote reads it), so the report has its log-odds to show.
    learner = declutter_cls(store=store, learner=SiteLearner(train=True))
    for name in ("index", "tomatoes", "compost", "bees", "pruning"):
        learner.extract((site / f"{name}.html").read_bytes(), f"http://club.example/{name}.html")
    learner.close()
    out = tmp_path / "r.html"
    assert main(["inspect", str(site / "bees.html"), "--store", store, "--site", "club.example",
                 "-o", str(out)]) == 0
    doc = lxml.html.fromstring(out.read_text("utf-8"))
    assert "site learning: model of 5 pages" in doc.xpath('string(//p[@class="meta facts"])')
    captions = doc.xpath("//figcaption//b/text()")
    assert "site_fingerprint_pages" in captions and "ngram_log_odds" in captions
    # The shared navigation was seen on every page learned; the article text on one at most.
    pages = {li.xpath('string(.//span[@class="tx"])'):
             li.xpath('string(.//tr[th="site_fingerprint_pages"]/td)') for li in _block_items(
                 out.read_text("utf-8"))}
    assert max(int(v) for v in pages.values()) >= 4
    assert min(int(v) for v in pages.values()) <= 1
