"""The rules after the learned step's cut: what the markup says is not the page's text
(``steps/learned/leftout.py``), and the collapse fallback's default by page type."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from scrapy_declutter import extract
from scrapy_declutter.blocks import class_tokens
from scrapy_declutter.lab.metric import word_prf
from scrapy_declutter.lab.walks import block_difference
from scrapy_declutter.page import Page
from scrapy_declutter.segment import reference_walk
from scrapy_declutter.steps.learned import chromenames
from scrapy_declutter.steps.learned import decide as decide_module
from scrapy_declutter.steps.learned import leftout
from scrapy_declutter.steps.learned import step as step_module
from scrapy_declutter.steps.learned.decide import decide

from conftest import SAMPLE_DATA

PARAGRAPH = ("The committee met on Tuesday to review the budget, and after a long debate its "
             "members agreed to fund the new library for another three years.")


def _sample(folder: str, file_id: str) -> tuple[bytes, str, str]:
    html = gzip.decompress((SAMPLE_DATA / folder / f"{file_id}.html.gz").read_bytes())
    truth = json.loads((SAMPLE_DATA / folder / f"{file_id}.json").read_text(encoding="utf-8"))
    return html, truth["url"], truth["ground_truth"]["main_content"]


def _without(monkeypatch: pytest.MonkeyPatch, rule: str) -> None:
    """Turn one rule of ``leftout`` off (``left_out`` looks it up at each call)."""
    monkeypatch.setattr(leftout, rule, lambda blocks, keep, *rest: keep)


def _page(body: str) -> Page:
    return Page.from_html(f"<html><body>{body}</body></html>".encode(), "http://t.test/")


def test_a_responsive_copy_keeps_one_copy_and_a_repeated_paragraph_stays():
    copies = _page(f"<div class='hero-desktop'><p>{PARAGRAPH}</p></div>"
                   f"<div class='hero-mobile'><p>{PARAGRAPH}</p></div>")
    assert len(copies.blocks) == 2
    assert decide(copies.blocks, np.full(2, 0.9), threshold=0.5).tolist() == [True, False]
    # Only kept copies count: a dropped desktop copy leaves the mobile one alone.
    assert decide(copies.blocks, np.array([0.1, 0.9]), threshold=0.5).tolist() == [False, True]
    # When only the first copy is named for a screen, it is the one that goes.
    first = _page(f"<div class='only-mobile'><p>{PARAGRAPH}</p></div><div><p>{PARAGRAPH}</p></div>")
    assert decide(first.blocks, np.full(2, 0.9), threshold=0.5).tolist() == [False, True]
    # The same text with no screen named is on the reader's screen twice: a quoted post.
    quoted = _page(f"<div class='post'><p>{PARAGRAPH}</p></div>"
                   f"<div class='post'><blockquote><p>{PARAGRAPH}</p></blockquote></div>")
    assert decide(quoted.blocks, np.full(2, 0.9), threshold=0.5).all()


def test_responsive_copies_of_a_real_page_are_left_out(monkeypatch):
    html, url, reference = _sample("leftout", "4379")
    _without(monkeypatch, "without_repeats")  # it would leave out the copies too: this tests the names
    kept = extract(html, url, extractor="learned")
    _without(monkeypatch, "without_copies")
    both = extract(html, url, extractor="learned")
    gone = [b for k, b in zip(kept.blocks, both.blocks) if b.is_content and not k.is_content]
    assert len(gone) >= 5
    for block in gone:  # every one left out is a copy of a block still kept ...
        twin = [b for b in kept.blocks if b.is_content and b.text.lower() == block.text.lower()]
        assert twin
        # ... and one of the two runs through an element named for a screen.
        assert any(class_tokens(a.id, a.classes) & leftout.VIEWPORT_WORDS
                   for a in block.ancestors + twin[0].ancestors)
    before, after = word_prf(both.text, reference), word_prf(kept.text, reference)
    assert before.precision < 0.6 and after.precision > 0.85 and after.f1 > before.f1 + 0.2


def test_text_written_in_noscript_is_a_block_the_noscript_rule_leaves_out():
    """Readability's headlines.yahoo.co.jp page (``sample_data/noscript``): its "JavaScript is
    off" notice is escaped markup written straight into ``<noscript>`` in ``div.mainBox``.
    It was words of the ``div``'s block, which ``without_noscript`` could not tell apart."""
    html, url, reference = _sample("noscript", "0115")
    compiled = Page.from_html(html, url)
    with reference_walk():
        python = Page.from_html(html, url)
    assert block_difference(compiled.blocks, python.blocks) == ""
    for page in (compiled, python):
        notice = [b for b in page.blocks if "JavaScriptが無効" in b.text]
        assert len(notice) == 1 and notice[0].tag == "noscript"
        assert notice[0].text.startswith('<div class="alertBox">')
        assert notice[0].xpath.endswith("/div[1]/noscript")
        assert notice[0].ancestors[-2].classes == ("mainBox",)
    blocks = compiled.blocks
    article = np.array([len(b.text) > 20 and b.text in reference for b in blocks])
    assert article.sum() >= 8
    keep = article.copy()
    keep[notice[0].index] = True
    words = np.array([b.words for b in blocks], dtype=float)
    assert (leftout.without_noscript(blocks, keep, words) == article).all()
    # The whole extractor: the notice is not in the text, the article is.
    text = extract(html, url).text
    assert "JavaScriptが無効" not in text and "alertBox" not in text
    assert word_prf(text, reference).recall > 0.9


