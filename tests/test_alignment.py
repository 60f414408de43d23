"""Block labels recovered from ground-truth text (scrapy_declutter.lab.alignment)."""

from __future__ import annotations

import pytest

from scrapy_declutter.lab.dataset import Sample
from scrapy_declutter.lab.metric import word_prf
from scrapy_declutter.page import Page
from scrapy_declutter.lab.alignment import (
    align_blocks,
    labelled_pages,
    matched_shares,
    oracle_text,
)

from conftest import SHARED_WCXB, WCXB_SAMPLES, needs_shared

PARA = "The committee approved the new budget after a long debate on Tuesday evening."
PARA2 = "Opponents argued that the plan cut too deeply into school funding and transport."


def test_exact_paragraphs_are_content_and_chrome_is_not():
    blocks = ["Home", "News", "Sport", "Budget approved", PARA, PARA2, "Copyright 2024 Example Ltd"]
    reference = f"Budget approved\n\n{PARA}\n\n{PARA2}"
    assert align_blocks(blocks, reference) == [False, False, False, True, True, True, False]


def test_partial_overlap_uses_the_share_of_matched_tokens():
    # The block carries the paragraph plus a longer tail the reference leaves out.
    tail = "Read more stories like this in our weekly newsletter sent every Friday morning to subscribers"
    mostly_content = f"{PARA} Click here"
    mostly_chrome = f"{PARA2[:30]} {tail}"
    reference = f"{PARA}\n\n{PARA2}"
    labels = align_blocks([mostly_content, mostly_chrome], reference)
    assert labels == [True, False]
    shares = matched_shares([mostly_content, mostly_chrome], reference)
    assert 0.8 < shares[0] < 1.0
    assert 0.0 < shares[1] < 0.5


def test_boilerplate_phrase_repeated_inside_the_content_is_matched_once():
    phrase = "Subscribe to our newsletter"
    body = f"{PARA} {phrase} for more news like this every week."
    blocks = [phrase, "Budget approved", body, phrase, "Related articles"]
    reference = f"Budget approved\n\n{body}"
    assert align_blocks(blocks, reference) == [False, True, True, False, False]


def test_common_words_in_boilerplate_do_not_count_as_chance_matches():
    # "the" and "of" occur in the content, in the same order; two-token runs are dropped.
    blocks = [PARA, "Terms of the service and the privacy of the users"]
    assert align_blocks(blocks, PARA + " the end of the day") == [True, False]


def test_short_block_counts_when_the_whole_block_is_matched():
    blocks = ["Menu", "Introduction", PARA, "Method", PARA2]
    reference = f"Introduction\n\n{PARA}\n\nMethod\n\n{PARA2}"
    assert align_blocks(blocks, reference) == [False, True, True, True, True]


def test_empty_reference_labels_everything_boilerplate():
    assert align_blocks(["Home", PARA], "") == [False, False]
    assert align_blocks(["Home", PARA], "   \n") == [False, False]
    assert align_blocks([], PARA) == []


def test_blocks_without_word_tokens_are_boilerplate():
    assert align_blocks(["|", "»", PARA], PARA) == [False, False, True]


def test_alignment_accepts_blocks_and_oracle_joins_kept_ones():
    html = (
        "<html><body><nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
        f"<article><h1>Budget approved</h1><p>{PARA}</p><p>{PARA2}</p></article>"
        "<footer>Copyright 2024 Example Ltd</footer></body></html>"
    )
    page = Page.from_html(html, "https://example.com/a")
    reference = f"Budget approved\n\n{PARA}\n\n{PARA2}"
    labels = align_blocks(page.blocks, reference)
    kept = oracle_text(page.blocks, labels)
    assert word_prf(kept, reference).f1 == 1.0
    assert "Copyright" not in kept and "Home" not in kept


def _bundled_samples() -> list[Sample]:
    import json

    samples = []
    for truth_path in sorted(WCXB_SAMPLES.glob("*.json")):
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        file_id = truth_path.stem
        samples.append(Sample(
            file_id=file_id, url=truth.get("url", ""), page_type="", domain="",
            html_path=WCXB_SAMPLES / f"{file_id}.html.gz",
            main_content=truth["ground_truth"]["main_content"],
        ))
    return samples


def test_oracle_on_bundled_pages_is_near_perfect():
    results = list(labelled_pages(_bundled_samples()))
    assert len(results) == 9
    for page, labels, sample in results:
        assert len(labels) == len(page.blocks)
        assert any(labels), sample.file_id
        f1 = word_prf(oracle_text(page.blocks, labels), sample.main_content).f1
        assert f1 > 0.85, (sample.file_id, f1)


@needs_shared
def test_oracle_upper_bound_on_a_dataset_slice():
    from scrapy_declutter.lab.dataset import load_dataset

    samples = load_dataset(SHARED_WCXB)[::60]
    scores = [word_prf(oracle_text(p.blocks, lab), s.main_content).f1
              for p, lab, s in labelled_pages(samples)]
    assert len(scores) >= 20
    assert sum(scores) / len(scores) > 0.9


@pytest.mark.parametrize("share", [0.3, 0.7])
def test_share_threshold_is_a_parameter(share):
    block = f"{PARA} " + " ".join(f"extra{i}" for i in range(10))
    # 13 of 23 tokens matched (0.57): content at 0.3, boilerplate at 0.7.
    assert align_blocks([block], PARA, share=share) == [share < 0.57]
