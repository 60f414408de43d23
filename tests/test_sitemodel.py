"""Site models: template fingerprints, supervision, the classifier's votes, Declutter."""

from __future__ import annotations

import logging

import pytest

from scrapy_declutter import Declutter, extract
from scrapy_declutter.page import Page
from scrapy_declutter.registry import Extractor, build_extractor
from scrapy_declutter.result import SiteDecisions
from scrapy_declutter.sitelearning import learner
from scrapy_declutter.sitelearning.learner import TEMPLATE_STEP, SiteLearner
from scrapy_declutter.errors import ModelFormatError
from scrapy_declutter.sitelearning.fingerprints import fingerprint, normalise
from scrapy_declutter.cli.train import summary
from scrapy_declutter.sitelearning.model import MIN_PAGES, SiteModel
from scrapy_declutter.sitelearning.step import SITE_LESSON, SITE_MODEL, SiteStep
from scrapy_declutter.sitelearning.stores.memory import MemoryStore
from scrapy_declutter.sitelearning.supervision import marker_labels, selector_labels

FOOTER = ("Copyright 2024 Example Gazette Ltd. All rights reserved. Registered in England, "
          "company number 1234567. Our journalism is funded by readers like you.")


TOPICS = ["parking", "libraries", "cycle lanes", "school meals", "street lights", "recycling",
          "housing", "parks", "bus routes", "markets", "swimming pools", "allotments"]
PLACES = ["Northgate", "Riverside", "Old Town", "Hillcrest", "Eastfield", "Millbrook", "Westend",
          "Southby", "Kingsmead", "Ashford"]


def article(i: int, *, markers: bool = False) -> str:
    """A realistic news page: navigation, a unique article, a repeated long footer."""
    topic, place = TOPICS[i % len(TOPICS)], PLACES[i % len(PLACES)]
    paras = "".join(
        f"<p>Paragraph {j} of story {i}: the council voted on the {topic} plan for "
        f"{PLACES[(i + j) % len(PLACES)]}, after a debate about {TOPICS[(i + j + 3) % len(TOPICS)]} "
        f"that ran late into the evening and drew residents of {place} to speak.</p>"
        for j in range(4))
    start, end = ("<!-- content -->", "<!-- /content -->") if markers else ("", "")
    return f"""<html><head><title>Story {i}</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul></nav>
{start}<div id="main"><h1>Story number {i} about {topic} in {place}</h1>{paras}</div>{end}
<footer><p>{FOOTER}</p></footer></body></html>"""


def footer_label(page_or_result) -> str:
    return next(b for b in page_or_result.blocks if b.text.startswith("Copyright")).label


def test_normalised_fingerprints_ignore_case_digits_and_spacing():
    assert normalise("  Page 3 of  12 ") == "page 0 of 0"
    assert fingerprint("Page 3 of 12") == fingerprint("page 4  of 99")
    assert fingerprint("Page 3 of 12") != fingerprint("Page 3 of 12 more")


def test_template_block_becomes_boilerplate_after_the_threshold_and_not_before():
    # The generic extractor keeps the long footer paragraph as content.
    assert footer_label(extract(article(0), "https://example.org/0", extractor="density")) == "content"
    dec = Declutter("density", store="memory:", flush_every=1)
    labels = [footer_label(dec.extract(article(i), f"https://example.org/{i}")) for i in range(8)]
    # A block the generic steps kept is taken once seen on CONTENT_TEMPLATE_MIN_PAGES pages
    # (and in a <footer>: a second signal); before, too few pages were seen.
    n = learner.CONTENT_TEMPLATE_MIN_PAGES
    assert labels[:n] == ["content"] * n
    assert labels[n:] == ["boilerplate"] * (8 - n)
    last = dec.extract(article(9), "https://example.org/9")
    footer = next(b for b in last.blocks if b.text.startswith("Copyright"))
    assert footer.step == TEMPLATE_STEP
    assert "Paragraph 0 of story 9" in last.text  # the article itself stays
    model = dec.model("example.org")
    assert model.pages == 9 and model.fingerprints[fingerprint(FOOTER)] == 9


