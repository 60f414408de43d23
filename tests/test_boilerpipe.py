"""Boilerpipe (seed 002): every leaf of both decision trees, the markers, the filters,
fusion without losing blocks, marker steps that never relabel, the chain pins,
and both extractors on bundled real pages."""

from __future__ import annotations

import pytest

from scrapy_declutter import extract
from scrapy_declutter.blocks import BOILERPLATE, CONTENT
from scrapy_declutter.page import Page
from scrapy_declutter.registry import build_extractor
from scrapy_declutter.steps.boilerpipe import (
    MAX_DISTANCE_1,
    MAX_DISTANCE_1_CONTENT_ONLY,
    MAX_DISTANCE_1_CONTENT_ONLY_SAME_TAGLEVEL,
    BoilerplateBlockFilter,
    DensityRulesClassifier,
    DocumentTitleMatchClassifier,
    ExpandTitleToContentFilter,
    IgnoreBlocksAfterContentFilter,
    KeepLargestBlockFilter,
    KeepLargestFulltextBlockFilter,
    NumWordsRulesClassifier,
    SimpleBlockFusionProcessor,
    TerminatingBlocksFinder,
    article_chain,
    default_chain,
    document,
)
from scrapy_declutter.steps.boilerpipe.classifiers import potential_titles
from scrapy_declutter.steps.boilerpipe.document import (
    INDICATES_END_OF_TEXT,
    MIGHT_BE_CONTENT,
    TITLE,
)

WCXB_IDS = ("0082", "0540", "0619", "0688", "2860", "4280", "4287", "4297", "4825")


def para(words: int, links: int = 0, *, word: str = "ab", tag: str = "p") -> str:
    """A block of ``words`` words, the last ``links`` of them inside a link.

    Words of two letters keep up to 26 of them on one 80-column line, so the
    text density of such a block is its word count.
    """
    plain = " ".join([word] * (words - links))
    linked = f' <a href="#">{" ".join([word] * links)}</a>' if links else ""
    return f"<{tag}>{plain}{linked}</{tag}>"


def page_of(*blocks: str, title: str = "") -> Page:
    head = f"<head><title>{title}</title></head>" if title else ""
    return Page.from_html(f"<html>{head}<body>{''.join(blocks)}</body></html>", "http://example.com/a")


def labels(page: Page) -> list[str]:
    return [b.label for b in page.blocks]


# ---------------------------------------------------------------- decision trees

# (prev, cur, next) as para() arguments (None: the document edge), expected label of cur.
NUM_WORDS_LEAVES = {
    "cur link-heavy": ((10, 0), (10, 4), (10, 0), BOILERPLATE),
    "short, short next, short prev": ((3, 0), (10, 0), (10, 0), BOILERPLATE),
    "short, short next, longer prev": ((5, 0), (10, 0), (10, 0), CONTENT),
    "short, long next": ((3, 0), (10, 0), (16, 0), CONTENT),
    "long cur": ((3, 0), (17, 0), (3, 0), CONTENT),
    "after links, short, short next": ((10, 6), (40, 0), (17, 0), BOILERPLATE),
    "after links, short, long next": ((10, 6), (40, 0), (18, 0), CONTENT),
    "after links, long cur": ((10, 6), (41, 0), (3, 0), CONTENT),
}
DENSITY_LEAVES = {
    "cur link-heavy": ((10, 0), (20, 7), (20, 0), BOILERPLATE),
    "sparse, sparse next, sparse prev": ((4, 0), (9, 0), (10, 0), BOILERPLATE),
    "sparse, sparse next, denser prev": ((5, 0), (9, 0), (10, 0), CONTENT),
    "sparse, dense next": ((4, 0), (9, 0), (11, 0), CONTENT),
    "dense, document ends": ((4, 0), (10, 0), None, BOILERPLATE),
    "dense, any next": ((4, 0), (10, 0), (1, 0), CONTENT),
    "after links, sparse next": ((10, 6), (10, 0), (11, 0), BOILERPLATE),
    "after links, dense next": ((10, 6), (10, 0), (12, 0), CONTENT),
}


def _leaf_page(prev, cur, nxt) -> Page:
    return page_of(*(para(*b) for b in (prev, cur, nxt) if b is not None))


@pytest.mark.parametrize("leaf", NUM_WORDS_LEAVES)
def test_num_words_rules_every_leaf(leaf):
    prev, cur, nxt, expected = NUM_WORDS_LEAVES[leaf]
    page = _leaf_page(prev, cur, nxt)
    NumWordsRulesClassifier().process(page)
    assert page.blocks[1].label == expected
    assert page.blocks[1].step == NumWordsRulesClassifier.name


