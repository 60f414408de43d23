"""The page's own cut (``decide.page_cut``): two-means on the page's word-weighted probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_declutter import extract
from scrapy_declutter.lab.metric import word_prf
from scrapy_declutter.page import Page
from scrapy_declutter.steps.learned.decide import ADAPT, decide, page_cut, two_means

from conftest import wcxb_page

SENTENCE = "the members of the forum wrote at length about the new release and its many changes "


def test_two_means_cuts_halfway_between_the_word_weighted_means_of_the_two_sides():
    probs = np.array([0.8, 0.6, 0.3, 0.2])
    words = np.array([100.0, 100.0, 100.0, 100.0])
    assert two_means(words, probs, 0.5) == pytest.approx((0.7 + 0.25) / 2)
    # Words weigh: a long block pulls its side's mean to itself.
    weighted = two_means(np.array([10.0, 1000.0, 1000.0]), np.array([0.9, 0.55, 0.2]), 0.5)
    assert weighted == pytest.approx((0.9 * 10 + 0.55 * 1000) / 1010 / 2 + 0.1)


def test_two_means_keeps_the_start_when_one_side_has_no_words():
    assert two_means(np.array([50.0, 60.0]), np.array([0.4, 0.3]), 0.5) == 0.5
    assert two_means(np.array([50.0, 0.0]), np.array([0.9, 0.1]), 0.5) == 0.5


def test_page_cut_moves_adapt_of_the_way_to_the_split():
    probs = np.array([0.8, 0.6, 0.3, 0.2])
    words = np.full(4, 100.0)
    split = two_means(words, probs, 0.5)
    assert page_cut(words, probs, 0.5, 0.0) == 0.5
    assert page_cut(words, probs, 0.5, 1.0) == pytest.approx(split)
    assert page_cut(words, probs, 0.5, ADAPT) == pytest.approx(0.5 + ADAPT * (split - 0.5))


def _thread(probs: list[float]) -> Page:
    body = "".join(f"<p>{SENTENCE}{i}</p>" for i in range(len(probs)))
    return Page.from_html(f"<html><body>{body}</body></html>".encode(), "http://forum.test/t/1")


def test_a_page_unsure_everywhere_keeps_the_group_its_probabilities_set_apart():
    # Posts at 0.44-0.55, chrome at 0.05-0.1: one post passes the 0.5 cut, the split keeps them all.
    probs = np.array([0.55, 0.45, 0.44, 0.46, 0.1, 0.05])
    page = _thread(list(probs))
    assert len(page.blocks) == len(probs)
    plain = decide(page.blocks, probs, threshold=0.5)
    own = decide(page.blocks, probs, threshold=0.5, adapt=ADAPT)
    assert plain.tolist() == [True, False, False, False, False, False]
    assert own.tolist() == [True, True, True, True, False, False]


def test_the_favours_keep_their_order_on_every_page():
    rng = np.random.default_rng(0)
    page = _thread([0.5] * 12)
    for _ in range(200):
        probs = rng.beta(0.7, 0.7, len(page.blocks))
        balanced = 0.45
        keeps = [decide(page.blocks, probs, threshold=balanced + off, adapt=ADAPT, favor_offset=off)
                 for off in (0.1, 0.0, -0.1)]
        assert (keeps[0] <= keeps[1]).all() and (keeps[1] <= keeps[2]).all()


@pytest.mark.parametrize("file_id", ["4287", "4280"])
def test_the_default_scores_better_with_the_pages_own_cut_on_unsure_pages(file_id):
    # 4287 (a service page) and 4280 (a collection): the per-type cut keeps too little or
    # too much. Which training pages the shipped model is unsure of moves with each retrain:
    # 4280 gained under 0.01 after the eighth session's, and the documentation page 2860
    # (+0.0099 F1) after the one on <noscript> boxes.
    html, truth = wcxb_page(file_id)
    url, reference = truth["url"], truth["ground_truth"]["main_content"]

    def f1(extractor: str) -> float:
        return word_prf(extract(html, url, extractor=extractor).text, reference).f1

    assert f1("default") > f1("default(adapt=0)") + 0.01
