"""Page parsing: encodings, metadata, and reusing a Scrapy response's tree without changing it."""

from __future__ import annotations

import gzip

import pytest
from scrapy.http import HtmlResponse

from conftest import WCXB_SAMPLES

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


# -- one entry for a parsed tree ---------------------------------------------------------
def deep_page(depth: int) -> str:
    return ("<html><body><p>Before the pit.</p>" + "<div>" * depth + "<p>At the bottom.</p>"
            + "</div>" * depth + "<p>After the pit.</p></body></html>")


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """Every HTML parse made, ours (``page.parse_html``) and parsel's (Scrapy's selector)."""
    import parsel.selector

    from scrapy_declutter import page as page_module

    calls: list[str] = []

    def counting(real):
        def parse(text, *args, **kwargs):
            calls.append(text[:40] if isinstance(text, str) else "<bytes>")
            return real(text, *args, **kwargs)
        return parse

    monkeypatch.setattr(parsel.selector, "create_root_node",
                        counting(parsel.selector.create_root_node))
    monkeypatch.setattr(page_module, "parse_html", counting(page_module.parse_html))
    return calls


#: Texts whose surrounding whitespace, NULs, scripts, emptiness or repeated ids parsel treats on its own.
PARSEL_CASES = (
    "", "   \n", "\x00", " \x00 <p>a\x00b</p>\n", "<p>é€\U0001F600\x00x</p>", "plain text",
    "<!-- only a comment -->", "\ufeff<p>x</p>", "\u2003<div>\u00a0<p>y</p></div>\u2003",
    '<p id="a">x</p><p id="a" name="a">y</p><a id="">z</a>',
)


@pytest.mark.parametrize("text", PARSEL_CASES + tuple(
    decode_html(gzip.decompress(p.read_bytes())) for p in sorted(WCXB_SAMPLES.glob("*.html.gz"))))
def test_parse_html_builds_the_tree_parsel_builds(text):
    from lxml import etree
    from parsel.selector import create_root_node

    from scrapy_declutter.page import parse_html

    ours = etree.tostring(parse_html(text))
    assert ours == etree.tostring(create_root_node(text or "<html/>", etree.HTMLParser))


@pytest.mark.parametrize("text", PARSEL_CASES + (
    "x", " ", "\u3000a\u2003", "\x1c\x1d\x1e\x1f\x85a\x85", " " * 63 + "a" + "\n" * 64,
    "\u2003" * 64 + "é" + " \u00a0" * 70, " " * 200, "\U0001F600 ", "a\u200b",
    # Runs that end at, cross or fill the window of bytes looked at (256), a character
    # cut by the window's edge, and bodies shorter and longer than one or two windows.
    " " * 255 + "é" + " " * 300, " " * 256 + "a", "a" + " " * 256, "\u3000" * 85 + "\u2003a",
    " " * 200 + "a" + " " * 200, "é" * 200 + " ", " " * 254 + "\U0001F600", " " * 600,
    "\n" * 300 + "<p>x</p>" + "\u00a0" * 300, "a" + "é" * 127 + " ",
))
def test_whitespace_is_cut_from_the_bytes_as_str_strip_cuts_it(text):
    from scrapy_declutter.page import _strip_utf8

    assert _strip_utf8(text.encode("utf-8")) == text.strip().encode("utf-8")


@pytest.fixture
def trees(monkeypatch) -> list[str | None]:
    """The URL of every Page built through ``Page.from_tree``."""
    calls: list[str | None] = []
    real = Page.from_tree.__func__

    def counting(cls, root, url=None, **kwargs):
        calls.append(url)
        return real(cls, root, url, **kwargs)

    monkeypatch.setattr(Page, "from_tree", classmethod(counting))
    return calls


def _analyse(response: HtmlResponse):
    from scrapy_declutter.integration.analyser import Analyser
    from scrapy_declutter.integration.settings import DeclutterOptions

    content_type = response.headers.get(b"Content-Type")
    options = DeclutterOptions(extractor="density", site_learning=False)
    analyser = Analyser(None)
    return analyser.analyse(analyser.page_of_response(
        response.body, content_type.decode() if content_type else None,
        lambda: response.selector.root, lambda: response.text, response.url, options), options)


def test_every_way_in_ends_in_from_tree(trees):
    from scrapy_declutter import Declutter

    html = "<html><body><p>" + "Plenty of words in one paragraph here. " * 5 + "</p></body></html>"
    extract(html, "https://a.example/1")
    with Declutter("density", store="memory:") as dec:
        dec.extract(html, "https://a.example/2")
    response = HtmlResponse("https://a.example/3", body=html.encode(), encoding="utf-8")
    Page.from_response(response)
    _analyse(HtmlResponse("https://a.example/4", body=html.encode(), encoding="utf-8"))
    assert trees == [f"https://a.example/{i}" for i in range(1, 5)]


def test_a_too_deep_page_is_parsed_twice_at_most_on_every_path(parses):
    html = deep_page(5_000)
    expected = ["Before the pit.", "At the bottom.", "After the pit."]
    assert [b.text for b in extract(html, "https://a.example/x").blocks] == expected
    assert len(parses) == 2  # the page, then its flat re-reading
    parses.clear()
    response = HtmlResponse("https://a.example/x", body=html.encode(), encoding="utf-8")
    result = _analyse(response)
    assert [b.text for b in result.blocks] == expected
    assert len(parses) == 2  # Scrapy's selector, then the flat re-reading
    assert result.reason.startswith("too_deep")


