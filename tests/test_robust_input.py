"""Bad input at the core: every kind of broken page gets a defined Result, a reason and a log line."""

from __future__ import annotations

import gzip
import json
import logging

import pytest
from parsel import Selector

from scrapy_declutter import Page, UnknownExtractorError, extract
from scrapy_declutter.limits import Limits, reason_kind
from scrapy_declutter.sniff import MAX_CONTROL_RATIO, SNIFF_BYTES, decode_html, sniff_binary, sniff_text

URL = "https://example.com/page"
LONG = "This paragraph has plenty of ordinary words so that any extractor keeps it as content. " * 3


def words_of(result) -> str:
    return " ".join(b.text for b in result.blocks)


def assert_passed_through(result, kind: str) -> None:
    assert reason_kind(result.reason) == kind, result.reason
    assert result.text == "" and result.blocks == []
    json.dumps(result.as_dict())


# -- empty, binary ---------------------------------------------------------------------
@pytest.mark.parametrize("body", [b"", "", b"   \n\t\r\n  " * 50, " \n "],
                         ids=["empty-bytes", "empty-str", "whitespace-bytes", "whitespace-str"])
def test_empty_and_whitespace_bodies_are_passed_through_with_a_reason(body, caplog):
    with caplog.at_level(logging.INFO, logger="scrapy_declutter"):
        result = extract(body, URL)
    assert_passed_through(result, "empty")
    assert URL in caplog.text and "empty" in caplog.text


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 20
GZIP = gzip.compress(b"<html><body><p>compressed twice</p></body></html>" * 50, mtime=0)
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj <</Type/Catalog>> endobj\n" + bytes(range(256)) * 20


@pytest.mark.parametrize("body,kind", [(PNG, "png"), (GZIP, "gzip"), (PDF, "pdf")],
                         ids=["png", "gzip", "pdf"])
def test_binary_served_as_html_is_refused_by_its_signature(body, kind, caplog):
    with caplog.at_level(logging.WARNING, logger="scrapy_declutter"):
        result = extract(body, URL, content_type="text/html; charset=utf-8")
    assert_passed_through(result, "binary")
    assert kind in result.reason
    assert URL in caplog.text


def test_unknown_binary_is_refused_by_its_control_bytes():
    soup = bytes(range(256)) * 40  # no known signature
    assert sniff_binary(soup).startswith("binary:")
    assert_passed_through(extract(soup, URL), "binary")


def test_binary_already_decoded_to_text_is_refused_too():
    assert_passed_through(extract(PNG.decode("latin-1"), URL), "binary")


