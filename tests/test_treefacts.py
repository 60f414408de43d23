"""The compiled tree facts (``_treefacts``) against their XPath reference, and the Page
title and element cap read from them."""

from __future__ import annotations

import pytest
from conftest import WCXB_SAMPLES, require_compiled, wcxb_page

from scrapy_declutter import treefacts
from scrapy_declutter.limits import Limits
from scrapy_declutter.page import Page, parse_html
from scrapy_declutter.segment import reference_walk
from scrapy_declutter.sniff import decode_html
from scrapy_declutter.treefacts import python_tree_facts, tree_facts

BUNDLED = sorted(p.name.split(".")[0] for p in WCXB_SAMPLES.glob("*.html.gz"))
ODD = {
    "no title": "<html><body><p>Text only</p></body></html>",
    "title in the body": "<html><head></head><body><title>Late</title><p>x</p></body></html>",
    "empty head title": "<html><head><title> </title></head><body><title>Body</title></body></html>",
    "og:title only": "<html><head><meta property='og:title' content=' The  og '></head><body>x</body></html>",
    "og:title without content first": (
        "<html><head><meta property='og:title'><meta property='og:title' content='second'>"
        "</head><body>x</body></html>"),
    "og:title of another property": (
        "<html><head><meta property='og:titles' content='no'><meta name='og:title' content='no'>"
        "</head><body>x</body></html>"),
    "og:title with an entity": (
        "<html><head><meta property='og:title' content='A &amp; B &#233;t&eacute;'></head></html>"),
    "empty og:title": "<html><head><meta property='og:title' content=''></head><body>x</body></html>",
    "after a stray </html>": (
        "<html><head></head><body><p>one</p></body></html><div><title>After</title>"
        "<meta property='og:title' content='late'><p>two</p></div>"),
    "nested heads": "<html><head><title>A</title></head><body><head><title>B</title></head></body></html>",
    "comments and PIs": "<!-- c --><html><?pi x?><head><!-- t --><title>T</title></head></html>",
}


def _same(a: treefacts.TreeFacts, b: treefacts.TreeFacts) -> bool:
    return (a.elements == b.elements and a.head_title is b.head_title and a.title is b.title
            and a.og_title == b.og_title and type(a.og_title) is type(b.og_title))


def test_compiled_tree_facts_are_built():
    require_compiled(treefacts._compiled, "tree facts")


@pytest.mark.parametrize("file_id", BUNDLED)
def test_compiled_facts_equal_the_xpaths_on_bundled_pages(file_id):
    html, _ = wcxb_page(file_id)
    root = parse_html(decode_html(html))
    got = tree_facts(root)
    assert _same(got, python_tree_facts(root))
    assert got.elements > 50 and got.title is not None


@pytest.mark.parametrize("name", sorted(ODD))
def test_compiled_facts_equal_the_xpaths_on_odd_trees(name):
    root = parse_html(ODD[name])
    if treefacts._compiled is not None:
        assert treefacts._compiled.facts(root) is not None  # not left to the reference
    assert _same(tree_facts(root), python_tree_facts(root))


def test_facts_count_every_top_level_element_and_find_titles_after_a_stray_end():
    root = parse_html(ODD["after a stray </html>"])
    facts = tree_facts(root)
    assert len(list(root.itersiblings())) == 1  # libxml2 made a second <html>
    assert facts.title is not None and facts.title.text == "After" and facts.head_title is None
    assert facts.og_title == "late"
    assert facts.elements == sum(1 for top in (root, *root.itersiblings()) for _ in top.iter("*"))


def test_a_subtree_is_left_to_the_reference():
    root = parse_html("<html><head><title>T</title></head><body><div><p>x</p></div></body></html>")
    div = root.find("body/div")
    if treefacts._compiled is not None:
        assert treefacts._compiled.facts(div) is None
    facts = tree_facts(div)  # ``//`` still reads the whole document
    assert facts.elements == 6 and facts.title.text == "T"


@pytest.mark.parametrize("name", ["title in the body", "og:title only", "og:title with an entity",
                                  "after a stray </html>", "no title"])
def test_page_title_is_the_same_in_the_reference_walk(name):
    page = Page.from_html(ODD[name])
    with reference_walk():
        assert Page.from_html(ODD[name]).title == page.title
    assert page.title == {"title in the body": "Late", "og:title only": "The og",
                          "og:title with an entity": "A & B été", "after a stray </html>": "After",
                          "no title": ""}[name]


def test_the_element_cap_reads_the_counted_elements():
    html = "<html><body>" + "<p>x</p>" * 30 + "</body></html>"
    page = Page.from_html(html, limits=Limits(max_elements=20))
    assert page.reason.startswith("too_many_elements: 33 > 20") and not page.blocks
    root = parse_html(html)
    assert Limits(max_elements=20).check_tree(root) == Limits(max_elements=20).check_tree(
        root, elements=tree_facts(root).elements)


@pytest.mark.parametrize("name", sorted(ODD) + BUNDLED)
def test_the_title_step_reads_the_og_title_the_facts_found(name):
    from scrapy_declutter.steps.title import _og_title, walked_og_title

    html = ODD[name] if name in ODD else decode_html(wcxb_page(name)[0])
    page = Page.from_html(html)
    assert _og_title(page) == walked_og_title(page.root)
    with reference_walk():
        page = Page.from_html(html)
        assert _og_title(page) == walked_og_title(page.root)


@pytest.mark.parametrize("name", sorted(ODD) + BUNDLED)
def test_the_widest_parent_is_what_len_counts(name):
    root = parse_html(ODD[name] if name in ODD else decode_html(wcxb_page(name)[0]))
    facts = tree_facts(root)
    if treefacts._compiled is not None:
        assert facts.widest == max(len(el) for el in root.iter())
    limits = Limits(max_elements=10**6, max_children=min(facts.elements, 3))
    assert limits.check_tree(root, elements=facts.elements, widest=facts.widest) == (
        limits.check_tree(root))


def test_a_page_given_another_tree_lets_the_facts_of_the_old_one_go():
    import sys

    from scrapy_declutter.limits import empty_root
    from scrapy_declutter.page import TREE_FACTS

    page = Page.from_html(ODD["og:title only"])
    old = page.root
    assert page.get(TREE_FACTS)[0] is old
    page.root = old  # the same tree: the facts stay
    assert page.get(TREE_FACTS)[0] is old
    held = sys.getrefcount(old)
    page.root = empty_root()  # what site learning's warm-up does to a held page
    assert page.get(TREE_FACTS) is None and sys.getrefcount(old) < held
