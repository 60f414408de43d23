"""Segmentation: block boundaries, inline tags, invisible content, and the block features."""

from __future__ import annotations

import gzip

import pytest

from conftest import SAMPLE_DATA

from scrapy_declutter import Page
from scrapy_declutter.blocks import class_tokens, name_tokens, subtree_prefixes
from scrapy_declutter.segment import BLOCK_TAGS, WRAP_WIDTH, segment, wrapped_lines


def texts(html: str) -> list[str]:
    return [b.text for b in Page.from_html(html).blocks]


@pytest.mark.parametrize("tag", sorted(BLOCK_TAGS - {"html", "body", "title", "hr", "col", "select", "option", "optgroup", "textarea"}))
def test_each_block_tag_starts_and_ends_a_block(tag):
    html = f"<html><body>before<{tag}>inside</{tag}>after</body></html>"
    assert texts(html) == ["before", "inside", "after"]


def test_two_br_split_a_block_but_one_does_not():
    assert texts("<body><p>one<br>two<br><br>three<br/> <br/>four</p></body>") == [
        "one two", "three", "four"]


def test_inline_tags_stay_inside_the_block():
    html = "<p>A <a href='#'>link</a>, <span>span</span>, <b>bold</b>, <em>em</em>, <strong>s</strong> and <code>x()</code>.</p>"
    assert texts(html) == ["A link, span, bold, em, s and x()."]


def test_inline_tags_add_no_space_a_browser_would_not_show():
    assert texts("<p>un<b>believ</b>able</p>") == ["unbelievable"]


@pytest.mark.parametrize("tag", ["script", "style", "template", "svg", "iframe"])
def test_invisible_elements_never_produce_text(tag):
    html = f"<body><p>seen <{tag}>hidden words</{tag}> also seen</p></body>"
    assert texts(html) == ["seen also seen"]


def test_noscript_text_is_what_a_crawler_sees():
    html = "<body><noscript><div class=post>The post a reader without scripts gets.</div></noscript></body>"
    assert texts(html) == ["The post a reader without scripts gets."]


def test_text_written_in_noscript_is_a_block_of_its_own():
    # What a parser that ran scripts saved: the fallback as escaped markup, in the box around it.
    html = ("<body><div class=mainBox><noscript>&lt;p&gt;JavaScript is off.&lt;/p&gt;</noscript>"
            "Read on.</div></body>")
    page = Page.from_html(html)
    assert [(b.tag, b.text) for b in page.blocks] == [("noscript", "<p>JavaScript is off.</p>"),
                                                      ("div", "Read on.")]
    assert page.blocks[0].xpath == "/html/body/div/noscript"


def test_a_noscript_without_text_stays_inline():
    # A lazy loader's fallback image: the line and its images stay one block.
    html = ("<body><p>Rated 4.6 <img data-src=star.png><noscript><style>.lazy{}</style>"
            "<img src=star.png><!-- pixel --> </noscript> by 3308 readers</p></body>")
    [block] = Page.from_html(html).blocks
    assert (block.tag, block.text) == ("p", "Rated 4.6 by 3308 readers")
    assert block.images == (("", "star.png"), ("", "star.png"))


def test_head_and_comments_never_produce_text():
    html = "<html><head><title>T</title><meta name=x></head><body><p>a<!-- secret -->b</p><!-- gone --></body></html>"
    page = Page.from_html(html)
    assert [b.text for b in page.blocks] == ["ab"]
    assert page.title == "T"


def test_whitespace_is_normalised():
    assert texts("<p>  many \n\t spaces   here </p>") == ["many spaces here"]


def test_link_density_counts_words_inside_anchors():
    (b,) = Page.from_html("<p>one two <a href=x>three four</a> five</p>").blocks
    assert (b.words, b.link_words) == (5, 2)
    assert b.link_density == pytest.approx(2 / 5)
    assert b.link_chars == len("three four")


def test_nested_block_text_goes_to_the_innermost_block():
    blocks = Page.from_html("<div id=outer>lead<p>para</p>trail</div>").blocks
    assert [(b.tag, b.text) for b in blocks] == [("div", "lead"), ("p", "para"), ("div", "trail")]
    assert blocks[1].xpath == "/html/body/div/p"


