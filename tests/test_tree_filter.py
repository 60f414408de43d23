"""The tree filter (seed 004): paragraph nodes grouped by their n-th ancestor, largest group kept."""

from __future__ import annotations

import pytest

from scrapy_declutter import extract
from scrapy_declutter.blocks import BOILERPLATE, CONTENT
from scrapy_declutter.lab.metric import word_prf
from scrapy_declutter.page import Page
from scrapy_declutter.registry import build_extractor
from scrapy_declutter.steps.tree import DEFAULT_DEPTH, TreeFilter, group_key

P1 = "Alpha paragraph of the story, with forty chars."
P2 = "Bravo paragraph of the story, with forty chars."
P3 = "Charlie paragraph of the story, forty chars."
ASIDE = "A related article teaser that is longer than any one paragraph here."

PAGE = f"""<html><body>
<div id="nav"><ul><li>Home</li><li>About us</li></ul></div>
<div id="main">
  <article>
    <div class="lead"><p>{P1}</p><p>{P2}</p></div>
    <div class="more"><p>{P3}</p></div>
  </article>
  <aside><div><p>{ASIDE}</p></div></aside>
</div>
</body></html>"""


def all_content(html: str) -> Page:
    """The constructed page with every block kept, as a recall-heavy upstream extractor would."""
    page = Page.from_html(html, "http://example.com/story")
    for b in page.blocks:
        b.set_label(CONTENT, 1.0, "upstream")
    return page


def kept(page: Page) -> list[str]:
    return [b.text for b in page.blocks if b.is_content]


def test_construction_is_what_the_test_assumes():
    page = all_content(PAGE)
    assert [b.text for b in page.blocks] == ["Home", "About us", P1, P2, P3, ASIDE]
    assert len(ASIDE) > max(len(P1), len(P2), len(P3))
    assert len(P1) + len(P2) > len(ASIDE) > len(P3)


def test_grandparent_groups_the_article_and_keeps_it_whole():
    page = all_content(PAGE)
    TreeFilter().process(page)
    assert DEFAULT_DEPTH == 2
    # p -> div.lead/div.more -> article: all three paragraphs in one group,
    # which beats the longest single paragraph (the aside) and the navigation.
    assert kept(page) == [P1, P2, P3]
    assert all(b.step == "tree" for b in page.blocks if not b.is_content)


def test_depth_1_splits_the_article_where_depth_2_does_not():
    page = all_content(PAGE)
    TreeFilter(depth=1).process(page)
    # parents: div.lead (P1+P2) beats aside/div and div.more: P3 is lost.
    assert kept(page) == [P1, P2]


def test_group_keys_follow_the_innermost_paragraph_node():
    page = all_content(PAGE)
    nav, lead = page.blocks[0], page.blocks[2]
    # li is no paragraph tag: its paragraph node is the ul
    assert group_key(nav, 1) == "/html/body/div[1]"
    assert group_key(nav, 2) == "/html/body"
    assert group_key(lead, 1) == "/html/body/div[2]/article/div[1]"
    assert group_key(lead, 2) == "/html/body/div[2]/article"
    # never above the root element
    assert group_key(lead, 50) == "/html"


def test_only_content_blocks_compete_and_boilerplate_stays():
    page = all_content(PAGE)
    page.blocks[5].set_label(BOILERPLATE, 0.0, "upstream")  # upstream dropped the aside
    page.blocks[2].set_label(BOILERPLATE, 0.0, "upstream")
    TreeFilter(depth=1).process(page)
    # div.lead now holds only P2, still longer than P3 in div.more
    assert len(P2) > len(P3)
    assert kept(page) == [P2]
    assert page.blocks[5].step == "upstream"


def test_no_change_when_one_group_or_none():
    page = Page.from_html(PAGE)
    TreeFilter().process(page)  # nothing kept upstream
    assert kept(page) == [] and all(b.step is None for b in page.blocks)
    page = all_content("<html><body><div><p>one</p><p>two</p></div></body></html>")
    TreeFilter().process(page)
    assert kept(page) == ["one", "two"] and all(b.step == "upstream" for b in page.blocks)


def test_negative_depth_is_refused():
    with pytest.raises(ValueError, match="depth"):
        TreeFilter(depth=-1)


def test_composes_after_any_extractor_with_parameters():
    chain = build_extractor("boilerpipe-article+tree")
    assert chain.steps[-1].name == "tree" and chain.steps[-1].depth == 2
    assert build_extractor("tree(depth=1)").steps[-1].depth == 1
    assert len(build_extractor("boilerpipe-default+tree(depth=3)").steps) == 4


@pytest.mark.parametrize("fid", ["0082", "2860", "4297", "4825"])
def test_the_filter_only_removes(wcxb, fid):
    html, truth = wcxb(fid)
    page = Page.from_html(html, truth["url"])
    build_extractor("boilerpipe-article").run(page)
    before = [b.label for b in page.blocks]
    TreeFilter().process(page)
    changed = [b for b, old in zip(page.blocks, before) if b.label != old]
    assert all(b.step == "tree" and not b.is_content for b in changed)
    # no block becomes content
    assert all(b.is_content <= (old == CONTENT) for b, old in zip(page.blocks, before))


def test_real_page_precision_rises(wcxb):
    # The Rust book chapter: Boilerpipe keeps the sidebar's chapter list, the tree filter drops it.
    html, truth = wcxb("2860")
    reference = truth["ground_truth"]["main_content"]
    base = extract(html, truth["url"], extractor="boilerpipe-article").text
    tree = extract(html, truth["url"], extractor="boilerpipe-article+tree").text
    assert word_prf(tree, reference).precision > word_prf(base, reference).precision + 0.05
    assert "A trait defines the functionality a particular type has" in tree
    assert "Keyboard shortcuts" not in tree


def test_real_article_kept(wcxb):
    html, truth = wcxb("4297")
    text = extract(html, truth["url"], extractor="boilerpipe-article+tree").text
    assert "Your platform needs to control who sees what data." in text
    assert "EventsFind us at our in-person and online events." not in text


WRAPPED = f"""<html><body>
<div id="nav"><ul><li>Home</li><li>About us</li></ul></div>
<div class="post">
  <div class="blk"><div class="inner"><p>{P1}</p></div></div>
  <div class="blk"><div class="inner"><p>{P2}</p></div></div>
  <div class="blk"><div class="inner"><p>{P3}</p></div></div>
</div>
</body></html>"""


def test_wrapped_paragraphs_split_the_literal_rule():
    # Each p's grandparent is its own div.blk: the literal rule keeps one paragraph.
    page = all_content(WRAPPED)
    TreeFilter().process(page)
    assert kept(page) == [P1]


def test_skip_wrappers_counts_branching_ancestors_only():
    page = all_content(WRAPPED)
    step = TreeFilter(skip_wrappers=True)
    groups = step.groups(page)
    # p -> (div.inner, div.blk: single-child wrappers) -> div.post -> body;
    # li -> ul -> (div#nav: a wrapper) -> body -> html
    assert {k: len(v) for k, v in groups.items()} == {"/html": 2, "/html/body": 3}
    assert TreeFilter(depth=1, skip_wrappers=True).groups(page).keys() == {
        "/html/body", "/html/body/div[2]"
    }
    TreeFilter(depth=1, skip_wrappers=True).process(page)
    assert kept(page) == [P1, P2, P3]
    assert build_extractor("tree(skip_wrappers=true)").steps[0].skip_wrappers is True