@pytest.mark.parametrize("leaf", DENSITY_LEAVES)
def test_density_rules_every_leaf(leaf):
    prev, cur, nxt, expected = DENSITY_LEAVES[leaf]
    page = _leaf_page(prev, cur, nxt)
    assert page.blocks[1].text_density == cur[0]  # the construction does what it says
    DensityRulesClassifier().process(page)
    assert page.blocks[1].label == expected


def test_first_block_sees_an_empty_previous_block():
    # prev = document edge: 0 words, so a short block before a short one is boilerplate.
    page = page_of(para(10), para(10))
    NumWordsRulesClassifier().process(page)
    assert labels(page) == [BOILERPLATE, CONTENT]


# ---------------------------------------------------------------- markers

@pytest.mark.parametrize(
    "text",
    [
        "Comments (12)",
        "12 Comments",
        "3 comments so far",  # N_COMMENTS is case-insensitive
        "Tell us what you think: What you think...",
        "Please add your comment below",
        "Add your comment",
        "Add Your Comment",
        "Add Comment",
        "Reader views on this",
        "Have your say",
        "Have Your Say",
        "Reader Comments",
        "Thanks for your comments - this feedback is now closed",
        "© Reuters 2010. All rights reserved.",
        "Please rate this article",
        "45 users responded in this thread",
    ],
)
def test_terminating_blocks_finder_phrases(text):
    page = page_of(f"<p>{text}</p>")
    before = labels(page)
    TerminatingBlocksFinder().process(page)
    assert labels(page) == before  # markers are not labels
    assert INDICATES_END_OF_TEXT in document(page).units[0].markers


@pytest.mark.parametrize(
    "text",
    [
        "No comments here, just prose about the weather",
        "comments are lower-case at the start",  # Java's startsWith is case-sensitive
        "Reuters reported something",  # the seed's phrase is "© Reuters"
        "Add your comment " + "word " * 20,  # 20 words or more: never terminating
    ],
)
def test_terminating_blocks_finder_ignores(text):
    page = page_of(f"<p>{text}</p>")
    TerminatingBlocksFinder().process(page)
    assert not document(page).units[0].markers


def test_potential_titles_split_at_separators():
    titles = potential_titles("Storm hits the coast | Example News")
    assert {"storm hits the coast | example news", "storm hits the coast"} <= titles
    assert potential_titles("") == set()
    # parts naming a .com site are never the title
    assert "example.com" not in potential_titles("example.com - A short note")


def test_document_title_match_marks_title_block_only():
    page = page_of("<h1>Storm hits the coast</h1>", para(30), title="Storm hits the coast - Example News")
    before = labels(page)
    DocumentTitleMatchClassifier().process(page)
    assert labels(page) == before  # markers are not labels
    units = document(page).units
    assert TITLE in units[0].markers and TITLE not in units[1].markers


# ---------------------------------------------------------------- filters

def _dense(words: int) -> str:
    # Long two-letter-word paragraph: wraps, text density 26 (well above 9).
    return para(words)


def test_ignore_blocks_after_content_needs_60_words_first():
    page = page_of(_dense(70), "<p>Add your comment</p>", _dense(30))
    for b in page.blocks:
        b.set_label(CONTENT, 1.0, "test")
    TerminatingBlocksFinder().process(page)
    IgnoreBlocksAfterContentFilter().process(page)
    assert labels(page) == [CONTENT, BOILERPLATE, BOILERPLATE]

    early = page_of(_dense(50), "<p>Add your comment</p>", _dense(30))
    for b in early.blocks:
        b.set_label(CONTENT, 1.0, "test")
    TerminatingBlocksFinder().process(early)
    IgnoreBlocksAfterContentFilter().process(early)
    assert labels(early) == [CONTENT] * 3  # 50 < 60 words before


def test_keep_largest_fulltext_counts_only_dense_blocks():
    # 8-word blocks have text density 8 < 9: no full-text words, however many there are.
    page = page_of(para(8), para(8), _dense(30), para(8))
    for b in page.blocks:
        b.set_label(CONTENT, 1.0, "test")
    KeepLargestFulltextBlockFilter().process(page)
    assert labels(page) == [BOILERPLATE, BOILERPLATE, CONTENT, BOILERPLATE]
    assert all(MIGHT_BE_CONTENT in u.markers for i, u in enumerate(document(page).units) if i != 2)


