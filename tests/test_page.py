"""Page parsing: encodings, metadata, and reusing a Scrapy response's tree without changing it."""

from __future__ import annotations

from scrapy.http import HtmlResponse

from scrapy_declutter import Page, extract
from scrapy_declutter.page import decode_html, site_key


def test_meta_charset_decodes_non_utf8_bytes():
    text = "Привет, мир: это длинный русский текст"
    html = f'<html><head><meta charset="windows-1251"></head><body><p>{text}</p></body></html>'
    page = Page.from_html(html.encode("cp1251"))
    assert page.blocks[0].text == text


def test_http_header_charset_wins_over_default():
    text = "café crème brûlée"
    body = f"<p>{text}</p>".encode("latin-1")
    assert decode_html(body, "text/html; charset=ISO-8859-1") == f"<p>{text}</p>"
    assert Page.from_html(body, content_type="text/html; charset=ISO-8859-1").blocks[0].text == text


def test_utf8_bom_is_honoured_and_stripped():
    body = "\ufeff<p>naïve</p>".encode("utf-8")
    assert Page.from_html(body).blocks[0].text == "naïve"


def test_str_input_is_used_as_is_even_with_a_lying_meta():
    html = '<meta charset="iso-8859-1"><p>日本語のテキスト</p>'
    assert Page.from_html(html).blocks[0].text == "日本語のテキスト"


def test_site_key_drops_www_and_case():
    assert site_key("https://WWW.Example.com:8080/a?b") == "example.com"
    assert site_key("http://blog.example.com/") == "blog.example.com"
    assert site_key(None) == ""


def test_title_and_language():
    page = Page.from_html("<html lang='fr-CA'><head><title> Le  titre </title></head><p>x</p></html>",
                          "https://www.site.fr/x")
    assert (page.title, page.language, page.site) == ("Le titre", "fr", "site.fr")


def test_from_response_reuses_the_tree_and_leaves_selectors_unchanged(wcxb):
    html, truth = wcxb("4297")
    response = HtmlResponse(url=truth["url"], body=html, encoding="utf-8")
    before_css = response.css("p::text").getall()
    before_xpath = response.xpath("//a/@href").getall()
    before_html = response.css("body").get()
    page = Page.from_response(response)
    assert page.root is response.selector.root
    assert page.blocks and page.site == "zenlytic.com"
    assert response.css("p::text").getall() == before_css
    assert response.xpath("//a/@href").getall() == before_xpath
    assert response.css("body").get() == before_html


def test_from_response_and_from_html_agree(wcxb):
    html, truth = wcxb("0540")
    response = HtmlResponse(url=truth["url"], body=html)
    a = [b.text for b in Page.from_response(response).blocks]
    b = [b.text for b in Page.from_html(html, truth["url"]).blocks]
    assert a == b


def test_extract_on_a_real_page_keeps_content_and_returns_json_types(wcxb):
    import json

    html, truth = wcxb("4297")
    result = extract(html, truth["url"], extractor="density")
    assert "Enterprise-ready means the platform handles your organization's scale" in result.text
    assert truth["ground_truth"]["without"][0] not in result.text
    data = json.loads(json.dumps(result.as_dict()))
    assert data["blocks"] and {"label", "score", "step", "xpath", "text"} <= set(data["blocks"][0])
    assert data["text"] == result.text
    assert all(b["label"] in ("content", "boilerplate") for b in data["blocks"])