def test_escaped_markup_in_noscript_goes_however_few_words_the_page_has_outside():
    """The same page's tracking pixels: escaped ``<img>`` tags in a dozen ``<noscript>`` boxes.
    Kept with the article, they hold more whitespace words than its unspaced Japanese
    prose, so the word rule keeps every noscript block; their markup sends them out."""
    html, url, reference = _sample("noscript", "0115")
    blocks = Page.from_html(html, url).blocks
    article = np.array([len(b.text) > 20 and b.text in reference for b in blocks])
    pixels = np.array([b.tag == "noscript" and b.text.startswith("<div style=") for b in blocks])
    assert pixels.sum() >= 10
    words = np.array([b.words for b in blocks], dtype=float)
    assert words[pixels].sum() > words[article].sum()
    keep = article | pixels
    assert (leftout.without_noscript(blocks, keep, words) == article).all()
    # Text in a noscript that is not markup stays when the page's words do not outweigh it.
    page = _page("<p>Short.</p><noscript>Please turn on JavaScript to see the whole of this "
                 "page and its many pictures of the town.</noscript>")
    assert [b.tag for b in page.blocks] == ["p", "noscript"]
    both = np.ones(2, dtype=bool)
    assert leftout.without_noscript(page.blocks, both, np.array([1.0, 16.0])).all()
    # Escaped markup alone is all a page keeps: it stays (an empty text scores zero).
    alone = np.array([False, True])
    markup = _page("<p>Short.</p><noscript>&lt;div&gt;&lt;img src=x&gt;&lt;/div&gt;</noscript>")
    assert leftout.without_noscript(markup.blocks, alone, np.array([1.0, 1.0])).tolist() == [False, True]


def test_form_controls_are_left_out_unless_they_are_all_the_page_keeps():
    page = _page(f"<p>{PARAGRAPH}</p><form><select><option>Afghanistan</option>"
                 "<option>Albania and the other countries of the list</option></select>"
                 f"<textarea>&lt;h1&gt;{PARAGRAPH}&lt;/h1&gt;</textarea></form>")
    tags = [b.tag for b in page.blocks]
    assert tags[0] == "p" and set(tags[1:]) <= leftout.FORM_CONTROL_TAGS and "textarea" in tags
    probs = np.full(len(tags), 0.9)
    assert decide(page.blocks, probs, threshold=0.5).tolist() == [True] + [False] * (len(tags) - 1)
    only = np.array([0.1] + [0.9] * (len(tags) - 1))
    assert decide(page.blocks, only, threshold=0.5).tolist() == (only >= 0.5).tolist()


def test_the_collapse_fallback_is_on_by_default_for_pages_not_called_articles(monkeypatch):
    html, url, _ = _sample("collapse", "3016")
    # Out of fold the classifier was unsure of every teaser and the cut kept a sliver; the
    # shipped model was trained on this page and is sure of them, so its scores are scaled
    # down to 0.6 of themselves here, which makes the per-type cut (adapt=0: the page's own
    # cut does not collapse) keep one block of the page.
    real = step_module.score_page

    def unsure(model, page, **kwargs):
        scores = real(model, page, **kwargs)
        return scores._replace(content=scores.content * 0.6)

    monkeypatch.setattr(step_module, "score_page", unsure)
    result = extract(html, url, extractor="learned(adapt=0)")
    assert result.page_type in decide_module.FALLBACK_TYPES and "article" not in decide_module.FALLBACK_TYPES

    def labels(extractor: str) -> list[bool]:
        return [b.is_content for b in extract(html, url, extractor=extractor).blocks]

    fell_back, plain = labels("learned(fallback=true, adapt=0)"), labels("learned(fallback=false, adapt=0)")
    assert fell_back != plain
    assert [b.is_content for b in result.blocks] == fell_back
    # The default reads the page's type: a type left out of the set cuts once.
    monkeypatch.setattr(decide_module, "FALLBACK_TYPES", decide_module.FALLBACK_TYPES - {result.page_type})
    assert labels("learned(adapt=0)") == plain