@pytest.mark.parametrize(
    "step,kept",
    [
        (KeepLargestBlockFilter(), [CONTENT] * 5 + [BOILERPLATE] * 3),
        (KeepLargestFulltextBlockFilter(), [BOILERPLATE] * 7 + [CONTENT]),  # the seed's
    ],
)
def test_keep_largest_plain_words_or_fulltext_words(step, kept):
    # Five fused sparse blocks (40 words, density 8) against one dense block of 30 words.
    page = page_of(*(para(8) for _ in range(5)), para(3), para(3), _dense(30))
    _set(page, "CCCCCBBC")
    BoilerplateBlockFilter().process(page)
    MAX_DISTANCE_1_CONTENT_ONLY.process(page)
    sparse, dense = document(page).units
    assert (sparse.words, sparse.text_density, dense.words) == (40, 8.0, 30)
    step.process(page)
    assert labels(page) == kept


def test_expand_title_to_content():
    page = page_of("<h1>Storm hits</h1>", para(5), _dense(30), para(5), title="Storm hits | News")
    for b in page.blocks:
        b.set_label(CONTENT, 1.0, "test")
    DocumentTitleMatchClassifier().process(page)
    KeepLargestFulltextBlockFilter().process(page)
    assert labels(page) == [BOILERPLATE, BOILERPLATE, CONTENT, BOILERPLATE]
    ExpandTitleToContentFilter().process(page)
    # title and lead come back; the block after the article does not
    assert labels(page) == [CONTENT, CONTENT, CONTENT, BOILERPLATE]


# ---------------------------------------------------------------- fusion

def _set(page: Page, pattern: str) -> None:
    for b, c in zip(page.blocks, pattern):
        b.set_label(CONTENT if c == "C" else BOILERPLATE, 1.0, "test")


def test_max_distance_1_pulls_preceding_boilerplate_into_content():
    page = page_of(*(para(3) for _ in range(5)))
    _set(page, "BCCBC")
    MAX_DISTANCE_1.process(page)
    assert document(page).groups() == [[0, 1, 2], [3, 4]]
    assert labels(page) == [CONTENT] * 5
    assert len(page.blocks) == 5  # fusion never removes page blocks


def test_content_only_fusion_after_removal_spans_one_block():
    page = page_of(*(para(3) for _ in range(6)))
    _set(page, "CBCBBC")
    BoilerplateBlockFilter().process(page)
    assert document(page).groups() == [[0], [2], [5]]
    MAX_DISTANCE_1_CONTENT_ONLY.process(page)
    assert document(page).groups() == [[0, 2], [5]]  # block 5 is 2 blocks away from 2
    assert labels(page) == [CONTENT, BOILERPLATE, CONTENT, BOILERPLATE, BOILERPLATE, CONTENT]


def test_same_tag_level_preset_refuses_different_depths():
    page = page_of(para(3), "<div>" + para(3) + "</div>")
    _set(page, "CC")
    MAX_DISTANCE_1_CONTENT_ONLY_SAME_TAGLEVEL.process(page)
    assert document(page).groups() == [[0], [1]]
    MAX_DISTANCE_1_CONTENT_ONLY.process(page)
    assert document(page).groups() == [[0, 1]]


def test_fused_unit_sums_features_and_recomputes_densities():
    page = page_of(para(3), para(3), para(3, 3))
    SimpleBlockFusionProcessor().process(page)
    unit = document(page).units[0]
    assert document(page).groups() == [[0, 1, 2]]  # equal densities (3) fuse
    assert unit.words == 9 and unit.link_words == 3
    assert unit.link_density == pytest.approx(1 / 3)
    assert unit.text_density == pytest.approx(3.0)


def test_presets_are_named_not_positional():
    assert MAX_DISTANCE_1.name.endswith("MAX_DISTANCE_1")
    assert (MAX_DISTANCE_1.content_only, MAX_DISTANCE_1_CONTENT_ONLY.content_only) == (False, True)


# ---------------------------------------------------------------- markers and labels

MARKER_STEPS = (TerminatingBlocksFinder, DocumentTitleMatchClassifier)


@pytest.mark.parametrize("chain", ["boilerpipe-article", "boilerpipe-default"])
def test_only_label_steps_change_labels_on_real_pages(wcxb, chain):
    """BoilerPy3's verify_content: marker finders never relabel, the chain as a whole does."""
    for fid in WCXB_IDS:
        html, truth = wcxb(fid)
        page = Page.from_html(html, truth["url"])
        first = labels(page)
        for step in build_extractor(chain).steps:
            before = labels(page)
            step.process(page)
            if isinstance(step, MARKER_STEPS):
                assert labels(page) == before, (fid, step.name)
        assert labels(page) != first, fid


