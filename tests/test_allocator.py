"""The allocator trim (``DECLUTTER_TRIM_MEMORY``): its cadence, and nothing where glibc is not."""

from __future__ import annotations

import ctypes
import os
import sys

import pytest
from scrapy.utils.test import get_crawler

from scrapy_declutter.integration.allocator import TRIM_EVERY, Trimmer, malloc_trim
from scrapy_declutter.integration.analyser import Analyser
from scrapy_declutter.integration.settings import DeclutterOptions
from scrapy_declutter.integration.state import CrawlState
from scrapy_declutter.page import Page

PAGE = "<html><body><article><p>{}</p></article><footer>Contact us</footer></body></html>"


def test_the_trim_is_called_every_so_many_pages_and_never_when_off():
    calls = []
    trimmer = Trimmer(3, lambda: calls.append(1))
    for _ in range(10):
        trimmer.page()
    assert len(calls) == 3 == trimmer.calls
    off = Trimmer(0, lambda: calls.append(1))
    missing = Trimmer(3, None)  # no glibc: nothing to call, whatever the cadence
    for _ in range(10):
        off.page()
        missing.page()
    assert len(calls) == 3 and off.calls == missing.calls == 0


@pytest.mark.skipif(not sys.platform.startswith("linux")
                    or not hasattr(os, "confstr_names")
                    or "CS_GNU_LIBC_VERSION" not in os.confstr_names,
                    reason="glibc only")
def test_glibc_trim_is_found_and_runs():
    trim = malloc_trim()
    assert trim is not None
    assert trim() in (0, 1)  # 1: memory was returned


def test_no_trim_where_the_c_library_is_not_glibc(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert malloc_trim() is None
    monkeypatch.setattr(sys, "platform", "linux")

    def no_such_name(name):  # musl: the name is unknown
        raise ValueError("unrecognized configuration name")

    monkeypatch.setattr(os, "confstr", no_such_name)
    assert malloc_trim() is None


def test_nothing_breaks_when_ctypes_cannot_find_it(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(os, "confstr", lambda name: "glibc 2.36")

    class NoTrim:
        def __init__(self, name):
            pass

        def __getattr__(self, name):
            raise AttributeError(name)

    monkeypatch.setattr(ctypes, "CDLL", NoTrim)
    assert malloc_trim() is None

    def unloadable(name):
        raise OSError("cannot open shared object")

    monkeypatch.setattr(ctypes, "CDLL", unloadable)
    assert malloc_trim() is None


def test_the_analyser_trims_at_its_cadence_on_the_pages_it_analyses(monkeypatch):
    calls = []
    monkeypatch.setattr("scrapy_declutter.integration.analyser.malloc_trim",
                        lambda: lambda: calls.append(1))
    options = DeclutterOptions(extractor="density", site_learning=False)
    trimming, plain = Analyser(None, trim=True), Analyser(None)
    for i in range(TRIM_EVERY + 1):
        for analyser in (trimming, plain):
            page = Page.from_html(PAGE.format(f"Paragraph {i} of the article. " * 8),
                                  f"https://example.com/{i}")
            analyser.analyse(page, options)
    assert len(calls) == 1 and trimming.trimmer.calls == 1 and plain.trimmer.calls == 0


def test_the_setting_reaches_the_crawls_analyser():
    on = CrawlState(get_crawler(settings_dict={"DECLUTTER_STORE": "memory:",
                                               "DECLUTTER_PROCESSES": 0}))
    off = CrawlState(get_crawler(settings_dict={"DECLUTTER_STORE": "memory:",
                                                "DECLUTTER_PROCESSES": 0,
                                                "DECLUTTER_TRIM_MEMORY": "false"}))
    assert on.options.trim_memory and not off.options.trim_memory
    assert off.backend.analyser.trimmer.every == 0
    assert on.backend.analyser.trimmer.every == (TRIM_EVERY if malloc_trim() is not None else 0)