@pytest.mark.parametrize("filler", ["x", "\u00e9", "\u4e2d", "\U0001f600", "\ud800"])
def test_decoded_text_is_binary_by_its_share_of_control_characters(filler):
    # Counted in the head's UTF-8 bytes: other characters, wide or a lone surrogate, add none.
    limit = int(MAX_CONTROL_RATIO * SNIFF_BYTES)
    for control, binary in ((limit, False), (limit + 1, True)):
        head = "\x01\x1f" * (control // 2) + "\x02" * (control % 2)
        text = head + filler * (SNIFF_BYTES - len(head)) + "\x01" * 500  # past the head: not read
        assert sniff_text(text).startswith("binary:") is binary, (filler, control)
        if binary:
            assert f"{control} control characters" in sniff_text(text)


def test_html_with_nul_bytes_is_text_and_the_nuls_vanish():
    body = b"<html><body><p>hel\x00lo wor\x00ld</p>\x00\x00<p>" + LONG.encode() + b"</p></body></html>"
    result = extract(body, URL)
    assert result.reason == ""
    assert result.blocks[0].text == "hello world"
    assert "\x00" not in result.text and LONG.split()[0] in result.text


def test_html_dense_with_nuls_is_still_text_but_random_bytes_are_not():
    import os

    assert sniff_binary(b"<p>hel\x00lo wor\x00ld</p>" * 500) == ""  # 10 % NULs
    assert extract(b"<p>hel\x00lo wor\x00ld</p>" * 500, URL).blocks[0].text == "hello world"
    assert sniff_binary(os.urandom(4096)).startswith("binary:")
    assert sniff_binary(b"\x00" * 3000 + b"<p>padding</p>").startswith("binary:")


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_pages_with_or_without_bom_are_decoded_not_refused(codec):
    body = f"<html><body><p>{LONG}</p><p>Ünïcödé</p></body></html>".encode(codec)
    result = extract(body, URL)
    assert result.reason == ""
    assert "Ünïcödé" in words_of(result)


# -- charsets that lie -------------------------------------------------------------------
RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 8
JAPANESE = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。" * 8


@pytest.mark.parametrize("text,codec", [(RUSSIAN, "cp1251"), (JAPANESE, "shift_jis")])
def test_a_utf8_header_over_other_bytes_is_repaired(text, codec):
    body = f"<html><body><p>{text}</p></body></html>".encode(codec)
    result = extract(body, URL, content_type="text/html; charset=utf-8")
    assert result.reason == ""
    assert words_of(result) == " ".join(text.split())
    assert "\ufffd" not in words_of(result)


def test_the_pages_own_meta_charset_is_preferred_when_the_header_lies():
    body = (f'<html><head><meta charset="koi8-r"></head><body><p>{RUSSIAN}</p></body></html>'
            .encode("koi8-r"))
    assert " ".join(RUSSIAN.split()) in decode_html(body, "text/html; charset=UTF-8")


def test_one_stray_byte_in_a_utf8_page_keeps_utf8():
    body = f"<p>{RUSSIAN}</p><p>caf\x92</p>".encode().replace(b"\xc2\x92", b"\x92")
    text = decode_html(body, "text/html; charset=utf-8")
    assert RUSSIAN.split()[0] in text and "caf\ufffd" in text


def test_a_latin1_header_over_utf8_bytes_is_read_as_utf8():
    body = "<p>naïve café, Zürich — “quoted”</p>".encode()
    assert "naïve café, Zürich — “quoted”" in decode_html(body, "text/html; charset=ISO-8859-1")


def test_real_latin1_bytes_under_a_latin1_header_stay_latin1():
    body = "<p>naïve café crème</p>".encode("latin-1")
    assert "naïve café crème" in decode_html(body, "text/html; charset=ISO-8859-1")


CHINESE = "谷歌在2014年收购的人工智能公司开发出一款能够用自己的记忆学习新知识的计算机。" * 8


@pytest.mark.parametrize("meta", ["gb2312", "windows-1251", "big5", "shift_jis"])
def test_utf8_bytes_under_another_meta_charset_are_read_as_utf8(meta):
    # Readability's qq.com test page: re-saved as UTF-8, still declaring GB2312.
    body = f'<html><head><meta charset="{meta}"></head><body><p>{CHINESE}</p></body></html>'.encode()
    assert " ".join(CHINESE.split()) in decode_html(body)


@pytest.mark.parametrize("text,codec", [(CHINESE, "gbk"), (RUSSIAN, "cp1251"), (JAPANESE, "shift_jis")])
def test_real_legacy_bytes_under_their_meta_charset_stay_theirs(text, codec):
    body = f'<html><head><meta charset="{codec}"></head><body><p>{text}</p></body></html>'.encode(codec)
    assert " ".join(text.split()) in decode_html(body)


@pytest.mark.parametrize("meta", ["gb2312", "iso-8859-1"])
def test_redecoded_repairs_what_scrapy_decoded_with_a_lying_meta_charset(meta):
    from scrapy.http import HtmlResponse

    from scrapy_declutter.sniff import redecoded

    body = (f'<html><head><meta charset="{meta}"></head><body><p>{CHINESE}</p><p>naïve café</p>'
            "</body></html>").encode()
    response = HtmlResponse(URL, body=body, headers={"Content-Type": "text/html"})
    assert "naïve café" not in response.text  # Scrapy follows the <meta>
    better = redecoded(body, "text/html", response.text)
    assert better is not None and "naïve café" in better and CHINESE.split()[0] in better


def test_redecoded_repairs_what_scrapy_decoded_with_a_lying_header():
    from scrapy.http import HtmlResponse

    from scrapy_declutter.sniff import redecoded

    body = f"<html><body><p>{RUSSIAN}</p></body></html>".encode("cp1251")
    response = HtmlResponse(URL, body=body, headers={"Content-Type": "text/html; charset=utf-8"})
    assert "\ufffd" in response.text
    better = redecoded(body, "text/html; charset=utf-8", response.text)
    assert better is not None and " ".join(RUSSIAN.split()) in " ".join(better.split())
    good = HtmlResponse(URL, body=f"<p>{RUSSIAN}</p>".encode(), headers={"Content-Type": "text/html; charset=utf-8"})
    assert redecoded(good.body, "text/html; charset=utf-8", good.text) is None


# -- size, depth, width -------------------------------------------------------------------
def test_a_20mb_page_is_refused_unparsed(caplog):
    body = b"<html><body>" + b"<p>" + b"lorem ipsum dolor sit amet " * 800_000 + b"</p></body></html>"
    assert len(body) > 20_000_000
    with caplog.at_level(logging.WARNING, logger="scrapy_declutter"):
        result = extract(body, URL)
    assert_passed_through(result, "too_large")
    assert "too_large" in caplog.text and URL in caplog.text


def test_caps_are_passed_by_keyword():
    html = f"<html><body><p>{LONG}</p></body></html>"
    assert reason_kind(Page.from_html(html, URL, limits=Limits(max_bytes=100)).reason) == "too_large"
    assert Page.from_html(html, URL, limits=Limits(max_bytes=10_000)).reason == ""


def deep_page(depth: int) -> str:
    return ("<html><body><p>Before the pit.</p>" + "<div>" * depth + "<p>At the bottom.</p>"
            + "</div>" * depth + "<p>After the pit.</p></body></html>")


def test_100000_levels_of_nesting_keep_their_text_flattened(caplog):
    with caplog.at_level(logging.WARNING, logger="scrapy_declutter"):
        result = extract(deep_page(100_000), URL)
    assert reason_kind(result.reason) == "too_deep"
    assert [b.text for b in result.blocks] == ["Before the pit.", "At the bottom.", "After the pit."]
    assert "too_deep" in caplog.text


def test_a_too_deep_tree_from_scrapy_is_segmented_as_far_as_the_parser_went():
    root = Selector(text=deep_page(5_000)).root  # what response.selector.root holds
    page = Page.from_tree(root, URL)
    assert reason_kind(page.reason) == "too_deep"
    assert page.blocks[0].text == "Before the pit."
    assert "After the pit." not in [b.text for b in page.blocks]


def test_a_too_deep_tree_with_its_text_is_re_read_flat():
    html = deep_page(5_000)
    page = Page.from_tree(Selector(text=html).root, URL, source=lambda: html)
    assert page.reason.endswith("text re-read without nesting")
    assert [b.text for b in page.blocks] == ["Before the pit.", "At the bottom.", "After the pit."]


# -- a damaged head (an unclosed <title>, a stray element) that swallowed the body -----
# Modelled on L3S-GN1 pages that lost a chunk of their head (0014, 0582): libxml2
# then builds no <body>, and the page had no text at all.
STORY = "<div id='story'>" + f"<p>{LONG}</p>" * 3 + "</div>"
UNCLOSED_TITLE = ("<html><head><title>Golfer wins the title(The Times)ntById('font'); obj.size = 3; "
                  + "var x = 1; " * 150 + "</script></head><body>" + STORY + "</body></html>")
STRAY_IN_HEAD = "<html><head><title>Golfer wins</title><meta name='a' content='b'><mbox>" + STORY + "</html>"


@pytest.mark.parametrize("html, damage", [(UNCLOSED_TITLE, "unclosed <title>"), (STRAY_IN_HEAD, "cannot hold")],
                         ids=["unclosed-title", "stray-element"])
def test_a_body_swallowed_by_a_damaged_head_is_read_again(html, damage, caplog):
    assert Selector(text=html).root.find("body") is None  # the damage, as the parser sees it
    with caplog.at_level(logging.WARNING, logger="scrapy_declutter"):
        result = extract(html, URL)
    assert reason_kind(result.reason) == "damaged_head" and damage in result.reason
    assert result.text.count("plenty of ordinary words") == 9
    assert "plenty" not in result.title and result.title.startswith("Golfer wins")
    assert f"reads {URL} as best it can: damaged_head" in caplog.text


def test_the_scrapy_tree_of_a_damaged_head_is_read_again_and_left_as_it_was():
    root = Selector(text=STRAY_IN_HEAD).root
    page = Page.from_tree(root, URL, source=lambda: STRAY_IN_HEAD)
    assert reason_kind(page.reason) == "damaged_head" and len(page.blocks) == 3
    assert root.find("body") is None and root.find("head/mbox") is not None  # the caller's tree
    assert Page.from_tree(Selector(text=UNCLOSED_TITLE).root, URL, source=UNCLOSED_TITLE).blocks


def test_a_head_that_swallowed_nothing_is_not_read_again():
    short_title = "<html><head><title>A title <b>with</b> markup, but short</title></head></html>"
    for html in (short_title, "<html><head><title>Only a head</title><meta name='a'></head></html>"):
        assert reason_kind(extract(html, URL).reason) == "no_text"
    assert Page.from_html(UNCLOSED_TITLE.replace("</script></head>", "</title></head>"), URL).reason == ""


def test_nesting_the_parser_handles_is_not_flagged():
    page = Page.from_html(deep_page(1_500), URL)
    assert page.reason == ""
    assert [b.text for b in page.blocks][-1] == "After the pit."


def test_a_5mb_text_node_is_one_block():
    body = "<html><body><p>" + "word " * 1_000_000 + "</p></body></html>"
    result = extract(body, URL)
    assert result.reason == ""
    assert len(result.blocks) == 1 and result.blocks[0].words == 1_000_000


def test_200000_siblings_are_refused_before_segmentation(caplog):
    body = "<html><body>" + "<p>x y</p>" * 200_000 + "</body></html>"
    with caplog.at_level(logging.WARNING, logger="scrapy_declutter"):
        result = extract(body, URL)
    assert_passed_through(result, "too_many_elements")
    assert "200003 > 50000" in result.reason


def test_one_parent_with_too_many_children_is_refused():
    body = "<html><body><ul>" + "<li>x</li>" * 300 + "</ul></body></html>"
    page = Page.from_html(body, URL, limits=Limits(max_children=200))
    assert reason_kind(page.reason) == "too_wide" and page.blocks == []
    assert Page.from_html(body, URL, limits=Limits(max_children=400)).reason == ""


# -- markup a browser forgives ------------------------------------------------------------------
@pytest.mark.parametrize("html,expected", [
    ("<html><body><div><p>unclosed <b>bold <i>italic<p>second para", ["unclosed bold italic", "second para"]),
    ("<html><body><p>before</p></html><p>after a stray end tag</p>", ["before", "after a stray end tag"]),
    ("<p>first</p></body></html></html><p>after stray ends</p>", ["first", "after stray ends"]),
    ("<html><body><p>outer</p><html><body><p>inner</p></body></html></body></html>", ["outer", "inner"]),
    ("<table><tr><td>cell one<td>cell two</table><p>under", ["cell one", "cell two", "under"]),
])
def test_malformed_markup_gives_the_text_in_order(html, expected):
    result = extract(html, URL)
    assert result.reason == ""
    assert [b.text for b in result.blocks] == expected


def test_text_after_a_stray_end_tag_may_hold_control_characters():
    # Found by ``scrapy-declutter fuzz``: lxml keeps them in parsed text but refuses to set them.
    result = extract(b"<p>first</p></html>\x01stray \x02text<p>after</p>", URL)
    assert result.reason == ""
    assert [b.text for b in result.blocks] == ["first", "\x01stray \x02text", "after"]


def test_xhtml_served_as_xml_is_read_as_html():
    body = ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0'
            ' Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="de"><head><title>Titel</title></head>'
            f'<body><p>Zürich {LONG}</p><br/><script>var x = "<p>no</p>";</script></body></html>').encode()
    result = extract(body, URL, content_type="application/xhtml+xml")
    assert result.reason == "" and result.title == "Titel"
    assert result.text.startswith("Zürich This paragraph") and "no" not in result.text.split()