def test_steps_keep_no_page_state():
    # One instance serves every page: title candidates come from each page, not the step.
    step = DocumentTitleMatchClassifier()
    a = page_of("<h1>Alpha story</h1>", "<h1>Beta story</h1>", title="Alpha story")
    b = page_of("<h1>Alpha story</h1>", "<h1>Beta story</h1>", title="Beta story")
    step.process(a)
    step.process(b)
    assert [TITLE in u.markers for u in document(a).units] == [True, False]
    assert [TITLE in u.markers for u in document(b).units] == [False, True]


# ---------------------------------------------------------------- chains

def test_article_chain_pinned_to_seed():
    assert [s.name for s in article_chain()] == [
        "boilerpipe.TerminatingBlocksFinder",
        "boilerpipe.DocumentTitleMatchClassifier",
        "boilerpipe.NumWordsRulesClassifier",
        "boilerpipe.IgnoreBlocksAfterContentFilter",
        "boilerpipe.BlockProximityFusion.MAX_DISTANCE_1",
        "boilerpipe.BoilerplateBlockFilter",
        "boilerpipe.BlockProximityFusion.MAX_DISTANCE_1_CONTENT_ONLY",
        "boilerpipe.KeepLargestFulltextBlockFilter",
        "boilerpipe.ExpandTitleToContentFilter",
    ]
    assert IgnoreBlocksAfterContentFilter().min_words == 60


def test_default_chain_pinned_to_seed():
    assert [s.name for s in default_chain()] == [
        "boilerpipe.SimpleBlockFusionProcessor",
        "boilerpipe.BlockProximityFusion.MAX_DISTANCE_1",
        "boilerpipe.DensityRulesClassifier",
    ]


def test_article_chain_can_take_boilerpy3s_largest_block_measure():
    steps = build_extractor('boilerpipe-article(keep_largest="words")').steps
    assert steps[7].name == "boilerpipe.KeepLargestBlockFilter"
    assert [s.name for i, s in enumerate(steps) if i != 7] == [
        s.name for i, s in enumerate(article_chain()) if i != 7
    ]
    with pytest.raises(ValueError, match="keep_largest"):
        article_chain(keep_largest="chars")


def test_registry_builds_both_chains():
    assert [s.name for s in build_extractor("boilerpipe-article").steps] == [
        s.name for s in article_chain()
    ]
    assert [s.name for s in build_extractor("boilerpipe-default").steps] == [
        s.name for s in default_chain()
    ]


@pytest.mark.parametrize("html", ["", "<html></html>", "<p>x</p>", "<html><body><br><br></body></html>"])
@pytest.mark.parametrize("chain", ["boilerpipe-article", "boilerpipe-default", "boilerpipe-article+tree"])
def test_degenerate_pages(html, chain):
    result = extract(html, None, extractor=chain)
    assert result.text == "" and all(not b.is_content for b in result.blocks)


# ---------------------------------------------------------------- real pages

REAL = [
    # (extractor, file id, snippets that must be kept, snippets that must go)
    ("boilerpipe-article", "4297",
     ["Your platform needs to control who sees what data."],
     ["EventsFind us at our in-person and online events.", "SupportHave questions"]),
    ("boilerpipe-default", "4297",
     ["To fix these issues, you need the right analytics platform."],
     ["Clarity EngineA new foundation"]),
    ("boilerpipe-article", "4280",
     ["resolution of 3840 pixels wide by 2160 pixels high"],
     ["My Account", "Compare(0)", "Front + Rear Dashcams"]),
    ("boilerpipe-default", "4280",
     ["the quality is of the footage, the higher price it may fetch."],
     ["Front-Facing Dashcams"]),
    ("boilerpipe-article", "2860",
     ["A trait defines the functionality a particular type has and can share with other types."],
     ["Keyboard shortcuts"]),
    ("boilerpipe-default", "2860",
     ["This restriction is part of a property called coherence"],
     ["Keyboard shortcuts"]),
]


@pytest.mark.parametrize("extractor,fid,keep,drop", REAL, ids=[f"{e}-{f}" for e, f, *_ in REAL])
def test_real_pages(wcxb, extractor, fid, keep, drop):
    html, truth = wcxb(fid)
    result = extract(html, truth["url"], extractor=extractor)
    text = result.text.lower()
    for s in keep:
        assert s.lower() in text
    for s in drop:
        assert s.lower() not in text
    # one label per original block, and fused groups share one label
    page = Page.from_html(html, truth["url"])
    build_extractor(extractor).run(page)
    assert len(result.blocks) == len(page.blocks)
    for group in document(page).groups():
        assert len({page.blocks[i].label for i in group}) == 1
