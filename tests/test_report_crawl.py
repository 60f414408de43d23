"""DECLUTTER_INSPECT_DIR and _SAMPLE: a real crawl saves reports for a sample of pages."""

from __future__ import annotations

import lxml.html
import pytest

from scrapy_declutter.errors import DeclutterError
from scrapy_declutter.report import ReportSampler, sampled
from test_scrapy_crawl import HTML_PAGES, crawl, feed, read_jsonl, site_url  # noqa: F401 (fixture)


def test_a_crawl_saves_a_report_for_each_sampled_page(site_url, tmp_path):  # noqa: F811
    all_dir, some_dir = tmp_path / "all", tmp_path / "some"
    (full, partial), _ = crawl(
        tmp_path,
        {"args": {"start_url": f"{site_url}/index.html"},
         "settings": {**feed(tmp_path / "items.jl"), "DECLUTTER_INSPECT_DIR": str(all_dir)}},
        {"args": {"start_url": f"{site_url}/index.html"},
         "settings": {"DECLUTTER_INSPECT_DIR": str(some_dir), "DECLUTTER_INSPECT_SAMPLE": "0.5"}},
    )
    reports = sorted(all_dir.glob("*.html"))
    analysed = full["declutter/pages"]
    assert len(reports) == analysed == full["declutter/inspect/saved"] >= len(HTML_PAGES) - 1
    items = read_jsonl(tmp_path / "items.jl")
    compared = 0
    for report in reports:
        doc = lxml.html.fromstring(report.read_text(encoding="utf-8"))
        path = "/" + _url_of(report).split("/", 3)[-1]
        texts = doc.xpath('//ol[@class="blocks"]/li[@class="content"]//span[@class="tx"]/text()')
        if items.get(path, {}).get("clean_text"):
            # The report shows what was exported.
            assert "\n\n".join(texts) == items[path]["clean_text"]
            compared += 1
    assert compared >= 4
    # The sample is the stable URL-hash one: exactly the pages ``sampled`` picks.
    expected = {r.name for r in reports if sampled(_url_of(r), 0.5)}
    assert {r.name for r in some_dir.glob("*.html")} == expected
    assert partial.get("declutter/inspect/saved", 0) == len(expected)


def _url_of(report) -> str:
    doc = lxml.html.fromstring(report.read_text(encoding="utf-8"))
    return doc.xpath('string(//p[@class="meta"])').split(" · ")[0]


def test_inspect_settings_are_read_and_checked_with_the_others(tmp_path):
    from scrapy.utils.misc import build_from_crawler
    from scrapy.utils.test import get_crawler

    from scrapy_declutter import DeclutterMiddleware
    from scrapy_declutter.integration.settings import DeclutterOptions, SettingsError

    def options(**settings):
        return DeclutterOptions.from_settings(get_crawler(settings_dict=settings).settings)

    assert options().inspect_dir is None
    assert options(DECLUTTER_INSPECT_DIR=str(tmp_path)).inspect_sample == 1.0
    assert options(DECLUTTER_INSPECT_SAMPLE="0.25").inspect_sample == 0.25
    for bad in (2, "a lot", -0.5):
        with pytest.raises(SettingsError, match="DECLUTTER_INSPECT_SAMPLE=.* is not a rate"):
            options(DECLUTTER_INSPECT_DIR="x", DECLUTTER_INSPECT_SAMPLE=bad)
    crawler = get_crawler(settings_dict={"DECLUTTER_STORE": "memory:", "DECLUTTER_PROCESSES": 0,
                                         "DECLUTTER_INSPECT_DIR": str(tmp_path / "r"),
                                         "DECLUTTER_INSPECT_SAMPLE": "0.5"})
    sampler = build_from_crawler(DeclutterMiddleware, crawler).state.backend.runner.inspector
    assert (sampler.directory, sampler.rate) == (tmp_path / "r", 0.5)
    with pytest.raises(DeclutterError, match="rate"):
        ReportSampler(tmp_path, 1.5)
