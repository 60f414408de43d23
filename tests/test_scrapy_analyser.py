"""The Scrapy path's core calls: lying charsets, best-effort pages, an unusable store."""

from __future__ import annotations

import logging

from scrapy.http import HtmlResponse

from scrapy_declutter.integration.analyser import Analyser
from scrapy_declutter.integration.items import field_values
from scrapy_declutter.integration.settings import DeclutterOptions

RUSSIAN = ("Москва — столица России, крупнейший по численности населения город страны и "
           "её политический, экономический и культурный центр. ") * 3


def analyse(analyser: Analyser, response: HtmlResponse, options: DeclutterOptions):
    page = analyser.page_of_response(response.body,
                                     response.headers.get("Content-Type", b"").decode(),
                                     lambda: response.selector.root, lambda: response.text,
                                     response.url, options)
    return analyser.analyse(page, options)


def test_a_header_that_lies_about_the_charset_is_repaired_as_in_extract():
    body = f"<html><body><p>{RUSSIAN}</p></body></html>".encode("cp1251")
    response = HtmlResponse("https://example.ru/a", body=body,
                            headers={"Content-Type": "text/html; charset=utf-8"})
    assert "Москва" not in response.text  # Scrapy trusts the header and garbles the text
    options = DeclutterOptions(extractor="density", site_learning=False)
    result = analyse(Analyser(None), response, options)
    assert "Москва — столица России" in result.text


def test_a_best_effort_page_keeps_its_block_labels_on_the_item():
    deep = "<div>" * 3000 + "<p>" + "Deep words that a reader still sees on the page. " * 4 + "</p>"
    response = HtmlResponse("https://example.org/deep", body=deep.encode(),
                            headers={"Content-Type": "text/html"})
    options = DeclutterOptions(extractor="density", site_learning=False, blocks_field="blocks")
    result = analyse(Analyser(None), response, options)
    assert result.reason.startswith("too_deep") and result.blocks
    values = field_values(result, options)
    assert values["blocks"] and "Deep words" in values["clean_text"]


def test_an_unusable_store_warns_once_and_extraction_goes_on(tmp_path, caplog):
    (tmp_path / "a-file").write_text("not a directory")
    analyser = Analyser(f"sqlite:///{tmp_path}/a-file/sites.db")
    options = DeclutterOptions(extractor="density", site_learning=True)
    page = f"<html><body><p>{'An ordinary paragraph of the page with enough words. ' * 3}</p></body></html>"
    with caplog.at_level(logging.WARNING):
        for i in range(3):
            result = analyser.analyse_html(page, f"https://example.org/{i}", options)
            assert "An ordinary paragraph" in result.text
    warnings = [r for r in caplog.records if "cannot open the site store" in r.getMessage()]
    assert len(warnings) == 1
    analyser.close()


def test_metadata_fields_read_the_tree_of_the_analysed_page():
    from pathlib import Path

    html = (Path(__file__).parent / "sample_data" / "scrapy" / "article.html").read_bytes()
    response = HtmlResponse("https://club.example/article", body=html,
                            headers={"Content-Type": "text/html; charset=utf-8"})
    options = DeclutterOptions(metadata_fields=(("authors", "authors"), ("date_published", "date")))
    analyser = Analyser("memory:")
    result = analyse(analyser, response, options)
    analyser.close()
    values = field_values(result, options)
    assert values["authors"] and "Ann Hollis" in values["authors"]
    assert values["date"].startswith("2026-09-14")


def test_the_crawl_analyses_with_the_headline_rule_its_options_ask_for():
    from pathlib import Path

    html = (Path(__file__).parent / "sample_data" / "headline" / "guardian-like.html").read_bytes()
    headline = "Thousands of volunteers count river birds as winter floods recede"
    analyser = Analyser("memory:")
    for in_text in (False, True):
        options = DeclutterOptions(site_learning=False, title_in_text=in_text)
        result = analyser.analyse_html(html, "https://www.dailyledger.example/a", options)
        assert result.text.startswith(headline) is in_text
        assert result.markdown.startswith(f"# {headline}\n\n")
    analyser.close()