@pytest.mark.parametrize("page_type", ["listing", "product", "forum", "collection", "service"])
def test_text_kept_again_is_left_out_past_its_first_copy_on_pages_of_items(page_type):
    page = _page(f"<p>{PARAGRAPH}</p><p>Ships in two days.</p><p></p><p>Ships in TWO days.</p>"
                 f"<p>{PARAGRAPH} Again.</p><p></p><p>Ships in two days.</p>")
    probs = np.full(len(page.blocks), 0.9)
    kept = decide(page.blocks, probs, threshold=0.5, page_type=page_type)
    texts = [b.text for b, k in zip(page.blocks, kept) if k]
    assert texts == [PARAGRAPH, "Ships in two days.", f"{PARAGRAPH} Again."]
    # Only kept copies count: a first copy under the cut leaves the next one in.
    probs[1] = 0.1
    kept = decide(page.blocks, probs, threshold=0.5, page_type=page_type)
    assert [b.text for b, k in zip(page.blocks, kept) if k].count("Ships in TWO days.") == 1


@pytest.mark.parametrize("page_type", ["article", "documentation", ""])
def test_articles_documentation_and_pages_of_no_type_keep_their_repeated_text(page_type):
    page = _page(f"<p>{PARAGRAPH}</p><p>Step one.</p><p>{PARAGRAPH}</p><p>Step one.</p>")
    assert decide(page.blocks, np.full(4, 0.9), threshold=0.5, page_type=page_type).all()


@pytest.mark.parametrize("folder, file_id", [("wcxb", "0540"), ("collapse", "3016")])
def test_repeats_left_out_of_real_pages_raise_their_f1(monkeypatch, folder, file_id):
    # A forum thread (0540) and a listing (3016) that keep text twice (a collection, 4280,
    # did too until the shipped model was retrained with it and kept one copy anyway).
    html, url, reference = _sample(folder, file_id)
    kept = extract(html, url, extractor="learned")
    assert kept.page_type not in leftout.REPEATS_KEPT_ON
    _without(monkeypatch, "without_repeats")
    every = extract(html, url, extractor="learned")
    assert word_prf(kept.text, reference).f1 > word_prf(every.text, reference).f1 + 0.01


@pytest.mark.parametrize("file_id", ["0082", "0540", "2860", "4297"])
def test_a_blocks_xpath_names_its_tag_and_every_ancestor_tag(file_id):
    """``without_noscript`` looks at the tag and ancestors of the kept blocks whose XPath
    has ``noscript`` in it only, which holds if the XPath names them all."""
    html = gzip.decompress((SAMPLE_DATA / "wcxb" / f"{file_id}.html.gz").read_bytes())
    page = Page.from_html(html)
    for b in page.blocks:
        steps = {step.split("[")[0] for step in b.xpath.split("/") if step}
        assert b.tag in steps and {a.tag for a in b.ancestors} <= steps


def test_noscript_blocks_are_found_by_their_xpath():
    page = _page("<p>" + PARAGRAPH + "</p><noscript><div><p>" + PARAGRAPH + " Copy.</p></div>"
                 "</noscript><div class='noscript-note'><p>A note.</p></div>")
    keep = np.ones(len(page.blocks), dtype=bool)
    words = np.array([b.words for b in page.blocks], dtype=float)
    got = leftout.without_noscript(page.blocks, keep, words)
    assert [b.text for b, k in zip(page.blocks, got) if not k] == [PARAGRAPH + " Copy."]


def test_a_kept_block_the_markup_hides_is_left_out_unless_it_is_all_the_page_keeps():
    page = _page(f"<p>{PARAGRAPH}</p><p style='display:none'>{PARAGRAPH} Hidden.</p>"
                 f"<p hidden>{PARAGRAPH} Also hidden.</p>")
    assert [b.hidden for b in page.blocks] == [False, True, True]
    assert decide(page.blocks, np.full(3, 0.9), threshold=0.5).tolist() == [True, False, False]
    # A page whose kept text is all hidden keeps it (an empty output scores zero).
    only = np.array([0.1, 0.9, 0.9])
    assert decide(page.blocks, only, threshold=0.5).tolist() == [False, True, True]


