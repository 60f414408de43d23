"""The compiled stop-word counts (``_language``) are the reference's (``language.stopword_counts``)."""

from __future__ import annotations

import gzip

import pytest
from conftest import SAMPLE_DATA, require_compiled

from scrapy_declutter import language
from scrapy_declutter.page import Page
from scrapy_declutter.segment import reference_walk

COMPILED = language._compiled


@pytest.fixture(scope="module", autouse=True)
def compiled_counts():
    require_compiled(COMPILED, "stop-word count")


def _reference(texts, stops):
    return [language.stopword_counts(t, stops) for t in texts]


def test_odd_words_and_whitespace_count_as_the_reference_counts():
    stops = language.stoplist("en") | language.stoplist("el")
    texts = ["The end of it", "the, of. (the)", "ΤΟ\u00a0ΣΑΣ the\u2003of\u3000x", "don't",
             "of_", "…the…", "x\u200bthe", "\u212a the\u2028of", "  the  ", "\u00b2the", "THE-OF",
             # The first run of \\w characters of a word with punctuation decides: "x-the"
             # is no stop word, "_the_" is one only if "_the_" were, "٣the" is one word.
             "x-the", "_the_", "'the'", "(of)", "the—", "—", "٣the", "--", "of-x the,"]
    got = language.page_stopword_counts(texts, stops)
    assert got == _reference(texts, stops)
    assert got[1] == (0, 3) and got[2][0] >= 2
    with reference_walk():
        assert language.page_stopword_counts(texts, stops) == got


@pytest.mark.parametrize("path", sorted(p for p in SAMPLE_DATA.rglob("*")
                                        if p.name.endswith((".html", ".html.gz")))[:40],
                         ids=lambda p: str(p.relative_to(SAMPLE_DATA)))
def test_bundled_pages_count_as_the_reference_counts(path):
    data = path.read_bytes()
    page = Page.from_html(gzip.decompress(data) if path.suffix == ".gz" else data)
    stops = language.stoplist(page.language)
    texts = [b.text for b in page.blocks]
    assert COMPILED.stopword_counts(texts, stops) == _reference(texts, stops)


def test_stop_words_are_found_by_code_points_as_string_equality_finds_them():
    """The compiled table (FNV-1a over code points, open addressing) answers ``in stops``:
    words that collide in its slots, differ in one code point or in length, wide
    characters, and sets holding more than plain strings (looked up in the set)."""
    words = [f"w{i}" for i in range(300)] + ["é", "\U0001f600x", "ab", "abc", "a"]
    stops = frozenset(words)
    texts = [" ".join(words), "w3 w30 w300 w3000 ab abc abcd b é e \U0001f600x \U0001f600",
             "W1, (w2) w299. x-w5", ""]
    got = language.page_stopword_counts(texts, stops)
    assert got == _reference(texts, stops)
    assert got[0] == (len(words), len(words)) and got[1][0] == 6
    class Word(str):
        pass
    odd = frozenset([Word("the"), b"of", "a"])
    assert COMPILED.stopword_counts(["the of a b"], odd) == [(2, 2)] == _reference(["the of a b"], odd)


def test_ascii_texts_are_looked_up_with_their_capitals_folded():
    """ASCII texts are not lower-cased into a copy: their capitals are folded where words
    are looked up (``_StopTable.has_folded``). Every ASCII capital and the characters next
    to them (``@``, ``[``, `` ` ``, ``{``), in words with and without punctuation, count as
    in the lower-cased text; the same words beside a non-ASCII one take the copy."""
    stops = language.stoplist("en") | frozenset(["@a", "[z", "`x", "{y", "ab_cd"])
    ascii = ["THE Of aNd", "@A [Z `X {Y", "AB_CD, (THE) X-THE", "Don'T", "tHe\tOF\x0bAnd",
             " ".join(chr(c) + "he" for c in range(64, 124)), "QWERTYUIOPASDFGHJKLZXCVBNM the"]
    texts = ascii + [t + " \u00e9" for t in ascii]
    assert all(t.isascii() for t in ascii) and not any(t.isascii() for t in texts[len(ascii):])
    got = language.page_stopword_counts(texts, stops)
    assert got == _reference(texts, stops)
    assert got[0] == (3, 3) and got[1] == (4, 4) and got[2][1] >= 2
    assert got[:len(ascii)] == got[len(ascii):]


def test_counts_are_written_into_the_blocks_as_the_reference_writes_them():
    html = b"<html><body><p>The cat sat on the mat, of course.</p><div><b></b></div>" \
           b"<p>x</p><ul><li>of the</li></ul></body></html>"
    got, want = (Page.from_html(html).blocks for _ in range(2))
    counts = [(k % 3, k) for k in range(len(got))]
    got[1].words = 0  # a block without words: density 0
    want[1].words = 0
    language.set_stopword_fields(got, counts)
    with reference_walk():
        language.set_stopword_fields(want, counts)
    fields = ("bare_stopwords", "stopwords", "stopword_density")
    assert [[getattr(b, f) for f in fields] for b in got] == [[getattr(b, f) for f in fields] for b in want]
    assert got[1].stopword_density == 0.0 and got[2].stopword_density == 2 / got[2].words
    assert all(type(b.stopword_density) is float for b in got)
    # Objects of another class are set by setattr, the same values.
    class Plain:
        def __init__(self, words):
            self.words = words

    others = [Plain(4), Plain(0)]
    language.set_stopword_fields(others, [(1, 2), (0, 0)])
    assert [(o.bare_stopwords, o.stopwords, o.stopword_density) for o in others] == [(1, 2, 0.5), (0, 0, 0.0)]
    with pytest.raises(ValueError):
        language.set_stopword_fields(got, counts[:-1])