def test_a_kept_block_needs_a_second_signal_to_become_template():
    plain = article(3).replace("<footer>", "<div>").replace("</footer>", "</div>")
    page = Page.from_html(plain, "https://example.org/3")
    build_extractor("density").run(page)
    lesson = SiteLearner().apply(page, _footer_site())
    # Outside <footer>, a paragraph the generic steps were sure of: its repetition is not enough.
    assert footer_label(page) == "content" and lesson.template == 0
    page = Page.from_html(plain, "https://example.org/3")
    build_extractor("density").run(page)
    footer = next(b for b in page.blocks if b.text == FOOTER)
    footer.set_label("content", footer.score, "unsure-step")  # no published cut: 0.5
    footer.score = 0.55  # kept, without confidence
    SiteLearner().apply(page, _footer_site())
    assert footer_label(page) == "boilerplate"


def test_a_page_is_counted_once_and_its_blocks_once_per_page():
    model = SiteModel("s")
    fp = fingerprint("x")
    model.observe([fp, fp, fp], "https://s/1")
    assert model.pages == 1 and model.fingerprints[fp] == 1
    assert model.seen_url("https://s/1") and not model.seen_url("https://s/2")


def test_recrawl_does_not_count_pages_twice_and_keeps_content():
    dec = Declutter("density", store="memory:", flush_every=1)
    urls = [f"https://example.org/{i}" for i in range(5)]
    for i, url in enumerate(urls):
        dec.extract(article(i), url)
    again = dec.extract(article(2), urls[2])
    assert dec.model("example.org").pages == 5
    assert "Paragraph 3 of story 2" in again.text
    assert "Copyright" not in again.text


def test_near_copies_at_new_urls_do_not_make_content_template():
    dec = Declutter("density", store="memory:", flush_every=1)
    for i in range(4):
        dec.extract(article(i), f"https://example.org/{i}")
    for k in range(4):  # the same story under other URLs (print view, tracking parameters)
        result = dec.extract(article(1), f"https://example.org/1?v={k}")
        assert "Paragraph 2 of story 1" in result.text
    assert dec.model("example.org").pages == 4


def test_selector_supervision_labels_blocks_and_trains_the_classifier():
    page = Page.from_html(article(1), "https://example.org/1")
    labels = selector_labels(page, "#main")
    assert labels is not None
    texts = {b.text: keep for b, keep in zip(page.blocks, labels)}
    assert texts[FOOTER] is False and texts["Home"] is False
    assert all(keep for t, keep in texts.items() if t.startswith(("Paragraph", "Story number")))
    assert selector_labels(page, "//div[@id='main']") == labels  # XPath works too
    assert selector_labels(page, "#nothing-here") is None

    dec = Declutter("density", content_selector="#main", flush_every=1)
    result = dec.extract(article(1), "https://example.org/1")
    assert result.site_learning is not None and result.site_learning.supervised is True
    assert result.text.startswith("Story number 1") and "Copyright" not in result.text
    examples = dec.model("example.org").classifier.examples
    assert examples["keep"] >= 5 and examples["discard"] >= 3


def test_marker_supervision_follows_the_seed_comments():
    page = Page.from_html(article(2, markers=True), "https://example.org/2")
    labels = marker_labels(page)
    assert labels is not None
    kept = [b.text for b, keep in zip(page.blocks, labels) if keep]
    assert kept[0].startswith("Story number 2") and len(kept) == 5
    assert marker_labels(Page.from_html(article(2), "https://example.org/2")) is None

    dec = Declutter("density", markers=True, flush_every=1)
    result = dec.extract(article(2, markers=True), "https://example.org/2")
    assert "Home" not in result.text and "Copyright" not in result.text
    assert "Paragraph 3 of story 2" in result.text


def test_density_ngram_reproduces_the_seed_pipeline():
    # Train by selector (the seed used markers), then classify unsupervised pages.
    dec = Declutter("density+ngram", content_selector="#main", flush_every=1)
    for i in range(5):
        dec.extract(article(i), f"https://example.org/{i}")
    test = Declutter("density+ngram", store=dec.store, learn=False)
    result = test.extract(article(7), "https://example.org/7")
    steps = {b.step for b in result.blocks if b.text.startswith("Paragraph")}
    assert steps == {"ngram"}
    assert "Paragraph 1 of story 7" in result.text and "Copyright" not in result.text


