"""One scan of the tree for the page-type facts and the content containers (``tree_scan``)
gives what each reader finds walking the tree on its own, and the compiled scan
(``_treefacts``, alone or in the walk of the page's tree facts) gives what the
pure-Python one (``python_tree_scan``) gives."""

from __future__ import annotations

import gzip

import pytest
from conftest import SAMPLE_DATA, require_compiled, wcxb_page
from lxml import etree

from scrapy_declutter.page import TREE_FACTS, Page, parse_html
from scrapy_declutter.segment import reference_walk
from scrapy_declutter.steps.learned import pagetype
from scrapy_declutter.steps.learned.features import container_paths
from scrapy_declutter.steps.learned.pagetype import PageFacts, python_tree_scan, tree_scan

COMPILED = pagetype._compiled


@pytest.fixture
def compiled_scan():
    require_compiled(COMPILED, "tree scan")

MARKED = (
    "<html><head><meta property='og:type' content='article'>"
    "<script type='application/ld+json'>{\"@type\": \"NewsArticle\"}</script></head><body>"
    "<div role='banner' itemprop='publisher' itemtype='https://schema.org/Organization'>Site</div>"
    "<main><article itemprop='articleBody' role='main' itemscope "
    "itemtype='https://schema.org/NewsArticle'><p>Text of the story, long enough.</p>"
    "<div itemprop='text' role='navigation'><a href='/x'>x</a></div></article></main>"
    "<nav role='navigation'><a href='/'>Home</a></nav>"
    "<aside role='complementary' itemtype='https://schema.org/WPSideBar'><p>More</p></aside>"
    "</body></html>"
)


def _both_ways(page):
    scan = tree_scan(page)
    assert scan == python_tree_scan(page)
    with reference_walk():
        assert PageFacts.of(page, scan) == PageFacts.of(page)
    assert container_paths(page, scan) == container_paths(page)
    return scan


def test_elements_with_several_marks_are_listed_once_in_document_order():
    page = Page.from_html(MARKED, "https://example.com/a")
    scan = _both_ways(page)
    assert [el.tag for el in scan.marked] == ["div", "article", "div", "nav", "aside"]
    assert [v.rsplit("/", 1)[-1] for v in scan.itemtypes] == [
        "Organization", "NewsArticle", "WPSideBar"]
    paths = container_paths(page, scan)
    assert len(paths["in_main"]) == 2 and len(paths["in_chrome_role"]) == 4
    assert len(paths["in_article_body"]) == 2


@pytest.mark.parametrize("file_id", ("0082", "0540", "0619", "0688", "2860"))
def test_one_scan_gives_what_each_reader_finds_on_bundled_pages(file_id):
    html, truth = wcxb_page(file_id)
    _both_ways(Page.from_html(html, truth.get("url")))


def _bundled_pages():
    return sorted(p for p in SAMPLE_DATA.rglob("*") if p.name.endswith((".html", ".html.gz")))


@pytest.mark.parametrize("path", _bundled_pages(), ids=lambda p: str(p.relative_to(SAMPLE_DATA)))
def test_the_compiled_scan_gives_the_reference_on_every_bundled_page(path, compiled_scan):
    data = path.read_bytes()
    page = Page.from_html(gzip.decompress(data) if path.suffix == ".gz" else data)
    found = COMPILED.scan(page.root)
    assert found is not None, "an HTML parse the compiled scan left to the reference"
    counts, kept, marked, itemtypes = found
    reference = python_tree_scan(page)
    assert tuple(counts) == reference.counts
    assert kept == [el for el in page.root.iter(*pagetype.KEPT_TAGS)]
    assert marked == reference.marked and itemtypes == reference.itemtypes
    early = page.get(TREE_FACTS)
    # Analysed: the walk of its tree facts scanned the tree. Not asked of the fuzz inputs
    # (tests/sample_data/fuzz), whose text after </body> leaves the scan to the reference:
    # the same scan, as asserted above, at the reference's cost, on 0 WCXB-dev pages.
    if page.blocks and "fuzz" not in path.parts:
        assert early is not None and early[0] is page.root and early[1].scan is not None, (
            "the tree facts' walk made no scan")
    if early is not None and early[1].scan is not None:
        assert early[1].scan == found


def test_the_scan_of_another_root_is_not_read():
    page = Page.from_html(MARKED)
    facts = page.get(TREE_FACTS)[1]
    assert facts.scan is not None or COMPILED is None
    other = parse_html("<p role='main'>other</p>")
    wrong = facts._replace(scan=([0] * len(pagetype.COUNTED_TAGS), [], [], ["wrong"]))
    page.put(TREE_FACTS, (other, wrong))
    assert tree_scan(page) == python_tree_scan(page)
    assert tree_scan(page).itemtypes != ["wrong"]


def test_a_root_beside_others_gets_no_scan_from_the_facts(compiled_scan):
    root = parse_html("<p role='main'>a</p></html><!-- x --><html role='next'><p>b</p>")
    page = Page.from_tree(root)
    facts = page.get(TREE_FACTS)  # gone with the root when the page took a copy of the document
    assert facts is None or facts[1].scan is None
    assert tree_scan(page) == python_tree_scan(page)


@pytest.mark.parametrize("markup", [
    # A second top-level <html> (the parser's, empty): the attribute XPath reads the whole
    # document, the tag iterator only the root's subtree.
    "<p role='main'>a</p></html><!-- x --><html role='next'>",
    "<?xml version='1.0'?><!DOCTYPE html [<!ENTITY e 'x'>]><html><body><p role='main'>&e;</p>"
    "</body></html>",
    "<html xmlns:x='urn:x'><body><x:main role='main'><p itemprop='text'>a</p></x:main></body></html>",
])
def test_trees_an_html_parse_never_makes_are_left_to_the_reference(markup, compiled_scan):
    if markup.startswith("<p"):
        root = parse_html(markup)
        assert len(list(root.itersiblings())) == 2
    else:
        root = etree.fromstring(markup.encode(), etree.XMLParser(resolve_entities=False))
    page = Page(root=root)
    assert COMPILED.scan(root) is None
    assert tree_scan(page) == python_tree_scan(page)
    assert tree_scan(page).marked