def test_the_scrapy_path_parses_nothing_scrapy_has_not(parses):
    html = "<html><body><p>" + "Plenty of words in one paragraph here. " * 5 + "</p></body></html>"
    response = HtmlResponse("https://a.example/x", body=html.encode(), encoding="utf-8")
    assert _analyse(response).text
    assert len(parses) == 1  # response.selector's own
    response.css("p").get()
    assert len(parses) == 1  # the spider reuses it


def test_a_lying_charset_is_repaired_with_one_parse_of_the_repaired_text(parses):
    text = "Привет, мир: это длинный русский текст, и его здесь достаточно много слов"
    body = f"<html><body><p>{text}</p></body></html>".encode("cp1251")
    response = HtmlResponse("https://a.example/x", body=body,
                            headers={"Content-Type": "text/html; charset=utf-8"})
    result = _analyse(response)
    assert result.blocks[0].text == text
    assert len(parses) == 1  # the repaired text; Scrapy's garbled tree is never built


#: (body, Content-Type) pairs around each rule of ``decode_html`` that ``decodes_as_utf8``
#: must follow: BOMs, UTF-16 without one, a header over a meta, legacy charsets over ASCII
#: and over UTF-8 bytes, invalid sequences, surrogates, and nothing declared.
DECODING_CASES = (
    ("<p>café ’</p>".encode(), None),
    (b"<p>plain</p>", None),
    ("\ufeff<p>naïve</p>".encode(), None),
    ("<p>x</p>".encode("utf-16-le"), None),
    ("<p>x</p>".encode("utf-16"), None),
    ('<meta charset="iso-8859-1"><p>café</p>'.encode(), None),
    ('<meta charset="iso-8859-1"><p>cafe</p>'.encode(), None),
    ('<meta charset="iso-8859-1"><p>café</p>'.encode("latin-1"), None),
    ("<p>café</p>".encode(), "text/html; charset=windows-1251"),
    ("<p>café</p>".encode("latin-1"), "text/html; charset=utf-8"),
    ('<meta charset="utf-8"><p>caf\xe9 \xe9t\xe9</p>'.encode("latin-1"), None),
    ('<meta charset="utf-16"><p>x</p>'.encode(), None),
    ('<meta charset="no-such-thing"><p>é</p>'.encode(), "text/html; charset=bogus"),
    (b"<p>\xed\xa0\x80</p>", None),
    (b"<p>\xef\xbf\xbd replaced</p>", None),
    ("  \u3000<p>\x00x</p>\n\u00a0".encode(), None),
)


@pytest.mark.parametrize("body, content_type", DECODING_CASES + tuple(
    (gzip.decompress(p.read_bytes()), None) for p in sorted(WCXB_SAMPLES.glob("*.html.gz"))))
def test_a_body_said_to_decode_as_utf8_is_decoded_so_and_parses_to_the_same_tree(body, content_type):
    from lxml import etree

    from scrapy_declutter.page import parse_html, parse_utf8
    from scrapy_declutter.sniff import _is_utf8, decodes_as_utf8

    if _is_utf8 is None:
        pytest.skip("built without a compiler: every body is decoded")
    text = decode_html(body, content_type)
    if not decodes_as_utf8(body, content_type):
        assert text != body.decode("utf-8", "replace") or body.startswith(b"\xef\xbb\xbf") or (
            body.isascii())  # a legacy charset over ASCII bytes: the same text, decoded
        return
    assert text == body.decode("utf-8")
    assert etree.tostring(parse_utf8(body)) == etree.tostring(parse_html(text))


def test_most_cases_take_the_bytes_and_the_rest_are_decoded():
    from w3lib.encoding import html_body_declared_encoding

    from scrapy_declutter.sniff import _is_utf8, decodes_as_utf8

    if _is_utf8 is None:
        pytest.skip("built without a compiler: every body is decoded")
    taken = [decodes_as_utf8(body, content_type) for body, content_type in DECODING_CASES]
    # The HTML standard reads a <meta> that declares UTF-16 as UTF-8, and so does w3lib from
    # 2.6 (2.5 answered "utf-16" and the body was decoded): the twelfth case follows w3lib.
    meta_utf16_is_utf8 = html_body_declared_encoding(DECODING_CASES[11][0]) == "utf-8"
    assert taken == [True, True, False, False, False, True, False, False, True, False, False,
                     meta_utf16_is_utf8, True, False, True, True]


def test_a_page_from_its_bytes_has_the_blocks_of_a_page_from_its_decoded_text():
    for path in sorted(WCXB_SAMPLES.glob("*.html.gz")):
        body = gzip.decompress(path.read_bytes())
        ours, theirs = Page.from_html(body), Page.from_html(decode_html(body))
        assert [(b.text, b.xpath) for b in ours.blocks] == [(b.text, b.xpath) for b in theirs.blocks]
        assert ours.blocks and ours.title == theirs.title and ours.language == theirs.language
