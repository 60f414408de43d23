"""Stop lists and the language they are chosen by, from plain data: words and codes.

Stop words are what jusText (seed 003) and the stop-word density feature of
every other step count, so every page needs a stop list, so it needs a
language. The lists are jusText's own (about 80 languages with an ISO 639-1
code), read straight from the files in the installed package's ``stoplists/``
folder. jusText itself is never imported: its ``__init__`` loads its HTML
cleaner, which lxml 5.2 moved to the separate ``lxml_html_clean`` package, and
an install without it (the pip that Python 3.11 ships resolves one) would
fail on every page for the sake of a word list.

``<html lang>`` is the first source of the language; pages without it (4% of
WCXB) get a guess. The guess is the one jusText's documentation suggests: the
language whose stop words make up the largest share of the page's words. It
needs no model beyond the stop lists, and it costs a couple of milliseconds.

Three details keep it honest:

- jusText's stop lists were mined from Wikipedia and several are polluted
  with English (Marathi's second word is ``the``; Finnish, Uzbek, Sundanese
  and Yoruba have dozens of English words). Whole lists would call most
  English pages Marathi. The lists are ordered by frequency, so only each
  language's ``TOP_STOPWORDS`` most frequent words vote: there the pollution
  is small and every language has a list of the same size.
- English is the fallback anyway, so another language must beat English's
  share by ``MARGIN_OVER_DEFAULT``; a page of code, names or numbers stays
  English, as it would without detection.
- A word counts at most ``MAX_COUNT_PER_WORD`` times, so one repeated
  snippet cannot outvote the page: a WCXB page whose hidden templates hold
  lorem ipsum was Latin on raw counts (``ut`` 41 times, ``sed`` 22).

Tokens are lower-cased whitespace-separated words, as jusText counts them.
Nothing here knows a Page: the Page hands in its words and its root's
attributes and keeps what comes back on itself and its blocks.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from functools import lru_cache
from importlib import import_module
from importlib.util import find_spec
from itertools import filterfalse, islice
from types import ModuleType
from typing import TYPE_CHECKING, Iterable, Sequence

from .blocks import Block
from .segment import in_reference_walk

if TYPE_CHECKING:
    from lxml import etree

#: ISO 639-1 codes to the names jusText's stop lists go by.
ISO_TO_STOPLIST = {
    "af": "Afrikaans", "sq": "Albanian", "ar": "Arabic", "hy": "Armenian",
    "az": "Azerbaijani", "eu": "Basque", "be": "Belarusian", "bn": "Bengali",
    "bs": "Bosnian", "br": "Breton", "bg": "Bulgarian", "ca": "Catalan",
    "hr": "Croatian", "cs": "Czech", "da": "Danish", "nl": "Dutch",
    "en": "English", "eo": "Esperanto", "et": "Estonian", "fi": "Finnish",
    "fr": "French", "gl": "Galician", "ka": "Georgian", "de": "German",
    "el": "Greek", "gu": "Gujarati", "ht": "Haitian", "he": "Hebrew",
    "hi": "Hindi", "hu": "Hungarian", "is": "Icelandic", "id": "Indonesian",
    "ga": "Irish", "it": "Italian", "jv": "Javanese", "kn": "Kannada",
    "kk": "Kazakh", "ko": "Korean", "ku": "Kurdish", "ky": "Kyrgyz",
    "la": "Latin", "lv": "Latvian", "lt": "Lithuanian", "lb": "Luxembourgish",
    "mk": "Macedonian", "ms": "Malay", "ml": "Malayalam", "mt": "Maltese",
    "mr": "Marathi", "ne": "Nepali", "nb": "Norwegian_Bokmal", "no": "Norwegian_Bokmal",
    "nn": "Norwegian_Nynorsk", "oc": "Occitan", "fa": "Persian", "pl": "Polish",
    "pt": "Portuguese", "qu": "Quechua", "ro": "Romanian", "ru": "Russian",
    "sr": "Serbian", "sk": "Slovak", "sl": "Slovenian", "es": "Spanish",
    "su": "Sundanese", "sw": "Swahili", "sv": "Swedish", "tl": "Tagalog",
    "ta": "Tamil", "te": "Telugu", "tr": "Turkish", "tk": "Turkmen",
    "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese",
    "cy": "Welsh", "fy": "West_Frisian", "yo": "Yoruba",
}  # fmt: skip
DEFAULT_LANGUAGE = "en"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_WORD = re.compile(r"\w+")

try:  # by name, as ``segment`` loads ``_segment``: the import graph sees only .py modules
    _compiled: "ModuleType | None" = import_module(f"{__package__}._language")
except ImportError:  # built without a compiler: ``stopword_counts`` block by block
    _compiled = None


def normalise_language(code: str | None) -> str | None:
    """``en-GB`` / ``EN_us`` → ``en``; None for codes we have no stop list for."""
    if not code:
        return None
    primary = code.strip().lower().replace("_", "-").split("-")[0]
    return primary if primary in ISO_TO_STOPLIST else None


def stoplist_file(name: str) -> bytes:
    """The bytes of jusText's stop list ``name`` (``English``), read without importing jusText.

    ``find_spec`` locates an installed package without running its
    ``__init__``; its loader reads the file, as ``pkgutil.get_data`` would
    after importing the package.
    """
    spec = find_spec("justext")
    if spec is None or spec.origin is None or spec.loader is None:
        raise ModuleNotFoundError(
            "scrapy_declutter reads its stop lists from the jusText package, which is not "
            "installed: pip install justext", name="justext")
    path = os.path.join(os.path.dirname(spec.origin), "stoplists", f"{name}.txt")
    return spec.loader.get_data(path)  # type: ignore[attr-defined]


@lru_cache(maxsize=32)
def stoplist(language: str) -> frozenset[str]:
    """The lower-cased stop words of an ISO 639-1 language; empty when unknown.

    The words ``justext.get_stoplist`` gives, lower-cased once more as before.
    """
    name = ISO_TO_STOPLIST.get(language)
    if name is None:
        return frozenset()
    return frozenset(w.decode("utf8").lower() for w in stoplist_file(name).splitlines())


def stopword_counts(text: str, stops: frozenset[str]) -> tuple[int, int]:
    """(bare, all): stop words among a block's lower-cased whitespace-separated words.

    *bare* counts the words that are stop words as they stand, as jusText
    does (``the,`` is not one): its thresholds were tuned on that count.
    *all* also counts words that are stop words once the punctuation around
    them is ignored, the density the other steps' features read.

    Runs once per block of every page, so the common case (a bare word) is
    counted by C-level ``map``; only words with punctuation take the regex.
    """
    words = text.lower().split()
    bare = n = sum(map(stops.__contains__, words))
    for w in filterfalse(str.isalnum, words):
        if w not in stops:
            m = _WORD.search(w)
            if m and m.group() in stops:
                n += 1
    return bare, n


def page_stopword_counts(texts: list[str], stops: frozenset[str]) -> list[tuple[int, int]]:
    """``stopword_counts`` of each text (a page's blocks): one C loop where the package was
    built with a compiler (``_language``), else (and inside ``segment.reference_walk()``)
    the reference block by block."""
    if _compiled is None or in_reference_walk():
        return [stopword_counts(t, stops) for t in texts]
    return _compiled.stopword_counts(texts, stops)


def set_stopword_fields(blocks: Sequence[Block], counts: Sequence[tuple[int, int]]) -> None:
    """Each block's ``bare_stopwords`` and ``stopwords`` from its ``(bare, all)`` counts,
    and its ``stopword_density`` (stop words per word, 0 without words).

    Written at the blocks' slots in one C loop where the package was built with a
    compiler (``_language``), else (and inside ``segment.reference_walk()``) by this
    loop, the reference.
    """
    if _compiled is None or in_reference_walk() or not isinstance(blocks, list):
        for b, (bare, n) in zip(blocks, counts, strict=True):
            b.bare_stopwords, b.stopwords = bare, n
            b.stopword_density = n / b.words if b.words else 0.0
        return
    _compiled.set_stopword_fields(blocks, counts if isinstance(counts, list) else list(counts), Block)


#: How many of each language's most frequent stop words vote.
TOP_STOPWORDS = 100
#: Words read from a page; the first few thousand settle the question.
MAX_WORDS = 3000
#: A repeated word counts at most this many times.
MAX_COUNT_PER_WORD = 3
#: Fewest (capped) stop-word hits for the winner, else no guess.
MIN_HITS = 5
#: How much more a language must score than the default language to replace it.
MARGIN_OVER_DEFAULT = 1.2


def _ranked_stoplist(name: str, top: int) -> list[str]:
    """The ``top`` first words of a jusText stop list (frequency order), lower-cased, without repeats."""
    data = stoplist_file(name)
    seen: dict[str, None] = {}
    # Lower-casing merges "The" into "the": read a few lines more than needed.
    for line in data.split(b"\n", 3 * top)[: 3 * top]:
        word = line.decode("utf-8", "replace").strip().lower()
        if word:
            seen.setdefault(word, None)
    return list(seen)[:top]


class StopwordLanguageGuesser:
    """Guess an ISO 639-1 code from the share of each language's top stop words."""

    def __init__(
        self,
        *,
        top: int = TOP_STOPWORDS,
        max_words: int = MAX_WORDS,
        max_count: int = MAX_COUNT_PER_WORD,
        min_hits: int = MIN_HITS,
        margin: float = MARGIN_OVER_DEFAULT,
        default: str = DEFAULT_LANGUAGE,
    ) -> None:
        self.top = top
        self.max_words = max_words
        self.max_count = max_count
        self.min_hits = min_hits
        self.margin = margin
        self.default = default
        # One code per jusText list: "no" is an alias of "nb".
        self.codes = sorted({code for code, name in ISO_TO_STOPLIST.items() if code != "no"})
        index: dict[str, list[int]] = {}
        for i, code in enumerate(self.codes):
            for word in _ranked_stoplist(ISO_TO_STOPLIST[code], top):
                index.setdefault(word, []).append(i)
        #: word -> indices of the languages whose top stop words include it.
        self.index = {w: tuple(ids) for w, ids in index.items()}

    def scores(self, words: Iterable[str]) -> tuple[dict[str, int], int]:
        """Capped stop-word hits per language over the first ``max_words`` words, and the words read."""
        head = list(islice(words, self.max_words))
        counts = Counter(map(str.lower, head))  # counted in C: this runs once per page
        n = len(head)
        hits = [0] * len(self.codes)
        index = self.index
        cap = self.max_count
        # Only the words that are some language's stop word (a set intersection in C):
        # the sums do not depend on the order they are added in.
        for w in counts.keys() & index.keys():
            c = min(counts[w], cap)
            for i in index[w]:
                hits[i] += c
        return {code: h for code, h in zip(self.codes, hits) if h}, n

    def guess(self, words: Iterable[str]) -> str | None:
        """The most likely language of the words, or None when too few are stop words."""
        scores, n = self.scores(words)
        if not scores or not n:
            return None
        best = max(scores, key=lambda code: (scores[code], code == self.default))
        if scores[best] < self.min_hits:
            return None
        if best != self.default and scores[best] < self.margin * scores.get(self.default, 0):
            return self.default
        return best

    def guess_text(self, text: str) -> str | None:
        return self.guess(text.split())


@lru_cache(maxsize=1)
def default_guesser() -> StopwordLanguageGuesser:
    """The guesser with default parameters, built once (reading the stop lists takes ~50 ms)."""
    return StopwordLanguageGuesser()


def declared_language(root: "etree._Element") -> str | None:
    """The document's ``<html lang>`` (or ``xml:lang``) as a code we have a stop list for."""
    return normalise_language(root.get("lang") or root.get(_XML_LANG) or root.get("xml:lang"))


def page_language(declared: str | None, words: Iterable[str], *, detect: bool = True) -> str:
    """The language stop-word features should use: declared, else guessed, else English.

    ``declared`` comes from ``declared_language``; the guess (when
    ``detect``) reads only the first ``MAX_WORDS`` of ``words``.
    """
    if declared is not None:
        return declared
    return (default_guesser().guess(words) if detect else None) or DEFAULT_LANGUAGE
