"""One scan of the tree for the page-type facts and the content containers (``tree_scan``)
gives what each reader finds walking the tree on its own."""

from __future__ import annotations

import pytest
from conftest import wcxb_page

from scrapy_declutter.page import Page
from scrapy_declutter.steps.learned.features import container_paths
from scrapy_declutter.steps.learned.pagetype import PageFacts, tree_scan

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
