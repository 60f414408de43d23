"""The text columns of a page's blocks, each computed over all the blocks at once.

What ``features`` reads from a block's text: title overlap, sentence end,
capital start, digit share, chrome phrases, datelines, Chinese or Japanese
script, HTML shown as text. Asked block by block, each regular expression
costs a call per block, and those calls were a third of the learned step.
So the searches run once per page over the blocks' texts joined by a
``SEPARATOR`` that no pattern can match (a match therefore never spans two
blocks, and ``\\b`` sees the separator as it sees the end of a text), and
each match is mapped back to its block by offset. What is read character
by character (sentence end, capital, digits, CJK script, markup, the title's
words) is one C loop over the texts where the package was built with a
compiler (``_text``), else ``python_char_columns``, its reference, which
counts over the texts' code points with NumPy. The values are the ones the
per-block searches give.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from ...segment import in_reference_walk

try:
    from . import _text as _compiled
except ImportError:  # built without a compiler: ``python_char_columns``, the reference
    _compiled = None

#: Phrases of page chrome in many languages' English-speaking templates (short blocks only),
#: searched in lower-cased text.
CHROME_PHRASES = (
    "©", "(c)", "copyright", "all rights reserved", "cookie", "privacy", "terms of use",
    "terms of service", "subscribe", "newsletter", "sign up", "sign in", "log in", "login",
    "follow us", "share this", "share on", "skip to", "read more", "related", "advertis",
)  # fmt: skip
#: The phrases as one pattern: the reference's search (the compiled one: ``_text.Phrases``).
CHROME = re.compile("|".join(map(re.escape, CHROME_PHRASES)))
WORD = re.compile(r"\w+")
_MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|januar|februar|märz|juni|juli|oktober|"
    "dezember|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|"
    "décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|"
    "diciembre")


def at_word_start(parts: Sequence[tuple[str, str]]) -> str:
    """``\\b(?:f1r1|f2r2|...)``, for ``(f, r)`` parts each an alternative's first
    character (``f``, a class of word characters) and the rest (``r``), written so
    that ``re`` skips the places where no alternative can start.

    ``re`` looks for a pattern that starts with ``\\b`` by running its matcher at
    every character of the text, which was most of the date search. A pattern
    that starts with a character class lets it scan for that class instead. So
    the first character is taken by the union of the classes, the word boundary
    before it checked behind (``(?<!\\w.)``: no word character before the one
    taken, which is never a newline), and the alternatives go on from there,
    each with its own first character checked behind (``(?<=f)``), in the order
    given. Parts with different ``f`` must never both fit one character, so
    that grouping them by ``f`` changes no order that matters. The matches are
    the plain pattern's: the same places and lengths.
    """
    groups: dict[str, list[str]] = {}
    for first, rest in parts:
        groups.setdefault(first, []).append(rest)
    alternatives = "|".join(f"(?<={first})(?:{'|'.join(rests)})" for first, rests in groups.items())
    return f"[{''.join(groups)}](?<!\\w.)(?:{alternatives})"


#: A date or a time in a short block (searched in lower-cased text), alternative by
#: alternative (``at_word_start``): ``\b(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|
#: \d{1,2}:\d{2}|(?:MONTHS)[a-zä]*\.? \d{1,2}\b|\d{1,2}\.? (?:MONTHS)|\d+ (?:hours?|...)
#: ago|yesterday|today)``, each ``\d{1,2}`` a digit and ``\d?`` after it.
DATE = re.compile(at_word_start((
    (r"\d", r"\d?[./-]\d{1,2}[./-]\d{2,4}"),
    (r"\d", r"\d{3}-\d{2}-\d{2}"),
    (r"\d", r"\d?:\d{2}"),
    *((month[0], rf"{month[1:]}[a-zä]*\.? \d{{1,2}}\b") for month in _MONTHS.split("|")),
    (r"\d", rf"\d?\.? (?:{_MONTHS})"),
    (r"\d", r"\d* (?:hours?|minutes?|days?|weeks?|months?|years?) ago"),
    ("y", "esterday"),
    ("t", "oday"),
)))
#: Code-point ranges of scripts written without spaces between words (Chinese, Japanese):
#: their blocks' words are counted by characters where prose is measured
#: (``region.prose_words``).
UNSPACED_RANGES = ((0x3040, 0x30FF), (0x3400, 0x9FFF), (0xF900, 0xFAFF))
#: Joins the texts searched at once: no pattern above matches it, and it is no word character.
SEPARATOR = "\x00"
#: Datelines are looked for in blocks up to this long.
DATELINE_MAX_WORDS = 12
#: Title overlap is computed for blocks up to this long (titles and headings are short).
TITLE_MAX_WORDS = 30
#: Chrome phrases are looked for in blocks up to this long.
CHROME_MAX_WORDS = 40
#: Digit share and script are taken over this many leading characters.
DIGIT_PREFIX = 80
#: A text ending with one of these ends like a sentence (``punct_end``).
END_PUNCT = tuple(".!?:;\"”'»)")
#: The columns ``text_columns`` returns.
TEXT_COLUMNS = ("punct_end", "title_share", "title_cover", "capital_start", "digit_share",
                "chrome_phrase", "is_date", "unspaced", "markup_text")


def text_columns(texts: Sequence[str], words: np.ndarray, title: str) -> dict[str, np.ndarray]:
    """The ``TEXT_COLUMNS`` of blocks with these texts and word counts, on a page with this title."""
    n = len(texts)
    short = words <= CHROME_MAX_WORDS  # the lowered texts serve title, chrome and dates
    low = [t.lower() if s else "" for t, s in zip(texts, short.tolist())]
    title_tokens = set(WORD.findall(title.lower()))
    if _compiled is None or in_reference_walk():
        chars = python_char_columns(texts, low, words, title_tokens)
    else:
        chars = _compiled.char_columns(
            texts if isinstance(texts, list) else list(texts), low,
            np.ascontiguousarray(words, dtype=np.float64), TITLE_MAX_WORDS, title_tokens,
            DIGIT_PREFIX, "".join(END_PUNCT), UNSPACED_RANGES)
    (punct_end, capital_start, digits, lengths, unspaced, markup_text, share,
     cover) = chars.T
    # Short blocks with a digit, or with "day" ("today", "yesterday": the dates without one).
    dated = (words <= DATELINE_MAX_WORDS) & (digits > 0)
    rest = np.flatnonzero((words <= DATELINE_MAX_WORDS) & ~dated).tolist()
    dated[[i for i in rest if "day" in low[i]]] = True
    if _compiled is None or in_reference_walk():
        chrome = _found(CHROME, low, short, n)
    else:
        chrome = _CHROME_SET.found(low, np.flatnonzero(short))
    return {
        "punct_end": punct_end, "title_share": share, "title_cover": cover,
        "capital_start": capital_start, "digit_share": digits / lengths,
        "chrome_phrase": chrome,
        # Every date the pattern finds has a digit, but "today" and "yesterday".
        "is_date": _found(DATE, low, dated, n),
        "unspaced": unspaced,
        # HTML shown as text: what <noscript> holds in a parser that runs no scripts.
        "markup_text": markup_text,
    }


def python_char_columns(texts: Sequence[str], low: list[str], words: np.ndarray,
                        title_tokens: set[str]) -> np.ndarray:
    """The columns read character by character (``_text.COLUMNS``: sentence end, capital
    start, digits and length of the first ``DIGIT_PREFIX`` characters, Chinese or
    Japanese script there, HTML shown as text, title overlap): the reference of the
    compiled ``_text.char_columns``."""
    heads = [t[:DIGIT_PREFIX] for t in texts]
    points, starts = _code_points(heads)
    digits = _count(((points >= 48) & (points <= 57)), starts)
    cjk = np.zeros(len(points), dtype=bool)
    for lo, hi in UNSPACED_RANGES:
        cjk |= (points >= lo) & (points <= hi)
    share, cover = _title_overlap(low, words, title_tokens)
    return np.column_stack([
        np.array([t.endswith(END_PUNCT) for t in texts], dtype=np.float64),
        np.array([t[:1].isupper() for t in texts], dtype=np.float64),
        digits, np.diff(starts).astype(np.float64),
        (_count(cjk, starts) > 0).astype(np.float64),
        np.array([shows_markup(h) for h in heads], dtype=np.float64),
        share, cover,
    ]).reshape(len(texts), 8)


def shows_markup(text: str) -> bool:
    """Whether a text is HTML shown as text (it starts with a tag, or closes one within its
    first ``DIGIT_PREFIX`` characters): what a ``<noscript>`` saved by a browser that ran
    scripts holds, escaped, and what a code sample quotes."""
    head = text[:DIGIT_PREFIX]
    return "</" in head or head.startswith("<")


def _code_points(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The code points of the texts end to end, and where each text starts (then the end)."""
    starts = np.zeros(len(texts) + 1, dtype=np.intp)
    np.cumsum([len(t) for t in texts], out=starts[1:])
    joined = "".join(texts).encode("utf-32-le", "surrogatepass")
    return np.frombuffer(joined, dtype=np.uint32), starts