def test_right_to_left_and_cjk_pages_keep_their_text():
    arabic = "هذا نص عربي طويل بما فيه الكفاية ليكون محتوى الصفحة الرئيسي في هذا الاختبار. " * 5
    chinese = "这是一个很长的中文段落，用于测试从右到左和中日韩文字的处理是否正确。" * 5
    for lang, text in (("ar", arabic), ("zh", chinese)):
        html = f"<html lang='{lang}' dir='rtl'><body><p>{text}</p></body></html>"
        result = extract(html.encode("utf-8"), URL)
        assert result.reason == ""
        assert result.blocks[0].text == " ".join(text.split())


def test_base_href_changes_nothing_in_the_result():
    plain = f"<html><head></head><body><p><a href='x'>link</a> {LONG}</p></body></html>"
    based = plain.replace("<head></head>", "<head><base href='https://elsewhere.example/'></head>")
    a, b = extract(plain, URL), extract(based, URL)
    assert b.url == URL and b.site == "example.com"
    assert [x.as_dict() for x in a.blocks] == [x.as_dict() for x in b.blocks]


def test_a_frameset_page_has_no_text_of_its_own():
    html = ("<html><head><title>Frames</title></head><frameset cols='50%,50%'><frame src='a.html'>"
            "<frame src='b.html'><noframes><body><p>Your browser lacks frames.</p></body></noframes>"
            "</frameset></html>")
    result = extract(html, URL)
    assert_passed_through(result, "frameset")
    assert result.title == "Frames"


def test_a_page_without_text_says_so():
    result = extract("<html><body><img src='a.png'><div><span></span></div></body></html>", URL)
    assert_passed_through(result, "no_text")


# -- the public boundary -----------------------------------------------------------------------
def test_no_exception_escapes_extract_and_it_is_logged_with_the_url(monkeypatch, caplog):
    from scrapy_declutter import page as page_module

    def broken(root):
        raise RuntimeError("segmentation exploded")

    monkeypatch.setattr(page_module, "segment", broken)
    with caplog.at_level(logging.ERROR, logger="scrapy_declutter"):
        result = extract(f"<p>{LONG}</p>", URL)
    assert_passed_through(result, "error")
    assert "RuntimeError" in result.reason and "segmentation exploded" in result.reason
    assert URL in caplog.text and "Traceback" in caplog.text


def test_an_unknown_extractor_is_still_the_callers_error():
    with pytest.raises(UnknownExtractorError):
        extract("<p>x</p>", URL, extractor="no-such-extractor")


def test_an_ordinary_page_has_no_reason(wcxb):
    html, _ = wcxb("0082")
    result = extract(html, URL)
    assert result.reason == "" and result.text
