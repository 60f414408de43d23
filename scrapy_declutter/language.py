"""The page's language for stop-word features: declared, else guessed from stop words.

jusText needs a stop list, so it needs the page's language. ``<html lang>``
is the first source; pages without it (4% of WCXB) get a guess. The guess is
the one jusText's documentation suggests: the language whose stop words make
up the largest share of the page's words. It needs no model beyond the stop
lists the package already ships, and it costs a couple of milliseconds.

Two details keep it honest:

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
"""

from __future__ import annotations

import pkgutil
from collections import Counter
from functools import lru_cache
from itertools import islice
from typing import TYPE_CHECKING, Iterable

from .features import DEFAULT_LANGUAGE, ISO_TO_STOPLIST, normalise_language

if TYPE_CHECKING:
    from .page import Page

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
    data = pkgutil.get_data("justext", f"stoplists/{name}.txt") or b""
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
        for w, c in counts.items():
            ids = index.get(w)
            if ids:
                c = min(c, cap)
                for i in ids:
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


def _page_words(page: "Page", limit: int) -> list[str]:
    """The page's first ``limit`` words or a few more, block by block."""
    words: list[str] = []
    for b in page.blocks:
        words.extend(b.text.split())
        if len(words) >= limit:
            break
    return words


def declared_language(page: "Page") -> str | None:
    """The page's ``<html lang>`` (or ``xml:lang``) as a code we have a stop list for."""
    root = page.root
    return normalise_language(root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang")
                              or root.get("xml:lang"))


def page_language(page: "Page", *, detect: bool = True) -> str:
    """The language stop-word features should use: declared, else guessed, else English.

    A function of the tree and the blocks' text, which no step changes, so
    every caller gets the same answer without a shared cache; the guess (a
    couple of milliseconds) runs only on pages that declare no language.
    """
    language = declared_language(page)
    if language is None and detect:
        language = default_guesser().guess(_page_words(page, MAX_WORDS))
    return language or DEFAULT_LANGUAGE
