"""Metadata from real pages' JSON-LD, OpenGraph and meta tags; dates; confidence."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest
from lxml import etree

from conftest import SAMPLE_DATA

from scrapy_declutter import extract
from scrapy_declutter.metadata import (DEFAULT_SOURCES, SOURCES, Metadata, extraction_confidence,
                                       iso_date, read_markup, read_metadata)
from scrapy_declutter.metadata.markup import Byline
from scrapy_declutter.page import parse_html


def page(file_id: str) -> tuple[bytes, dict]:
    """A metadata test page (``sample_data/metadata``): its bytes and ground truth."""
    folder = SAMPLE_DATA / "metadata"
    return (gzip.decompress((folder / f"{file_id}.html.gz").read_bytes()),
            json.loads((folder / f"{file_id}.json").read_text(encoding="utf-8")))


def test_json_ld_article_page():
    html, truth = page("0414")  # https://sam.bossley.com/thoughts/25/08/thoughts-on-zig
    meta = extract(html, truth["url"]).metadata
    gt = truth["ground_truth"]
    assert meta.title == gt["title"] == "Thoughts on Zig"
    assert meta.authors == ("Sam Bossley",) and meta.author == gt["author"]
    assert meta.date_published == "2025-08-29T18:22:00+00:00"
    assert meta.date_published[:10] == gt["publish_date"]
    assert meta.language == "en"
    assert meta.site_name == "Sam Bossley"
    assert meta.canonical_url == "https://sam.bossley.com/thoughts/25/08/thoughts-on-zig/"
    assert meta.image == "https://sam.bossley.com/static/me700x700.png"
    assert meta.description.startswith("Lately I've been spending my free time playing around with the Zig")
    assert meta.page_type == "article"  # the learned step's page-type classifier
    assert 0.5 < meta.confidence <= 1.0


def test_opengraph_and_json_ld_date_page():
    html, truth = page("2740")
    meta = extract(html, truth["url"]).metadata
    assert meta.title == truth["ground_truth"]["title"]
    assert meta.date_published == truth["ground_truth"]["publish_date"] == "2025-12-19"
    assert meta.image.startswith("https://scribbles.page/")
    assert meta.authors == ()


def test_a_date_only_in_the_text_is_found_by_the_extensive_search():
    html, truth = page("0490")  # no date in JSON-LD, meta tags, <time> or the URL
    root = parse_html(html.decode("utf-8"))
    assert read_metadata(root, truth["url"], visible_dates=False).date_published is None
    meta = extract(html, truth["url"]).metadata
    assert meta.date_published == truth["ground_truth"]["publish_date"] == "2025-12-12"


def test_as_dict_is_plain_json():
    html, truth = page("0414")
    data = extract(html, truth["url"]).as_dict()
    assert json.loads(json.dumps(data))["metadata"]["authors"] == ["Sam Bossley"]
    assert "Thoughts on Zig" in data["markdown"]
    assert set(Metadata().as_dict()) == set(data["metadata"])


def test_reading_metadata_never_changes_the_tree():
    html, truth = page("0414")
    root = parse_html(html.decode("utf-8"))
    before = etree.tostring(root)
    result = extract(html, truth["url"])
    assert result.root is not None
    from scrapy_declutter.metadata import read_metadata

    read_metadata(root, truth["url"], title=result.title, blocks=result.blocks)
    assert etree.tostring(root) == before


def test_opengraph_works_on_a_plain_etree_tree():
    root = parse_html("<html><head><meta property='og:title' content='T'>"
                      "<meta property='og:site_name' content='S'></head><body><p>x</p></body></html>")
    assert not hasattr(root, "head")  # not an lxml.html tree, as outside Scrapy
    markup = read_markup(root, "https://x.org/", ("opengraph",))
    assert markup.opengraph == {"og:title": "T", "og:site_name": "S"}


def test_broken_json_ld_costs_nothing_else():
    html = ("<html lang='de-AT'><head><title>Titel | Seite</title><script type='application/ld+json'>{broken"
            "</script><meta name='author' content='By Ada Lovelace and Charles Babbage'></head>"
            "<body><p>Genug Text für einen Absatz.</p></body></html>")
    meta = extract(html, "https://x.org/a").metadata
    assert meta.authors == ("Ada Lovelace", "Charles Babbage")
    assert meta.language == "de-AT"
    assert meta.title == "Titel"
    assert meta.canonical_url == "https://x.org/a"


@pytest.mark.parametrize("sources", [DEFAULT_SOURCES, SOURCES])
def test_a_byline_with_a_place_gives_the_author_its_markup_names(sources):
    html = (SAMPLE_DATA / "metadata" / "byline-place.html").read_bytes()
    root = parse_html(html.decode("utf-8"))
    markup = read_markup(root, "https://www.theguardian.com/world/2012/mar/26/x", sources)
    assert markup.bylines[0] == Byline("Gary Younge in Sarasota, Florida", ("Gary Younge",))
    meta = read_metadata(root, "https://www.theguardian.com/world/2012/mar/26/x", sources=sources)
    assert meta.authors == ("Gary Younge",)


@pytest.mark.parametrize(("byline", "authors"), [
    ("By Gary Younge in Sarasota, Florida", ("Gary Younge in Sarasota, Florida",)),  # a place
    ("Richard Adams, education editor", ("Richard Adams, education editor",)),  # a role
    ("Jane Doe, Li Wei; Ana Souza", ("Jane Doe", "Li Wei", "Ana Souza")),
    ("Jane Doe and Ana de Souza", ("Jane Doe", "Ana de Souza")),
    ("Luke Kim December 17, 2025", ("Luke Kim December 17, 2025",)),  # a date
    ("pelex ,", ("pelex",)),
])
def test_a_free_text_byline_is_split_only_into_names(byline, authors):
    html = f"<html><body><p class='byline'>{byline}</p><p>Some text of the page.</p></body></html>"
    assert read_metadata(parse_html(html)).authors == authors


def test_markup_names_are_taken_whole():
    page_ = ("<html><head><script type='application/ld+json'>{\"@type\": \"NewsArticle\", "
             "\"author\": {\"@type\": \"Person\", \"name\": \"Younge, Gary\"}}</script></head>"
             "<body><p>Text.</p></body></html>")
    assert read_metadata(parse_html(page_)).authors == ("Younge, Gary",)
    micro = ("<html><body><div itemscope itemtype='http://schema.org/Article'>"
             "<span itemprop='author'>Gary Younge, Florida correspondent</span></div></body></html>")
    assert read_metadata(parse_html(micro), sources=SOURCES).authors == ("Gary Younge, Florida correspondent",)


def test_unknown_source_is_an_error():
    with pytest.raises(ValueError, match="rdfa"):
        read_markup(parse_html("<p>x</p>"), None, ("rdfa",))


@pytest.mark.parametrize(("raw", "iso"), [
    ("2025-09-04", "2025-09-04"),
    ("2025-09-04T10:00:00Z", "2025-09-04T10:00:00+00:00"),
    ("2025-09-04 10:00:00", "2025-09-04T10:00:00"),
    ("Thu, 04 Sep 2025 10:00:00 GMT", "2025-09-04T10:00:00+00:00"),
    ("September 4, 2025", "2025-09-04"),
    ("Jun 24, 2025", "2025-06-24"),
    ("published 2025/09/04", "2025-09-04"),
    ("0001-01-01", None),
    ("2025-13-45", None),
    ("soon", None),
    (None, None),
])
def test_iso_date(raw, iso):
    assert iso_date(raw) == iso


def test_confidence_is_margin_times_substance():
    page = extract("<p>" + "word " * 100 + "</p>", "https://x.org/")
    assert 0.0 <= page.metadata.confidence <= 1.0
    assert extraction_confidence([]) == 0.0
    blocks = page.blocks
    for b in blocks:
        b.set_label("content", 0.5, "test")
    assert extraction_confidence(blocks) == 0.0  # coin tosses only
    for b in blocks:
        b.set_label("content", 1.0, "test")
    assert extraction_confidence(blocks) == 1.0


def test_importing_the_package_does_not_import_extruct():
    code = "import sys, scrapy_declutter; scrapy_declutter.extract('<p>x</p>'); print('extruct' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_metadata_eval_scores_title_exactly_date_by_day_and_author_by_words():
    from scrapy_declutter.lab.metadata_eval import Guess, Truth, score

    truth = Truth(title="Thoughts on  Zig", author="Kaufman, Jeff T.", date="2019-01-22")
    got = score(Guess("thoughts on zig", "Jeff Kaufman", "2019-01-22T08:00:00-05:00", 0.0), truth)
    assert got["title"] == 1.0 and got["date"] == 1.0
    assert got["author"] == pytest.approx(0.8)  # 2 of 2 predicted words, 2 of 3 true ones
    miss = score(Guess("Thoughts on Zig | Blog", None, "2019-01-23", 0.0, "2019-01-22"), truth)
    assert (miss["title"], miss["author"], miss["date"], miss["date*"]) == (0.0, 0.0, 0.0, 1.0)
    assert score(Guess(None, None, None, 0.0), Truth("T", None, None))["author"] is None