def _count(hits: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """How many of ``hits`` fall in each text (``starts`` as ``_code_points`` gives them)."""
    cum = np.zeros(len(hits) + 1, dtype=np.int64)
    np.cumsum(hits, out=cum[1:])
    return (cum[starts[1:]] - cum[starts[:-1]]).astype(np.float64)


def _found(pattern: re.Pattern, texts: list[str], where: np.ndarray, n: int) -> np.ndarray:
    """1.0 for the texts (among those ``where`` selects) in which ``pattern`` occurs."""
    out = np.zeros(n)
    rows = np.flatnonzero(where)
    if not len(rows):
        return out
    chosen = [texts[i] for i in rows.tolist()]
    joined = SEPARATOR.join(chosen)
    starts = np.zeros(len(chosen), dtype=np.intp)
    np.cumsum([len(t) + 1 for t in chosen[:-1]], out=starts[1:])
    at = [m.start() for m in pattern.finditer(joined)]
    if at:
        out[rows[np.searchsorted(starts, at, side="right") - 1]] = 1.0
    return out


def _title_overlap(low: list[str], words: np.ndarray, title_tokens: set[str]):
    """Share of a short block's words that are title words, and share of the title covered."""
    n = len(low)
    share, cover = np.zeros(n), np.zeros(n)
    if not title_tokens:
        return share, cover
    rows, shares, covers = [], [], []  # written into the arrays at once: an item set costs more
    for i in np.flatnonzero(words <= TITLE_MAX_WORDS).tolist():
        text = low[i]
        # A block none of whose title words even occurs in it shares no word with the
        # title: the substring test spares most blocks the tokenising.
        if any(map(text.__contains__, title_tokens)):
            btoks = set(WORD.findall(text))
            common = len(btoks & title_tokens)
            rows.append(i)
            shares.append(common / len(btoks) if btoks else 0.0)
            covers.append(common / len(title_tokens))
    share[rows] = shares
    cover[rows] = covers
    return share, cover


#: ``CHROME_PHRASES`` for the compiled search, which finds a block's first phrase in one pass.
_CHROME_SET = _compiled.Phrases(CHROME_PHRASES) if _compiled is not None else None