def test_ngram_step_without_a_site_model_changes_nothing():
    plain = extract(article(3), "https://example.org/3", extractor="density")
    with_step = extract(article(3), "https://example.org/3", extractor="density+ngram")
    assert [b.label for b in plain.blocks] == [b.label for b in with_step.blocks]


def test_site_key_is_configurable_and_extract_stays_stateless():
    dec = Declutter("density", site_key=lambda url: "all-in-one", flush_every=1)
    dec.extract(article(1), "https://a.example/1")
    dec.extract(article(2), "https://b.example/2")
    assert dec.model("all-in-one").pages == 2
    assert extract(article(1), "https://a.example/1").site_learning is None


def test_site_learning_off_is_plain_extraction():
    dec = Declutter("density", site_learning=False)
    for i in range(5):
        result = dec.extract(article(i), f"https://example.org/{i}")
    assert footer_label(result) == "content" and dec.store is None


def test_model_round_trips_and_bad_bytes_are_refused():
    dec = Declutter("density", flush_every=1)
    for i in range(4):
        dec.extract(article(i), f"https://example.org/{i}")
    model = dec.model("example.org")
    again = SiteModel.from_bytes(model.to_bytes())
    assert summary(again) == summary(model)
    for bad in (b"", b"not zlib", model.to_bytes()[:-5]):
        with pytest.raises(ModelFormatError):
            SiteModel.from_bytes(bad)


def test_corrupt_stored_model_gives_a_logged_error_and_a_fresh_model(caplog):
    store = MemoryStore()
    store._data["example.org"] = b"\x00garbage"
    dec = Declutter("density", store=store, flush_every=1)
    with caplog.at_level(logging.ERROR):
        result = dec.extract(article(1), "https://example.org/1")
    assert "Paragraph 1 of story 1" in result.text
    assert any("corrupt" in r.message for r in caplog.records)
    assert dec.model("example.org").pages == 1
    assert SiteModel.from_bytes(store._read("example.org")[0]).pages == 1  # replaced


def test_confidence_reads_the_cut_of_the_deciding_step():
    from scrapy_declutter.sitelearning.pagekeys import page_keys

    page = Page.from_html(article(1), "https://example.org/1")
    block = page.blocks[0]

    def confidence(cuts: dict[str, float]) -> float:
        return page_keys(page, cuts=cuts, confident=0.3).confidences[0]

    block.set_label("content", 0.7, "some-step")
    assert confidence({}) == pytest.approx(0.2)
    assert confidence({"some-step": 0.3}) == pytest.approx(0.4)
    block.set_label("boilerplate", 0.1, "some-step")
    assert confidence({"some-step": 0.3}) == pytest.approx(0.2)


def test_classifier_votes_on_ambiguous_blocks_only_on_supervised_sites():
    everything_ambiguous = SiteLearner(ambiguous_margin=10.0, min_examples=5, vote_bits=0.0)
    plain = Declutter("density", flush_every=1, learner=everything_ambiguous)
    for i in range(6):
        result = plain.extract(article(i), f"https://example.org/{i}")
    assert result.site_learning.voted == 0  # self-supervised only: no votes
    taught = Declutter("density", content_selector="#main", flush_every=1,
                       learner=everything_ambiguous)
    for i in range(6):
        taught.extract(article(i), f"https://example.org/{i}")
    unlabelled = article(8).replace('id="main"', 'id="other"')  # the selector finds nothing
    result = taught.extract(unlabelled, "https://example.org/8")
    assert result.site_learning.voted > 0
    assert "Paragraph 1 of story 8" in result.text
    assert any(b.step == "site-ngram" for b in result.blocks)


def test_spec_cells_and_list_items_shared_by_pages_are_not_template():
    def product(i: int) -> str:
        rows = "".join(f"<tr><th>Chipset</th><td>NVIDIA</td></tr><tr><th>Memory</th><td>{8 + i}GB</td></tr>"
                       for _ in range(1))
        items = "".join(f"<li><p>({100 + i + k}) reviews with an average rating of 4.{k} out of 5 "
                        f"stars</p></li>" for k in range(4))
        return article(i).replace("</div>", f"<table>{rows}</table><ul>{items}</ul></div>", 1)

    dec = Declutter("density", flush_every=1, learner=SiteLearner())
    for i in range(learner.CONTENT_TEMPLATE_MIN_PAGES + 1):
        result = dec.extract(product(i), f"https://example.org/{i}")
    steps = {b.text: b.step for b in result.blocks}
    assert steps["Chipset"] != TEMPLATE_STEP and steps["NVIDIA"] != TEMPLATE_STEP
    assert not any(s == TEMPLATE_STEP for t, s in steps.items() if "reviews with" in t)
    assert steps[FOOTER] == TEMPLATE_STEP


