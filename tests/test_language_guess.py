"""The stop-word language guess: ``guess`` reads the hits list as it is and must choose as the
rule says (most hits, the default on a tie with it, else the first language in ``codes``
order), which ``scores`` states as a dict; checked on mixes of several languages' stop words
made to tie, and on the bundled pages' text."""

from __future__ import annotations

import random
from pathlib import Path

from scrapy_declutter import extract
from scrapy_declutter.language import StopwordLanguageGuesser, default_guesser

SAMPLES = Path(__file__).parent / "sample_data"


def _by_the_rule(g: StopwordLanguageGuesser, words: list[str]) -> str | None:
    scores, n = g.scores(words)
    if not scores or not n:
        return None
    best = max(scores, key=lambda code: (scores[code], code == g.default))
    if scores[best] < g.min_hits:
        return None
    if best != g.default and scores[best] < g.margin * scores.get(g.default, 0):
        return g.default
    return best


def test_guess_follows_the_rule_on_mixed_and_tied_words():
    g = default_guesser()
    vocabulary = sorted(g.index)
    rng = random.Random(42)
    for trial in range(400):
        words = rng.choices(vocabulary, k=rng.choice([0, 1, 3, 6, 12, 40, 200]))
        words += rng.choices(["lorem", "ipsum", "Zebra", "2026"], k=rng.randrange(5))
        assert g.guess(words) == _by_the_rule(g, words), (trial, words)


def test_guess_prefers_the_default_on_a_tie_and_else_the_first_language():
    g = default_guesser()
    en = g.codes.index("en")
    shared = sorted(w for w, ids in g.index.items() if en in ids and len(ids) > 1)
    words = shared[:2] * 3  # six hits (three a word at most) for English and its sharers
    scores, _ = g.scores(words)
    tied = [code for code in g.codes if scores.get(code) == scores["en"]]
    assert len(tied) > 1 and g.guess(words) == _by_the_rule(g, words) == "en"
    other = StopwordLanguageGuesser(default="xx")  # a default without a stop list
    assert other.guess(words) == _by_the_rule(other, words) == tied[0]


def test_guess_follows_the_rule_on_the_bundled_pages():
    g = default_guesser()
    pages = sorted(SAMPLES.rglob("*.html"))
    assert pages
    for path in pages:
        words = extract(path.read_bytes()).text.split() or ["none"]
        assert g.guess(words) == _by_the_rule(g, words), path
