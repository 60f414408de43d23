"""The WCXB metric on hand-computed pairs, empty cases included."""

from __future__ import annotations

import pytest

from scrapy_declutter.lab.metric import snippet_hits, tokens, word_prf


def test_tokens_are_lowercased_word_runs():
    assert tokens("Hello, World! it's 2026_x") == ["hello", "world", "it", "s", "2026_x"]


def test_identical_texts_score_one():
    s = word_prf("The cat sat.", "the CAT sat")
    assert (s.precision, s.recall, s.f1) == (1.0, 1.0, 1.0)


def test_multiset_intersection_by_hand():
    # pred: a a b c (4), ref: a b b d (4); Counter & = {a:1, b:1} -> 2
    s = word_prf("a a b c", "a b b d")
    assert s.precision == pytest.approx(0.5)
    assert s.recall == pytest.approx(0.5)
    assert s.f1 == pytest.approx(0.5)


def test_unequal_lengths_by_hand():
    # pred: x y (2); ref: x y z w (4); common 2 -> P 1, R 0.5, F1 2/3
    s = word_prf("x y", "x y z w")
    assert (s.precision, s.recall) == (1.0, 0.5)
    assert s.f1 == pytest.approx(2 / 3)


def test_disjoint_texts_score_zero():
    assert word_prf("alpha", "beta").f1 == 0.0


@pytest.mark.parametrize(
    "pred, ref, expected",
    [("", "", 1.0), ("  ...  ", "", 1.0), ("words", "", 0.0), ("", "words", 0.0), ("!!", "words", 0.0)],
)
def test_empty_cases(pred, ref, expected):
    s = word_prf(pred, ref)
    assert (s.precision, s.recall, s.f1) == (expected, expected, expected)


def test_snippet_checks_are_case_insensitive_substrings():
    text = "Main Text about Cats."
    assert snippet_hits(text, ["main text", "dogs"], present=True) == (1, 2)
    assert snippet_hits(text, ["Sign in", "CATS"], present=False) == (1, 2)
    assert snippet_hits(text, [], present=True) == (0, 0)
