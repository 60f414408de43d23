"""The settings table: defaults written once, one converter per setting for settings, spider
arguments and meta, and the start-up checks that turn a broken set-up into one message."""

from __future__ import annotations

import dataclasses
import sys

import pytest
import scrapy
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_declutter import DeclutterMiddleware
from scrapy_declutter.integration.settings import (
    DEFAULTS,
    OPTIONS,
    REQUEST_OPTIONS,
    SETTINGS,
    DeclutterOptions,
    SettingsError,
    setting_name,
)


def options(**settings) -> DeclutterOptions:
    return DeclutterOptions.from_settings(get_crawler(settings_dict=settings).settings)


def with_spider_arguments(**arguments) -> DeclutterOptions:
    class Spider(scrapy.Spider):
        name = "s"

    crawler = get_crawler(Spider, {"DECLUTTER_STORE": "memory:"})
    crawler.spider = Spider(**arguments)
    return DeclutterOptions.from_crawler(crawler)


def test_defaults_are_the_options_types_and_written_once():
    fields = [f for f in dataclasses.fields(DeclutterOptions) if f.name != "crawl"]
    assert DEFAULTS == {setting_name(f.name): f.default for f in fields}
    assert list(SETTINGS) == list(DEFAULTS) and next(iter(DEFAULTS)) == "DECLUTTER_ENABLED"
    assert options() == DeclutterOptions()  # nothing set: the dataclass defaults, converted
    assert {"DECLUTTER_INSPECT_DIR", "DECLUTTER_INSPECT_SAMPLE"} <= set(SETTINGS)
    assert DEFAULTS["DECLUTTER_BLOCKS_FIELD"] is None  # lean items by default


def test_per_request_options_exclude_what_is_set_once_per_crawl():
    assert REQUEST_OPTIONS == {n for n, s in OPTIONS.items() if s.per_request}
    for crawl_only in ("enabled", "store", "threads", "inspect_dir", "inspect_sample"):
        assert crawl_only not in REQUEST_OPTIONS
        with pytest.raises(SettingsError, match=f"{crawl_only} is not a scrapy_declutter meta"):
            DeclutterOptions().override({crawl_only: None})


@pytest.mark.parametrize("option, raw, value", [
    ("site_learning", "off", False), ("site_learning", "1", True), ("max_size", "1000", 1000),
    ("blocks_field", "None", None), ("text_field", " body ", "body"),
    ("content_selector", "article .text", "article .text"),
    ("content_selector", "//main", "//main"), ("extractor", "", "default"),
    ("extractor", "boilerpipe-article+tree(depth=1)", "boilerpipe-article+tree(depth=1)"),
    ("format", " Markdown", "markdown"), ("markdown_field", "md", "md"),
    ("metadata_fields", "authors, date_published", (("authors", "authors"),
                                                    ("date_published", "date_published"))),
    ("metadata_fields", ["title"], (("title", "title"),)),
    ("metadata_fields", {"title": "headline"}, (("title", "headline"),)),
])
def test_one_converter_reads_settings_spider_arguments_and_meta_alike(option, raw, value):
    assert getattr(options(**{setting_name(option): raw}), option) == value
    assert getattr(with_spider_arguments(**{f"declutter_{option}": raw}), option) == value
    if option in REQUEST_OPTIONS:
        assert getattr(DeclutterOptions().override({option: raw}), option) == value
        assert getattr(DeclutterOptions().override({setting_name(option): raw}), option) == value


@pytest.mark.parametrize("option, raw, message", [
    ("max_size", "big", "is not a size; use a whole number of bytes"),
    ("max_size", -1, "is not a size"),
    ("site_learning", "maybe", "is not a boolean; use True or False"),
    ("text_field", 3, "is a int, not a string"),
    ("content_selector", "div[", "is not a CSS or XPath selector"),
    ("content_selector", "//div[", "is not a CSS or XPath selector"),
    ("extractor", "nosuch", "is not an extractor: unknown extractor or step 'nosuch'; valid names"),
    ("extractor", "tree(dept=1)",
     "is not an extractor: 'tree' has no parameter 'dept'; its parameters: depth, skip_wrappers"),
    ("extractor", 'boilerpipe-article(keep_largest="chars")', "is not a valid extractor"),
    ("inspect_sample", "1.5", "is not a rate; use a number from 0 to 1"),
    ("format", "html", "is not an output format; use one of text, markdown, both"),
    ("metadata_fields", ["authors", "publish_date"],
     "names unknown metadata: publish_date (did you mean date_published?); valid: title, authors,"),
    ("metadata_fields", {"title": None}, "maps 'title' to no item field"),
    ("metadata_fields", 3, "is a int; use a list of metadata names"),
])
def test_a_bad_value_names_the_setting_and_what_it_accepts(option, raw, message):
    with pytest.raises(SettingsError) as e:
        options(**{setting_name(option): raw})
    assert str(e.value).startswith(f"{setting_name(option)}={raw!r} {message}")
    with pytest.raises(SettingsError) as e:
        with_spider_arguments(**{f"declutter_{option}": raw})
    assert str(e.value).startswith(f"declutter_{option}={raw!r} {message}")
    if option in REQUEST_OPTIONS:
        with pytest.raises(SettingsError, match=f"^{option}=.* {message[:12]}"):
            DeclutterOptions().override({option: raw})