def test_a_repeated_section_title_over_content_stays_while_the_footer_goes(monkeypatch):
    # Every page opens its article with the same short title ("Table of Contents" on
    # each index page of the Valgrind manual); removing it as template cost tiny pages
    # a tenth of their content.
    def page(i: int) -> str:
        return article(i).replace('<div id="main">', '<div id="main"><p>Table of Contents</p>', 1)

    def last_page_steps() -> dict[str, tuple[str, str | None]]:
        # A low cut, so the generic step keeps the title (the shipped model scores it 0.3):
        # what is tested is that site learning leaves it there.
        dec = Declutter("default(threshold=0.2)", flush_every=1, learner=SiteLearner())
        for i in range(6):
            result = dec.extract(page(i), f"https://example.org/{i}")
        return {b.text: (b.label, b.step) for b in result.blocks}

    steps = last_page_steps()
    assert steps[FOOTER] == ("boilerplate", TEMPLATE_STEP)
    assert steps["Table of Contents"][0] == "content"
    assert steps["Table of Contents"][1] != TEMPLATE_STEP
    # Without the rule, the same pages make the title template.
    monkeypatch.setattr(learner, "TITLE_MAX_WORDS", 0)
    assert last_page_steps()["Table of Contents"] == ("boilerplate", TEMPLATE_STEP)


def test_a_page_with_almost_no_content_keeps_it_all(monkeypatch):
    page = Page.from_html("<html><body><p>Release 3.19.0, 11 April 2022.</p>"
                          "<p>Table of Contents</p><p>Home</p></body></html>",
                          "https://example.org/faq")
    for b in page.blocks:
        b.set_label("boilerplate" if b.text == "Home" else "content", 1.0, "generic")
    for b in page.blocks:  # kept without confidence: the template may take them
        b.set_label("boilerplate" if b.text == "Home" else "content", 0.55, "generic")
    model = SiteModel("example.org", pages=10,
                      fingerprints={fingerprint(b.text): 10 for b in page.blocks[1:]})

    def labels() -> dict[str, str]:
        SiteLearner().apply(page, model)
        return {b.text: b.label for b in page.blocks}

    # Both repeated blocks are template; only the one the generic steps dropped goes.
    assert labels() == {"Release 3.19.0, 11 April 2022.": "content",
                        "Table of Contents": "content", "Home": "boilerplate"}
    monkeypatch.setattr(learner, "MIN_CONTENT_CHARS", 0)
    assert labels()["Table of Contents"] == "boilerplate"


# -- the site step -------------------------------------------------------------------------
def _footer_site(pages: int = 10) -> SiteModel:
    """A model that has seen the footer on every one of its pages."""
    return SiteModel("example.org", pages=pages, fingerprints={fingerprint(FOOTER): pages})


def test_the_site_step_reads_the_model_from_the_pages_slot():
    chain = Extractor("density+site", [*build_extractor("density").steps, SiteStep()])
    page = Page.from_html(article(3), "https://example.org/3")
    assert page.get(SITE_MODEL) is None
    chain.run(page)  # no model on the page: the generic labels stand, no lesson
    assert footer_label(page) == "content" and page.get(SITE_LESSON) is None
    page = Page.from_html(article(3), "https://example.org/3")
    model = _footer_site()
    page.put(SITE_MODEL, model)
    assert page.get(SITE_MODEL) is model
    chain.run(page)
    footer = next(b for b in page.blocks if b.text == FOOTER)
    assert (footer.label, footer.step) == ("boilerplate", TEMPLATE_STEP)
    lesson = page.get(SITE_LESSON)
    assert lesson is not None
    assert (lesson.template, lesson.voted, lesson.supervised) == (1, 0, False)


