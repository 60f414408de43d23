"""Unit tests of the Scrapy glue: add-on, options, field writing, lazy re-exports."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import subprocess
import sys

import pytest
import scrapy
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

import scrapy_declutter
from scrapy_declutter import (
    Addon,
    DeclutterMiddleware,
    DeclutterPipeline,
    DeclutterSpiderMiddleware,
)
from scrapy_declutter.integration.middleware import skip_reason
from scrapy_declutter.integration.items import FieldWriter, field_values
from scrapy_declutter.integration.settings import DEFAULTS, DeclutterOptions, SettingsError
from scrapy_declutter.limits import MAX_BYTES
from scrapy_declutter.result import Result

ADDON = {"ADDONS": {"scrapy_declutter.Addon": 500}}


def components(crawler, name):
    return {scrapy.utils.misc.load_object(k) if isinstance(k, str) else k: v
            for k, v in crawler.settings.getdict(name).items()}


def test_addon_enables_three_components_at_documented_priorities():
    crawler = get_crawler(settings_dict=ADDON)
    assert components(crawler, "DOWNLOADER_MIDDLEWARES")[DeclutterMiddleware] == 540
    assert components(crawler, "SPIDER_MIDDLEWARES")[DeclutterSpiderMiddleware] == 950
    assert components(crawler, "ITEM_PIPELINES")[DeclutterPipeline] == 200


def test_addon_keeps_user_priorities_and_survives_a_replaced_dict():
    path = "scrapy_declutter.DeclutterMiddleware"
    crawler = get_crawler(settings_dict={**ADDON, "DOWNLOADER_MIDDLEWARES": {path: 520}})
    assert crawler.settings.getdict("DOWNLOADER_MIDDLEWARES") == {path: 520}
    crawler = get_crawler(settings_dict={**ADDON, "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 300}})
    assert components(crawler, "ITEM_PIPELINES")[DeclutterPipeline] == 200
    assert Addon is scrapy_declutter.Addon


def test_addon_registers_json_text_exporters_unless_the_project_has_its_own():
    from scrapy_declutter.integration.exporters import CsvItemExporter, XmlItemExporter

    exporters = get_crawler(settings_dict=ADDON).settings.getwithbase("FEED_EXPORTERS")
    assert exporters["csv"] is CsvItemExporter and exporters["xml"] is XmlItemExporter
    assert exporters["jsonlines"] == "scrapy.exporters.JsonLinesItemExporter"  # untouched
    mine = {"csv": "myproject.exporters.Csv", "parquet": "myproject.exporters.Parquet"}
    exporters = get_crawler(settings_dict={**ADDON, "FEED_EXPORTERS": mine}).settings
    assert exporters.getdict("FEED_EXPORTERS") == {**mine, "xml": XmlItemExporter}


def test_disabled_components_raise_not_configured():
    crawler = get_crawler(settings_dict={"DECLUTTER_ENABLED": "false"})
    for cls in (DeclutterMiddleware, DeclutterSpiderMiddleware, DeclutterPipeline):
        with pytest.raises(NotConfigured, match="DECLUTTER_ENABLED"):
            build_from_crawler(cls, crawler)


def test_options_defaults_and_command_line_strings():
    assert DeclutterOptions.from_settings(get_crawler().settings) == DeclutterOptions()
    assert set(DEFAULTS) == {f"DECLUTTER_{f.name.upper()}" for f in dataclasses.fields(DeclutterOptions)
                             if f.name != "crawl"}
    settings = get_crawler(settings_dict={
        "DECLUTTER_SITE_LEARNING": "False", "DECLUTTER_MAX_SIZE": "1000",
        "DECLUTTER_BLOCKS_FIELD": "None", "DECLUTTER_TITLE_FIELD": "headline",
        "DECLUTTER_EXTRACTOR": "",
    }).settings
    opts = DeclutterOptions.from_settings(settings)
    assert (opts.site_learning, opts.max_size, opts.blocks_field) == (False, 1000, None)
    assert list(field_values(None, opts)) == ["clean_text", "headline"]
    assert opts.extractor == "default"
    with pytest.raises(SettingsError, match="DECLUTTER_MAX_SIZE"):
        DeclutterOptions.from_settings(get_crawler(settings_dict={"DECLUTTER_MAX_SIZE": "big"}).settings)


def test_spider_arguments_override_settings():
    class Spider(scrapy.Spider):
        name = "s"

    crawler = get_crawler(Spider, {"DECLUTTER_TEXT_FIELD": "body"})
    crawler.spider = Spider(declutter_text_field="main", declutter_site_learning="false")
    opts = DeclutterOptions.from_crawler(crawler)
    assert (opts.text_field, opts.site_learning) == ("main", False)


def test_meta_overrides_are_validated():
    base = DeclutterOptions()
    assert base.override({}) is base
    over = base.override({"extractor": "density", "DECLUTTER_TEXT_FIELD": "txt", "site_learning": "off"})
    assert (over.extractor, over.text_field, over.site_learning) == ("density", "txt", False)
    # A renamed field adds its column: the crawl's own fields stay on the request's items.
    assert list(over.item_fields()) == ["clean_text", "txt"]
    assert list(over.override({"text_field": "t2"}).item_fields()) == ["clean_text", "t2"]
    with pytest.raises(SettingsError, match="store is not a scrapy_declutter meta"):
        base.override({"store": "memory:"})  # per crawl only
    with pytest.raises(SettingsError):
        base.override({"site_learning": "maybe"})


class _Undeclared(scrapy.Item):
    url = scrapy.Field()


@dataclasses.dataclass
class _Data:
    url: str
    clean_text: str | None = None


def test_field_writer_never_overwrites_and_warns_once(caplog):
    writer = FieldWriter()
    values = {"clean_text": "new", "blocks": []}
    mine = {"clean_text": "the spider's own"}
    assert writer.write(mine, values) == 1 and mine == {"clean_text": "the spider's own", "blocks": []}
    data = _Data(url="u")
    assert writer.write(data, values) == 1 and data.clean_text == "new"
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            item = _Undeclared(url="u")
            assert writer.write(item, values) == 0
            assert dict(item) == {"url": "u"}
    warnings = [r for r in caplog.records if "does not declare" in r.getMessage()]
    assert len(warnings) == 3  # once per (class, field), however many items
    assert sum("_Undeclared" in r.getMessage() for r in warnings) == 2


def test_field_values_of_a_rejected_page_carry_empty_text_and_no_blocks():
    rejected = Result(text="", blocks=[], reason="empty: no text")
    options = DeclutterOptions(title_field="t", blocks_field="b")
    assert field_values(rejected, options) == {"clean_text": "", "b": [], "t": ""}
    assert field_values(None, options) == {"clean_text": None, "b": None, "t": None}


def _middleware(**settings):
    """The middleware of a crawler that is not started: it analyses in-process, since
    worker processes start when the spider opens."""
    crawler = get_crawler(settings_dict={"DECLUTTER_STORE": "memory:", "DECLUTTER_PROCESSES": 0,
                                         **settings})
    return build_from_crawler(DeclutterMiddleware, crawler)


def test_skip_reasons():
    req = Request("https://example.com/", callback=lambda r: None)
    html = HtmlResponse("https://example.com/", body=b"<p>hi</p>", request=req)
    assert skip_reason(req, html) == ""
    assert skip_reason(Request("https://example.com/", callback=NO_CALLBACK), html) == "no_callback"
    assert skip_reason(req, Response("https://example.com/", body=b"\x89PNG")) == "non_html"
    assert skip_reason(req, html.replace(status=404)) == "status"
    assert skip_reason(req, html.replace(body=b"  ")) == "empty"


def test_one_size_cap_counted_once():
    assert DEFAULTS["DECLUTTER_MAX_SIZE"] == MAX_BYTES  # the core's cap is the setting's default
    mw = _middleware(DECLUTTER_MAX_SIZE=100, DECLUTTER_THREADS=False,
                     DECLUTTER_CALLBACK_RESULTS=True)
    req = Request("https://example.com/", callback=lambda r: None)
    big = HtmlResponse("https://example.com/", body=b"<p>" + b"x " * 100 + b"</p>", request=req)
    assert skip_reason(req, big) == ""  # not the middleware's to refuse
    analysed = asyncio.run(mw.process_response(req, big))
    result = analysed.declutter
    assert isinstance(analysed, HtmlResponse) and analysed.request is req
    assert scrapy_declutter.result_for(analysed) is result
    assert analysed.replace(url="https://example.com/2").declutter is result  # kept by replace
    assert result.reason.startswith("too_large") and result.text == ""
    stats = mw.state.stats.get_stats()
    assert stats["declutter/rejected/too_large"] == 1
    assert not any(k.startswith("declutter/skipped") for k in stats)


def test_a_result_not_asked_for_is_not_kept_and_reading_it_names_the_setting():
    mw = _middleware(DECLUTTER_THREADS=False)
    req = Request("https://example.com/", callback=lambda r: None)
    page = HtmlResponse("https://example.com/", body=b"<article><p>" + b"word " * 80
                        + b"</p></article>", request=req)
    analysed = asyncio.run(mw.process_response(req, page))
    output = analysed.declutter_output
    assert output.analysed and output.result is None and output.packed is None
    assert output.fields["clean_text"].startswith("word word")  # the item fields, as always
    with pytest.raises(scrapy_declutter.ResultNotKeptError, match="DECLUTTER_CALLBACK_RESULTS"):
        analysed.declutter
    # One request may ask for it alone.
    asked = req.replace(meta={"declutter": {"callback_results": True}})
    result = asyncio.run(mw.process_response(asked, page.replace(request=asked))).declutter
    assert result.text == output.fields["clean_text"]


def test_unknown_extractor_is_a_setup_error_raised_where_scrapy_builds_the_component(caplog):
    with caplog.at_level(logging.ERROR), pytest.raises(SettingsError) as raised:
        _middleware(DECLUTTER_EXTRACTOR="no-such-extractor")
    message = str(raised.value)
    assert message.startswith("scrapy_declutter cannot start:\n  DECLUTTER_EXTRACTOR='no-such-"
                              "extractor' is not an extractor")
    assert "valid names" in message
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == [message]


def test_importing_the_package_does_not_import_scrapy():
    code = "import sys, scrapy_declutter; print('scrapy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