def test_readabilitys_hidden_nodes_page_loses_its_hidden_paragraphs():
    html, url, truth = _sample("hidden", "0040")
    result = extract(html, url)
    assert "Secondary header" in result.text and "Third header" in result.text
    assert word_prf(result.text, truth).precision > 0.9  # 0.33 when both hidden copies were kept


def _chrome(body: str) -> tuple[Page, np.ndarray]:
    page = _page(body)
    return page, np.array([b.words for b in page.blocks], dtype=float)


def test_an_articles_kept_block_in_a_box_named_chrome_is_left_out():
    story = "".join(f"<p>{PARAGRAPH} Part {n}.</p>" for n in range(4))
    page, words = _chrome(f"<div class='entry'>{story}</div>"
                          f"<div id='jp-relatedposts'><p>{PARAGRAPH} Related.</p></div>"
                          f"<div class='related-content'><p>{PARAGRAPH} Named content too.</p></div>"
                          f"<table class='sidebar'><tr><td>{PARAGRAPH} In a table.</td></tr></table>")
    keep = np.ones(len(page.blocks), dtype=bool)
    got = chromenames.without_chrome_boxes(page.blocks, keep, words)
    # Only the box whose names say chrome and not content, outside a table, goes.
    assert [b.text.split(". ")[-1] for b, k in zip(page.blocks, got) if not k] == ["Related."]
    # decide applies it on articles only: a listing's "related" box holds its items.
    probs = np.full(len(page.blocks), 0.9)
    assert not decide(page.blocks, probs, threshold=0.5, page_type="article").all()
    assert decide(page.blocks, probs, threshold=0.5, page_type="listing").all()


def test_a_box_named_chrome_that_wraps_the_story_stays():
    story = "".join(f"<p>{PARAGRAPH} Part {n}.</p>" for n in range(12))
    # The whole story sits in a layout named for its sidebar: leaving it out leaves a
    # sliver (under MIN_LEFT_SHARE of the kept words), so nothing goes.
    page, words = _chrome(f"<div class='SidebarLayout'>{story}</div><p>{PARAGRAPH}</p>")
    keep = np.ones(len(page.blocks), dtype=bool)
    assert chromenames.without_chrome_boxes(page.blocks, keep, words).all()
    # Under MIN_LEFT_CHARS left: nothing goes either (Readability's retry).
    page, words = _chrome(f"<p>A short lead.</p><div class='social'>{story}</div>")
    keep = np.ones(len(page.blocks), dtype=bool)
    assert chromenames.without_chrome_boxes(page.blocks, keep, words).all()


def test_names_chrome_matches_readabilitys_names_unless_they_also_say_content():
    assert chromenames.names_chrome("", ("jp-relatedposts",))
    assert chromenames.names_chrome("sidebar-primary", ("sidebar",))
    assert chromenames.names_chrome("", ("legends",))
    assert not chromenames.names_chrome("", ("related-content",))  # "content" saves it
    assert not chromenames.names_chrome("main", ("sidebar",))
    assert not chromenames.names_chrome("site-header", ("menu",))  # left out of the list
    assert not chromenames.names_chrome("", ())


@pytest.mark.parametrize("ident, classes", [
    ("", ("Jp-RelatedPosts",)), ("SIDEBAR", ()), ("", ("ReLaTeD", "MAIN")), ("Foo", ("bar",)),
    ("", ("sİdebar",)), ("", ("ſocial",)), ("Kelvin-\u212aey", ("CONTENT",)), ("x", ("Ａrticle", "rss"))])
def test_names_chrome_lower_cased_search_agrees_with_the_case_blind_one(ident, classes):
    # ASCII names are lower-cased and searched plainly; the case-blind patterns stay the
    # reference (and the path for other names, whose case folds lower() does not copy).
    names = " ".join(classes) + " " + ident
    expected = bool(chromenames.CHROME_NAMES.search(names)) and not chromenames.CONTENT_NAMES.search(names)
    assert chromenames.names_chrome.__wrapped__(ident, classes) == expected


def test_names_chrome_finds_every_readability_name_wherever_it_stands():
    # The lower-cased patterns are regrouped by first letter: each name is still found,
    # alone, inside a longer name, in capitals, and a content name still saves it.
    for word in chromenames.CHROME_NAMES.pattern.split("|"):
        for ident, classes in (("", (word,)), ("x", (f"pre{word.upper()}post",)), (word, ("main",))):
            names = " ".join(classes) + " " + ident
            expected = bool(chromenames.CHROME_NAMES.search(names)) and not chromenames.CONTENT_NAMES.search(names)
            assert chromenames.names_chrome.__wrapped__(ident, classes) == expected, (ident, classes)
    assert all(chromenames.names_chrome.__wrapped__("", (w,)) for w in ("related", "rss", "pager", "ad-break"))