def test_declutter_reports_what_the_site_step_decided():
    dec = Declutter("density", flush_every=1)
    results = [dec.extract(article(i), f"https://example.org/{i}") for i in range(6)]
    assert results[0].site_learning == SiteDecisions(0, 0, 0, False)  # a new site: nothing yet
    assert results[1].site_learning == SiteDecisions(1, 0, 0, False)  # under MIN_PAGES: no template
    assert results[3].site_learning == SiteDecisions(3, 2, 0, False)  # the two links
    assert results[5].site_learning == SiteDecisions(5, 3, 0, False)  # and the footer
    assert extract(article(4), "https://example.org/4").site_learning is None


def test_the_site_step_takes_the_users_labels():
    step = SiteStep(content_selector="#main")
    page = Page.from_html(article(4), "https://example.org/4")
    page.put(SITE_MODEL, SiteModel("example.org"))
    step.process(page)
    assert page.get(SITE_LESSON).supervised
    assert {b.step for b in page.blocks} == {"site-supervised"}
    assert page.blocks[0].text == "Home" and not page.blocks[0].is_content


def test_declutter_runs_one_chain_that_ends_with_the_site_step():
    dec = Declutter("density", flush_every=1)
    assert isinstance(dec.chain.steps[-1], SiteStep) and dec.chain.steps[-1].name == "site"
    generic = build_extractor("density").steps
    assert [type(s) for s in dec.chain.steps[:-1]] == [type(s) for s in generic]
    plain = Declutter("density", site_learning=False).chain.steps
    assert not any(isinstance(s, SiteStep) for s in plain)
    seed = Declutter("density+ngram").chain.steps
    assert [s.name for s in seed] == ["density", "ngram", "site"]  # seed 000, then the template
    assert seed[-1].learner.vote is False  # the seed's filter voted already
    assert dec.chain.steps[-1].learner.vote is True


def test_a_banner_that_differs_only_by_date_and_url_is_learned_as_template():
    """Issue 16: a web-archive banner on every page, its date and URL changing, is template."""
    from scrapy_declutter.sitelearning.fingerprints import fingerprint

    banner = "This page was archived on {day} {month} 2024 from {url}. The live page may differ."
    a = banner.format(day=3, month="March", url="https://example.org/a?x=1")
    b = banner.format(day=21, month="Sept", url="http://www.example.org/b/c")
    assert fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint("This page was archived long ago. The live page may differ.")

    articles = ["Gardeners along the river planted early potatoes in raised beds this year.",
                "The orchard society grafted twelve heritage apple varieties onto new stock.",
                "Volunteers rebuilt the compost bays with timber saved from the old pavilion.",
                "A survey of the allotments counted forty kinds of bee among the borders."]
    months = ["January", "Feb", "April", "December"]
    with Declutter(store="memory:", flush_every=1) as dec:
        results = []
        for i, (text, month) in enumerate(zip(articles, months)):
            html = (f"<html><body><div class='banner'><p>"
                    f"{banner.format(day=i + 1, month=month, url=f'https://example.org/{i}')}"
                    f"</p></div><article><p>{text * 4}</p></article></body></html>")
            results.append(dec.extract(html, f"https://club.example/{i}"))
    last = results[-1]
    banner_block = next(b for b in last.blocks if "archived on" in b.text)
    assert banner_block.step == "site-template" and not banner_block.is_content
    assert "archived on" not in last.text and "bee among the borders" in last.text


def test_a_fresh_model_teaches_what_the_full_rules_teach_when_nothing_applies():
    # A model that has learned nothing takes a short path (a fresh site's warm-up
    # pages); one that knows a fingerprint of no block here runs every rule, none of
    # which can apply with no pages counted. Both must teach the same lesson.
    gen = build_extractor("default")
    lrn = SiteLearner()
    for i in range(3):
        page = Page.from_html(article(i), f"https://news.example/{i}")
        gen.run(page)
        labels = [(b.label, b.score, b.step) for b in page.blocks]
        fresh = lrn.apply(page, SiteModel(site="news.example"))
        assert [(b.label, b.score, b.step) for b in page.blocks] == labels
        seen = SiteModel(site="news.example", fingerprints={fingerprint("never on this page"): 1})
        full = lrn.apply(page, seen)
        assert fresh.examples == full.examples and fresh.examples
        assert (fresh.template, fresh.settled, fresh.voted, fresh.duplicate) == (0, 0, 0, False)
        assert (full.template, full.settled, full.voted, full.duplicate) == (0, 0, 0, False)
