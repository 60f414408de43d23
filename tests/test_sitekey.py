"""DECLUTTER_SITE_KEY: host, registered domain, a callable by import path, or a fixed name."""

from __future__ import annotations

import socket

import pytest
from scrapy.utils.test import get_crawler

from scrapy_declutter.integration.settings import DeclutterOptions, SettingsError
from scrapy_declutter.sitekey import domain_key, site_key_function


def first_segment(url):
    """A key function for tests: the first path segment, several sites on one host."""
    return url.split("/")[3]


def options(**settings):
    return DeclutterOptions.from_settings(get_crawler(settings_dict=settings).settings)


def test_each_kind_of_key(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the suffix list must not be fetched")

    monkeypatch.setattr(socket, "create_connection", no_network)
    assert domain_key("https://news.bbc.co.uk/a") == domain_key("https://www.bbc.co.uk/") == "bbc.co.uk"
    assert domain_key("https://a.b.example.github.io/") == "github.io"  # ICANN list only
    assert domain_key("http://127.0.0.1:8080/x") == "127.0.0.1"
    assert domain_key("file:///tmp/x.html") == ""
    assert site_key_function("host")("https://news.bbc.co.uk/a") == "news.bbc.co.uk"
    assert site_key_function("fixed:docs")("file:///x") == "docs"
    key = site_key_function("test_sitekey.first_segment")
    assert key("https://host.example/blog/post-1") == "blog"


def test_settings_accept_the_four_forms_and_refuse_the_rest():
    assert options().site_key == "host"
    assert options(DECLUTTER_SITE_KEY="domain").site_key == "domain"
    assert options(DECLUTTER_SITE_KEY="fixed:docs.python.org").site_key == "fixed:docs.python.org"
    assert options(DECLUTTER_SITE_KEY="test_sitekey.first_segment").site_key.endswith("segment")
    for bad in ("domian", "docs.python.org", "fixed:", "test_sitekey.PAGES_NONE", "os.sep"):
        with pytest.raises(SettingsError, match="DECLUTTER_SITE_KEY="):
            options(DECLUTTER_SITE_KEY=bad)
    with pytest.raises(SettingsError, match="site_key"):
        options().override({"site_key": "nosuch"})
    assert options().override({"site_key": "domain"}).site_key == "domain"


def test_declutter_keys_pages_by_the_named_function():
    pytest.importorskip("numpy")
    from scrapy_declutter import Declutter

    def html(n):  # different text on each page: a near-copy would not be counted
        words = ["apple", "birch", "cedar", "daisy"][n - 1]
        return "<html><body><p>" + f"The {words} page says something of its own. " * 10 + "</p></body></html>"

    with Declutter(store="memory:", site_key="domain") as dec:
        assert dec.extract(html(1), "https://news.bbc.co.uk/1").site == "bbc.co.uk"
        assert dec.extract(html(2), "https://www.bbc.co.uk/2").site == "bbc.co.uk"
        assert dec.model("bbc.co.uk").pages == 2
    with Declutter(store="memory:", site_key="test_sitekey.first_segment") as dec:
        assert dec.extract(html(3), "https://one.example/blog/1").site == "blog"
        assert dec.extract(html(4), "https://one.example/shop/1").site == "shop"