TRICKY_PATHS = """<html><body>
<div>one</div><!-- c --><div>two<p>a</p><p>b<br><br>c</p><span><div>deep</div></span></div>
<ul><li>x</li><script>s</script><li><b>y</b></li></ul><section><p>only</p></section>
<table><tr><td>1</td><td>2</td></tr></table><div>three</div><p>tail</p>
</body></html><html><p>after the first html</p></html>"""


def test_block_xpaths_count_same_tag_siblings_only():
    paths = [b.xpath for b in Page.from_html(TRICKY_PATHS).blocks]
    assert paths == [
        "/html/body/div[1]", "/html/body/div[2]", "/html/body/div[2]/p[1]",
        "/html/body/div[2]/p[2]", "/html/body/div[2]/p[2]", "/html/body/div[2]/span/div",
        "/html/body/ul/li[1]", "/html/body/ul/li[2]", "/html/body/section/p",
        "/html/body/table/tr/td[1]", "/html/body/table/tr/td[2]", "/html/body/div[3]",
        "/html/body/p", "/html/body/div[4]/p",
    ]


def test_text_after_the_body_comes_before_text_after_the_html():
    """libxml2 keeps what follows ``</body>`` in the root and what follows ``</html>`` in a
    second root; a browser shows both in the body, in the page's order."""
    html = ("<html><body><p>in the body</p></body>after the body<p>and a paragraph</p>"
            "<script>s</script></html><p>after the html</p>")
    assert [b.text for b in Page.from_html(html).blocks] == [
        "in the body", "after the body", "and a paragraph", "after the html"]
    # Nothing visible after </body>: what follows </html> joins the body, as before.
    page = Page.from_html("<html><body><p>in</p></body><script>s</script></html><p>after</p>")
    assert [(b.xpath, b.text) for b in page.blocks] == [("/html/body/p", "in"), ("/html/body/div/p", "after")]


@pytest.mark.parametrize("path", sorted((SAMPLE_DATA / "wcxb").glob("*.html.gz")), ids=lambda p: p.name)
def test_block_xpaths_are_the_ones_lxml_getpath_writes(path):
    """The walk builds XPaths from its own sibling counts; they must be, word for word,
    what ``getpath`` writes for an element (the tree filter and site supervision compare
    them). Not every one is a valid XPath: a tag the parser took from ``class="row"`` is
    written as is, by both."""
    page = Page.from_html(gzip.decompress(path.read_bytes()))
    written = {page.root.getroottree().getpath(el) for el in page.root.iter()}
    assert page.blocks
    assert [b.xpath for b in page.blocks if b.xpath not in written] == []


def test_subtree_prefixes_match_the_element_and_its_descendants_only():
    prefixes = subtree_prefixes(["/html/body/div[1]", "/html/body/main"])
    inside = ["/html/body/div[1]", "/html/body/div[1]/p", "/html/body/main/article/p[2]"]
    outside = ["/html/body/div[10]", "/html/body/div[10]/p", "/html/body", "/html/body/mainly"]
    assert [(x + "/").startswith(prefixes) for x in inside] == [True] * 3
    assert [(x + "/").startswith(prefixes) for x in outside] == [False] * 4
    assert not "/html/body/p/".startswith(subtree_prefixes([]))


def test_ancestors_carry_tag_id_and_classes_root_first():
    (b,) = Page.from_html("<body><div id=main class='post Entry'><p class=lede>x</p></div></body>").blocks
    assert [a.tag for a in b.ancestors] == ["html", "body", "div", "p"]
    assert b.ancestors[2].id == "main" and b.ancestors[2].classes == ("post", "Entry")
    assert b.tokens() == ["main", "post", "entry", "lede"]


def test_id_and_class_names_split_into_tokens_one_way():
    assert name_tokens("Post-Content__body") == ["post", "content", "body"]
    assert name_tokens("col-md-6 h2 x") == ["col", "md", "h2"]  # one-letter pieces dropped
    assert class_tokens("post-content__body", ("nav_menu", "X1")) == {
        "post", "content", "body", "nav", "menu", "x1"}
    assert class_tokens("", ()) == set()
    (b,) = Page.from_html("<div id=main-wrap><p class='entry-body x'>text</p></div>").blocks
    assert b.tokens() == ["main", "wrap", "entry", "body"]