def test_every_problem_in_one_error_and_typos_get_a_suggestion():
    with pytest.raises(SettingsError) as e:
        options(DECLUTTER_EXTRACTR="density", DECLUTTER_MAX_SIZE="big", DECLUTTER_THREADS="2")
    problems = str(e.value).splitlines()
    assert len(problems) == 3
    assert problems[0].startswith("DECLUTTER_EXTRACTR is not a scrapy_declutter setting; "
                                  "did you mean DECLUTTER_EXTRACTOR? Valid: DECLUTTER_ENABLED")
    with pytest.raises(SettingsError, match="declutter_blocks_feild is not a scrapy_declutter "
                                            "spider argument; did you mean declutter_blocks_field"):
        with_spider_arguments(declutter_blocks_feild="blocks")
    with pytest.raises(SettingsError, match="did you mean text_field"):
        DeclutterOptions().override({"txt_field": "x"})


def test_two_outputs_in_one_field_are_refused():
    with pytest.raises(SettingsError, match="DECLUTTER_TEXT_FIELD and DECLUTTER_BLOCKS_FIELD both"):
        options(DECLUTTER_BLOCKS_FIELD="clean_text")
    with pytest.raises(SettingsError, match="both name the item field 'x'"):
        DeclutterOptions().override({"text_field": "x", "title_field": "x"})
    with pytest.raises(SettingsError, match=r"DECLUTTER_TITLE_FIELD and DECLUTTER_METADATA_FIELDS\['title'\]"):
        options(DECLUTTER_TITLE_FIELD="title", DECLUTTER_METADATA_FIELDS=["title"])
    # The Markdown field is filled only when DECLUTTER_FORMAT asks for it, so it clashes only then.
    assert options(DECLUTTER_MARKDOWN_FIELD="clean_text").format == "text"
    with pytest.raises(SettingsError, match="DECLUTTER_TEXT_FIELD and DECLUTTER_MARKDOWN_FIELD"):
        options(DECLUTTER_MARKDOWN_FIELD="clean_text", DECLUTTER_FORMAT="both")


@pytest.mark.parametrize("fmt, fields", [
    ("text", ["clean_text"]), ("markdown", ["markdown"]), ("both", ["clean_text", "markdown"]),
])
def test_the_format_says_which_text_fields_an_item_gets(fmt, fields):
    chosen = options(DECLUTTER_FORMAT=fmt, DECLUTTER_METADATA_FIELDS={"confidence": "score"})
    assert list(chosen.item_fields()) == [*fields, "score"]


# -- start-up checks beyond the values: store, dependencies, folders --------------------------------
def setup_error(**settings) -> str:
    """The message Scrapy gets when it builds the plugin's first component; "" if none."""
    crawler = get_crawler(settings_dict={"DECLUTTER_STORE": "memory:",
                                         "DECLUTTER_PROCESSES": 0, **settings})
    try:
        build_from_crawler(DeclutterMiddleware, crawler)
    except SettingsError as e:
        return str(e).removeprefix("scrapy_declutter cannot start:\n").replace("\n  ", "\n").strip()
    return ""


def test_a_sound_setup_has_no_error():
    assert setup_error() == ""
    assert setup_error(DECLUTTER_STORE="redis://127.0.0.1:1/0") == ""  # down is not wrong


def test_store_scheme_and_backend_dependency_are_checked(monkeypatch, tmp_path):
    assert "unknown store URI" in setup_error(DECLUTTER_STORE="ftp://x")
    monkeypatch.setitem(sys.modules, "redis", None)  # an install without the redis extra
    error = setup_error(DECLUTTER_STORE="redis://127.0.0.1:6379/0")
    assert error.startswith("DECLUTTER_STORE='redis://127.0.0.1:6379/0' cannot be opened")
    assert "pip install scrapy-declutter[redis]" in error
    (tmp_path / "file").write_text("")
    error = setup_error(DECLUTTER_INSPECT_DIR=str(tmp_path / "file" / "reports"))
    assert error.startswith("DECLUTTER_INSPECT_DIR=") and "cannot be created" in error


def test_a_setup_error_is_logged_first_and_whole_then_raised(caplog):
    with caplog.at_level("ERROR"):
        error = setup_error(DECLUTTER_EXTRACTOR="nosuch", DECLUTTER_MAX_SIZE="x")
    (record,) = [r for r in caplog.records if r.levelname == "ERROR"]
    assert record.getMessage().startswith("scrapy_declutter cannot start:\n  ")
    assert "DECLUTTER_EXTRACTOR='nosuch'" in error and "DECLUTTER_MAX_SIZE='x'" in error
    assert error.replace("\n", "\n  ") in record.getMessage()
