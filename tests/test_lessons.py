"""Lessons: a classifier counts what it was taught when its tables are read, and the tables
are the ones counting each page at once gives (``sitelearning.lessons``)."""

from __future__ import annotations

import numpy as np
import pytest

from test_sitemodel import article

from scrapy_declutter import Declutter
from scrapy_declutter.errors import ModelFormatError
from scrapy_declutter.sitelearning import SiteModel
from scrapy_declutter.sitelearning.learner import SiteLearner
from scrapy_declutter.sitelearning.lessons import LESSON_CHARS, Lesson, arrays, from_arrays
from scrapy_declutter.sitelearning.ngram import DISCARD, KEEP, NGramClassifier


def _pages(n: int) -> list[Lesson]:
    """Lessons of n pages: each its own story, and a footer every page repeats."""
    return [Lesson.of({KEEP: [f"Story {i}: the council voted on plan {i * 7} for the river "
                              f"district after a debate that ran late, résumé {i}.",
                              f"Residents of ward {i % 5} spoke about the bridge."],
                       DISCARD: ["Subscribe to our newsletter. © 2024 The Daily Gazette.",
                                 f"Page {i} of {n} · Next · Previous", ""]})
            for i in range(n)]


def _tables(clf: NGramClassifier) -> list[tuple[np.ndarray, np.ndarray]]:
    return [lm.table() for lm in clf.lms.values()]


def _same(a: NGramClassifier, b: NGramClassifier) -> bool:
    return a.examples == b.examples and all(
        np.array_equal(ka, kb) and np.array_equal(ca, cb)
        for (ka, ca), (kb, cb) in zip(_tables(a), _tables(b)))


def test_counting_later_gives_the_tables_counting_at_once_gives():
    # A small cap, so batches are folded and pruned many times along the way.
    lazy, eager = NGramClassifier(max_entries=300), NGramClassifier(max_entries=300)
    for lesson in _pages(40):
        lazy.add_lesson(lesson)
        eager.add_lesson(Lesson(lesson.texts))
        eager.lms  # read: counted now
    assert lazy._lessons and not eager._lessons
    assert len(eager.lms[KEEP]) <= 300
    assert _same(lazy, eager)
    assert lazy.classify("the council voted").log_odds == eager.classify("the council voted").log_odds


def test_a_lesson_is_counted_once_for_the_site_and_its_delta():
    site, delta = NGramClassifier(), NGramClassifier()
    lesson = _pages(1)[0]
    site.add_lesson(lesson)
    delta.add_lesson(lesson)
    site.classify("any text")  # the site's pages are scored: it counts the lesson
    assert lesson.is_counted
    counted = lesson.counted(site.order)
    assert lesson.counted(site.order) is counted  # the delta reuses the counts
    assert _same(site, delta)


def test_past_the_character_budget_lessons_are_counted():
    clf = NGramClassifier()
    text = "a long paragraph of story text that goes on and on. " * 38  # 2,000 characters cut
    lesson = Lesson.of({KEEP: [text] * 6})
    for _ in range(LESSON_CHARS // lesson.chars):
        clf.add_lesson(lesson)
    assert clf._lessons  # at the budget: still waiting
    clf.add_lesson(lesson)
    assert not clf._lessons and len(clf._lms[KEEP]) > 0


def test_a_classifier_that_scores_counts_each_lesson_at_once():
    clf = NGramClassifier()
    clf.add_lesson(_pages(1)[0])
    clf.classify("some text")
    clf.add_lesson(_pages(2)[1])
    assert not clf._lessons


def test_lessons_are_stored_as_texts_and_come_back_uncounted():
    model = SiteModel("s.example")
    for lesson in _pages(5):
        model.classifier.add_lesson(lesson)
    again = SiteModel.from_bytes(model.to_bytes())
    assert [lesson.texts for lesson in again.classifier._lessons] == \
        [lesson.texts for lesson in model.classifier._lessons]
    assert not any(len(lm._keys) for lm in again.classifier._lms.values())  # nothing counted
    assert _same(again.classifier, model.classifier)
    # Read without tables (a Declutter that never scores): no lessons either.
    lean = SiteModel.from_bytes(model.to_bytes(), ngrams=False)
    assert not lean.classifier._lessons and lean.classifier.examples == model.classifier.examples


def test_beside_counted_tables_lessons_are_counted_before_they_are_stored():
    model = SiteModel("s.example")
    first, *rest = _pages(4)
    model.classifier.add_lesson(first)
    model.classifier.lms  # counted
    for lesson in rest:
        model.classifier.add_lesson(lesson)
    blob = model.to_bytes()
    again = SiteModel.from_bytes(blob)
    assert not again.classifier._lessons
    assert _same(again.classifier, model.classifier)


def test_stored_lessons_that_do_not_add_up_are_refused():
    stored = arrays(_pages(3))
    assert [lesson.texts for lesson in from_arrays(stored)] == [p.texts for p in _pages(3)]
    short = {**stored, "lesson_sizes": stored["lesson_sizes"][:-1]}
    with pytest.raises(ModelFormatError, match="add up"):
        from_arrays(short)
    bad = {**stored, "lesson_texts": np.full_like(stored["lesson_texts"], 0xFF)}
    with pytest.raises(ModelFormatError, match="UTF-8"):
        from_arrays(bad)
    unknown = {**stored, "lesson_categories": np.full_like(stored["lesson_categories"], 7)}
    with pytest.raises(ModelFormatError):
        from_arrays(unknown)


def test_an_unknown_category_is_refused():
    with pytest.raises(ValueError, match="category"):
        Lesson.of({"maybe": ["text"]})


def test_a_crawl_that_never_scores_stores_lessons_and_a_reader_counts_them(tmp_path):
    uri = f"sqlite:///{tmp_path}/s.db"
    # A learner whose unsupervised pages teach (the default one's do only where a vote reads it).
    with Declutter("density", store=uri, flush_every=2, learner=SiteLearner(train=True)) as dec:
        assert not dec.scores_text
        for i in range(6):
            dec.extract(article(i), f"https://lessons.example/{i}")
        delta = dec._sites["lessons.example"].delta
        assert delta is None or all(not lesson.is_counted for lesson in delta.classifier._lessons)
    with Declutter("density", store=uri) as reader:
        stored = reader.model("lessons.example")
    assert stored.pages == 6
    assert stored.classifier.examples[KEEP] >= 6 and stored.classifier.examples[DISCARD] >= 6
    assert all(len(lm) for lm in stored.classifier.lms.values())