def test_kohlschuetter_text_density_by_hand():
    # 30 words of 4 letters: "wwww " is 5 columns, so 16 words fill the first 80 columns,
    # the 17th opens line 2, and the last (partial) line is left out.
    words = ["wwww"] * 30
    assert wrapped_lines(words) == (16, 1)
    (b,) = Page.from_html("<p>" + " ".join(words) + "</p>").blocks
    assert b.text_density == 16.0
    # A block shorter than one line: words / 1 line.
    assert wrapped_lines(["short", "text"]) == (2, 1)
    assert WRAP_WIDTH == 80


def test_char_density_counts_markup_without_brackets():
    (b,) = Page.from_html('<body><p class="x">hello <b>you</b></p></body>').blocks
    # Markup is counted as the seed counts it, brackets excluded: "p" + "/p",
    # ' class="x"' (name, value, space, "=", two quotes), then "b" + "/b".
    markup = (2 * 1 + 1) + (len("class") + len("x") + 4) + (2 * 1 + 1)
    assert b.markup_chars == markup
    assert b.char_density == pytest.approx((len("hello you") + 1) / (len("hello you") + markup + 1))


def test_positions_and_indices_follow_document_order():
    blocks = Page.from_html("<p>a</p><p>b</p><p>c</p><p>d</p>").blocks
    assert [b.index for b in blocks] == [0, 1, 2, 3]
    assert [b.position for b in blocks] == [0.0, 0.25, 0.5, 0.75]


def test_stopword_density_uses_the_page_language():
    en = Page.from_html("<html lang=en><p>the cat and the dog</p></html>").blocks[0]
    assert (en.stopwords, en.words) == (3, 5)
    de = Page.from_html("<html lang=de-AT><p>der Hund und die Katze</p></html>")
    assert de.language == "de" and de.blocks[0].stopwords == 3


def test_set_label_records_every_decision_in_the_trail():
    (b,) = Page.from_html("<p>x</p>").blocks
    assert b.label == "boilerplate"
    b.set_label("content", 0.9, "s1")
    b.set_label("content", 0.8, "s2")
    assert (b.label, b.score, b.step) == ("content", 0.8, "s2")
    assert b.trail == (("s1", "content"), ("s2", "content"))
    with pytest.raises(ValueError):
        b.set_label("maybe", 0.5, "s3")


def test_segment_is_iterative_on_deep_trees():
    from lxml import etree

    root = etree.Element("html")
    el = root
    for _ in range(5000):  # deeper than Python's recursion limit
        el = etree.SubElement(el, "div")
    el.text = "deep"
    (b,) = segment(root)
    assert b.text == "deep" and b.tag == "div"
    assert len(b.ancestors) == 16  # only the nearest ancestors are kept


def test_a_block_whose_own_element_the_markup_hides_says_so():
    from scrapy_declutter.page import Page
    page = Page.from_html(
        b"<html><body><p>Shown text.</p><p hidden>Attribute.</p><p style='Display: NONE !important'>"
        b"Style.</p><div style='visibility:hidden'>Box.<p>Inside the box.</p></div>"
        b"<p style='--display:none; color: red'>Custom property.</p></body></html>", "http://t.test/")
    assert {b.text: b.hidden for b in page.blocks} == {
        "Shown text.": False, "Attribute.": True, "Style.": True, "Box.": True,
        # Only the block's own element counts: a box hidden around it is often shown by script.
        "Inside the box.": False, "Custom property.": False}


@pytest.mark.parametrize("style, hides", [
    ("display:none", True), ("DISPLAY : None", True), ("color: red; display: none !important", True),
    ("visibility: hidden", True), ("display: block", False), ("--display: none", False),
    ("overflow: hidden", False), ("font-family: none", False), ("", False), (None, False)])
def test_style_hides_reads_declarations(style, hides):
    from scrapy_declutter.blocks import style_hides
    assert style_hides(style) is hides
