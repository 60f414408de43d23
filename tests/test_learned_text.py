"""The text columns of the learned features, computed over all blocks at once (``text``),
against the same definitions applied one block at a time: both the compiled
character loop (``_text``) and its pure-Python reference (``python_char_columns``,
taken inside ``reference_walk()``)."""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest
from conftest import require_compiled, wcxb_page

from scrapy_declutter.page import Page
from scrapy_declutter.segment import reference_walk
from scrapy_declutter.steps.learned import text as T

BUNDLED = ("0082", "0540", "0619", "0688", "2860")
PATHS = ("compiled", "reference")
#: The chrome pattern as it was written before ``CHROME_PHRASES`` listed its phrases: the
#: definition both searches are held to.
CHROME_AS_WRITTEN = re.compile(
    r"©|\(c\)|copyright|all rights reserved|cookie|privacy|terms of (?:use|service)|"
    r"subscribe|newsletter|sign (?:up|in)|log ?in|follow us|share (?:this|on)|"
    r"skip to|read more|related|advertis")


def _path(name):
    """The context a path runs in: the compiled loop needs the build, the reference a switch."""
    if name == "reference":
        return reference_walk()
    require_compiled(T._compiled, "text columns")
    return contextlib.nullcontext()


def _one_by_one(texts, words, title):
    """Each column as its definition reads, block by block (the reference)."""
    title_tokens = set(T.WORD.findall(title.lower()))
    rows = []
    for text, w in zip(texts, words):
        low = text.lower() if w <= T.CHROME_MAX_WORDS else ""
        head = text[:T.DIGIT_PREFIX]
        digits = len(re.findall(r"[0-9]", head))
        share = cover = 0.0
        if title_tokens and w <= T.TITLE_MAX_WORDS:
            btoks = set(T.WORD.findall(low))
            common = len(btoks & title_tokens)
            share = common / len(btoks) if btoks else 0.0
            cover = common / len(title_tokens)
        rows.append({
            "punct_end": float(text.endswith(tuple(".!?:;\"”'»)"))),
            "title_share": share, "title_cover": cover,
            "capital_start": float(text[:1].isupper()),
            "digit_share": digits / len(head),
            "chrome_phrase": float(bool(w <= T.CHROME_MAX_WORDS and CHROME_AS_WRITTEN.search(low))),
            # Dates are looked for where the head has a digit or the text says "day".
            "is_date": float(bool(w <= T.DATELINE_MAX_WORDS and (digits or "day" in low)
                                  and T.DATE.search(low))),
            "unspaced": float(bool(re.search(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]", head))),
            "markup_text": float("</" in head or head.startswith("<")),
        })
    return {name: np.array([r[name] for r in rows]) for name in T.TEXT_COLUMNS}


def _check(texts, title):
    words = np.array([len(t.split()) for t in texts], dtype=np.float64)
    got = T.text_columns(texts, words, title)
    with reference_walk():
        reference = T.text_columns(texts, words, title)
    want = _one_by_one(texts, words, title)
    assert list(got) == list(T.TEXT_COLUMNS)
    for name in T.TEXT_COLUMNS:
        assert np.array_equal(got[name], want[name]), name
        assert np.array_equal(reference[name], want[name]), name


def test_searches_over_joined_texts_never_span_two_blocks_nor_miss_one():
    texts = [
        "Posted 3 hours", "ago by the editor",  # a date only if read across the two
        "12", ":30 in the afternoon",  # a time only if read across
        "Related", "Read more", "sign", "up now", "© 2024", "Today at noon",
        "Budget approved after long debate", "budget", "Mar 3", "3 March", "2024-01-05",
        "ΟΔΟΣ ΣΕΛΙΔΑΣ", "İstanbul'da bugün", "日本語の記事です", "中文", "<p>shown</p>", "a </b>",
        "Ends here.", "“Quoted”", "x" * 200 + " 2024-01-05", "Cookie policy and privacy",
        "Terms of Service", "Log in", "login here", "Share on X", "(c) us", "Follow us",
        "terms of", "sig", "share", "Advertisement", "All rights reserved",
    ]
    _check(texts, "Budget approved after long debate")
    _check(texts, "")
    _check(["only one block, 10:45"], "One")
    # Case and word characters where C and Python could part: Kelvin sign, titlecase
    # letters, dotted capital I, final sigma, underscores, digits of other scripts.
    _check(["\u212aelvin scale", "\u01c5ungla", "İzmir_2024 ΣΑΣ", "x_y z", "٣ days ago",
            "snake_case title", "<", "a<", "</", "ab</"], "Kelvin \u212a snake_case ΣΑΣ")
    # Latin-1 texts (one byte a character): ASCII runs read a byte at a time, then the rest.
    _check(["Café_crème à la Straße", "caféx straße_2", "À_la carte", "x_ café", "ªº²"],
           "Café Straße à la carte ª")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("file_id", BUNDLED)
def test_text_columns_equal_the_block_by_block_definitions_on_bundled_pages(file_id, path):
    html, truth = wcxb_page(file_id)
    page = Page.from_html(html, truth.get("url"))
    texts = [b.text for b in page.blocks]
    words = np.array([b.words for b in page.blocks], dtype=np.float64)
    with _path(path):
        got = T.text_columns(texts, words, page.title)
    want = _one_by_one(texts, words, page.title)
    for name in T.TEXT_COLUMNS:
        assert np.array_equal(got[name], want[name]), name
    assert got["title_cover"].max() > 0  # the page's title is found in its heading


def test_phrases_are_found_and_counted_as_the_alternation_and_str_count_do():
    """``_text.Phrases``, the one-pass search of the chrome phrases and the page-type
    phrases: ``found`` is ``re.search`` of their alternation, ``counts`` is ``str.count``
    (overlapping occurrences of one phrase count once, phrases starting with characters
    beyond Latin-1 too, a phrase cut off by the text's end does not count)."""
    require_compiled(T._compiled, "text columns")
    phrases = ["aa", "aba", "€", "©", "b", "ＡＢ", "x€", "eur ", "add to cart", "ac", "a€b"]
    found = T._compiled.Phrases(phrases)
    # Phrases sharing a first character are told apart by the second before they are
    # compared (wide second characters, a first character at the text's end, too).
    texts = ["aaaa", "ababa", "€€ x€", "©", "", "ＡＢＡＢ", "eur", "eur 5, eur ", "add to car",
             "add to cart, add to cart", "nothing", "abaaba", "日本語ＡＢ", "a", "xa", "ac a€b a€",
             "za₤b ad", "x₤", "Ａ"]
    for text in texts:
        assert found.counts(text) == [text.count(p) for p in phrases], text
    alternation = re.compile("|".join(map(re.escape, phrases)))
    want = [float(bool(alternation.search(t))) for t in texts]
    rows = np.arange(len(texts), dtype=np.intp)
    assert found.found(texts, rows).tolist() == want
    assert found.found(texts, rows[1::2].copy()).tolist() == [w if i % 2 else 0.0
                                                       for i, w in enumerate(want)]
    with pytest.raises(ValueError):
        T._compiled.Phrases(["ok", ""])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("file_id", BUNDLED)
def test_page_text_shape_is_the_reference_on_bundled_pages(file_id, path):
    """The page-type vector's text shape from the compiled loop (``_text.shape``, dates
    looked for in the lines with a digit, phrases counted in one pass) is the one
    ``pagetype.python_shape`` and ``str.count`` give."""
    from scrapy_declutter.steps.learned import pagetype

    html, truth = wcxb_page(file_id)
    page = Page.from_html(html, truth.get("url"))
    with _path(path):
        got = pagetype._text_shape(page)
    figures, short = pagetype.python_shape(page.blocks)
    lines = "\n".join(short).lower()
    total = figures[0] or 1
    assert got[0] == np.log1p(len(page.blocks)) and got[1] == np.log1p(total)
    assert got[5] == figures[1] / total and got[6] == figures[2] / total
    assert got[9] == np.log1p(len(pagetype._DATE.findall(lines)))
    phrases = [np.log1p(sum(lines.count(p) for p in words))
               for words in pagetype._PHRASES.values()]
    assert got[10:10 + len(phrases)] == phrases
    with reference_walk():
        assert got == pagetype._text_shape(page)


def test_the_compiled_shape_reads_objects_of_another_class_with_getattr():
    """``_text.shape`` reads the blocks' fields at their slots (``_slots``) when they are
    of the first block's class, and with getattr otherwise: the same figures."""
    from scrapy_declutter.blocks import HEADING_TAGS
    from scrapy_declutter.steps.learned import pagetype

    require_compiled(pagetype._text, "page text shape")
    html, truth = wcxb_page("0540")
    blocks = Page.from_html(html, truth.get("url")).blocks

    class Plain:
        def __init__(self, b):
            for name in ("words", "link_words", "link_density", "tag", "text"):
                setattr(self, name, getattr(b, name))

    args = (HEADING_TAGS, pagetype.SHORT_LINE, pagetype._PROSE_MIN_WORDS,
            pagetype._PROSE_MAX_LINKS, pagetype._TINY_WORDS)
    mixed = [Plain(b) if k % 3 else b for k, b in enumerate(blocks)]
    assert pagetype._text.shape(mixed, *args) == pagetype._text.shape(blocks, *args)
    assert pagetype._text.shape(blocks, *args)[0] == pagetype.python_shape(blocks)[0]


def test_the_date_pattern_finds_what_the_plain_one_finds():
    """``DATE`` is written alternative by alternative (``at_word_start``) so that ``re``
    scans for the first character; the pattern as written before must find the same
    matches at the same places."""
    months = T._MONTHS
    plain = re.compile(
        r"\b(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|"
        rf"(?:{months})[a-zä]*\.? \d{{1,2}}\b|\d{{1,2}}\.? (?:{months})|"
        r"\d+ (?:hours?|minutes?|days?|weeks?|months?|years?) ago|yesterday|today)")
    assert T.DATE.pattern.startswith("[\\d") and months.count("|") == 42
    assert T.at_word_start([("a", "b"), ("c", "d"), ("a", "e")]) == "[ac](?<!\\w.)(?:(?<=a)(?:b|e)|(?<=c)(?:d))"
    rng = np.random.default_rng(7)
    pieces = [*months.split("|"), *(m[:-1] for m in months.split("|")), "2", "12", "2024", "٣",
              ".", " ", " ", " ", "-", ":", "/", "x", "ä", "ago", "day", "days", "3 hours", "today",
              "yesterday", "\x00", "\n", "é", "1.", "_"]
    texts = ["".join(rng.choice(pieces, size=rng.integers(1, 12))) for _ in range(20000)]
    texts += ["on jan 5 and 12 januar, 3. märz 2024", "jun.12 juni 3 juillet 14 2 décembre",
              "septiembre 30 sep. 1 dezember 24 aug 2", "20 oct 12:30 2024-01-02 5 days ago",
              "x2024-01-02 a1:30 _today today_ 12 hours agox 1/2/2024"]
    for text in texts:
        assert [m.span() for m in T.DATE.finditer(text)] == [m.span() for m in plain.finditer(text)], text
    assert sum(bool(T.DATE.search(t)) for t in texts) > 400  # matches at many places, not none


def test_the_page_type_date_pattern_finds_what_the_plain_one_finds():
    """``pagetype._DATE`` too is written by ``at_word_start``: the same matches, so the
    same count of dates in a page's short lines, as the pattern written before."""
    from scrapy_declutter.steps.learned import pagetype

    plain = re.compile(r"\b(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|"
                       r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2})\b")
    rng = np.random.default_rng(11)
    pieces = ["jan", "feb", "ma", "may", "sep", "dec", "uary", "ember", "2", "12", "2024", "٣",
              ".", " ", " ", "-", "/", "x", "\n", "é", "_", "1."]
    texts = ["".join(rng.choice(pieces, size=rng.integers(1, 14))) for _ in range(20000)]
    texts += ["may 5, 2024\njan. 12 and 2024-01-02x 1/2/24 12.3.2024 sept. 3"]
    for text in texts:
        assert pagetype._DATE.findall(text) == plain.findall(text), text
    assert sum(len(pagetype._DATE.findall(t)) for t in texts) > 100  # dates found, not none