def test_the_chrome_boxes_of_a_real_article_hold_none_of_its_text():
    # The shipped model was trained on this page and keeps none of its chrome, so the
    # rule is checked on every block: what it leaves out is chrome, what it keeps the story.
    html, url, truth = _sample("chromenames", "0111")
    page = Page.from_html(html, url)
    words = np.array([b.words for b in page.blocks], dtype=float)
    keep = chromenames.without_chrome_boxes(page.blocks, np.ones(len(words), dtype=bool), words)
    dropped = [b.text for b, k in zip(page.blocks, keep) if not k]
    assert "Stack Overflow Documentation is Now in Beta" in dropped  # the related posts
    assert "There are 13 comments" in dropped
    kept = [b.text for b, k in zip(page.blocks, keep) if k]
    every = word_prf("\n".join(b.text for b in page.blocks), truth)
    ruled = word_prf("\n".join(kept), truth)
    assert ruled.recall == every.recall == 1.0
    assert ruled.precision > 2 * every.precision


@pytest.mark.parametrize("folder, file_id", [("chromenames", "0111"), ("wcxb", "0082"), ("wcxb", "0540"),
                                             ("wcxb", "2860"), ("wcxb", "4297")])
def test_chrome_boxes_found_along_shared_paths_agree_with_each_blocks_own_look(folder, file_id):
    # ``in_chrome_boxes`` (compiled where built) and its Python reference reuse what the
    # previous kept block's elements said; every block asked on its own (``in_chrome_box``)
    # is the reference of both, over all blocks and over every third (kept blocks that are
    # not siblings).
    page = Page.from_html(gzip.decompress((SAMPLE_DATA / folder / f"{file_id}.html.gz").read_bytes()))
    for rows in (list(range(len(page.blocks))), list(range(0, len(page.blocks), 3))):
        want = [i for i in rows if chromenames.in_chrome_box(page.blocks[i])]
        assert chromenames.in_chrome_boxes(page.blocks, rows) == want
        assert chromenames.python_in_chrome_boxes(page.blocks, rows) == want
        if folder == "chromenames":
            assert want  # the page has chrome boxes: the walks had something to find


@pytest.mark.skipif(chromenames._compiled is None, reason="the compiled walks were not built")
def test_compiled_chrome_rows_agree_with_the_python_walk_on_names_tables_links_and_lists():
    # Boxes with names and without, a chrome box in a layout table (exempt), a chrome-named
    # link (never a box), nested and sibling boxes; then paths given as lists, not tuples.
    page, _ = _chrome(
        f"<div class='social'><p>{PARAGRAPH}</p><p>Share this.</p><div><span>Tweet it</span></div></div>"
        f"<p>{PARAGRAPH}</p><table class='sidebar'><tr><td>{PARAGRAPH}</td></tr></table>"
        f"<p><a class='related' href='/x'>A related story</a></p>"
        f"<div id='RelatedPosts'><ul><li>One</li><li>Two</li></ul><p class='main'>Kept</p></div>")
    blocks = page.blocks
    for rows in (list(range(len(blocks))), list(range(1, len(blocks), 2)), [], [len(blocks) - 1]):
        want = chromenames.python_in_chrome_boxes(blocks, rows)
        assert chromenames.in_chrome_boxes(blocks, rows) == want
        assert want == [i for i in rows if chromenames.in_chrome_box(blocks[i])]
    # In the social box, under RelatedPosts (a content-named child does not save it);
    # not beside them, not in the layout table, not for a link named related.
    found = chromenames.in_chrome_boxes(blocks, list(range(len(blocks))))
    assert found == [0, 1, 2, 6, 7, 8]
    assert [blocks[i].text for i in (4, 5, 8)] == [PARAGRAPH, "A related story", "Kept"]
    listed = [_ListedPath(b) for b in blocks]
    assert chromenames._compiled.chrome_rows(
        listed, list(range(len(blocks))), chromenames.names_chrome, chromenames.EXEMPT_TAGS,
        chromenames.NEVER_BOXES, chromenames._CHROME, chromenames._EXEMPT) == found


class _ListedPath:
    """A block whose ``ancestors`` is a list, not a tuple (the compiled walk copies it)."""

    def __init__(self, block):
        self.ancestors = list(block.ancestors)
