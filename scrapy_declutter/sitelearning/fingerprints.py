"""Block fingerprints: a stable hash of a block's text as it repeats across a site's pages.

The text is normalised first ("© 2024", "Page 3 of 12" match their siblings on
other pages); hashes are blake2b, 63 bits (SQLite INTEGER, JSON), never changed:
stores hold them.
"""

from __future__ import annotations

import hashlib
import re
from typing import Callable, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

HASH_MASK = (1 << 63) - 1
#: Fingerprints of texts up to this long are remembered: a site's template blocks (menus,
#: footers, bylines) are short and recur on each of its pages.
CACHED_CHARS = 256
#: Entries each memo of site learning holds before it is emptied.
MEMO_SIZE = 1 << 15

_DIGITS = re.compile(r"\d+")
_URLS = re.compile(r"(?:https?://|www\.)\S+")
_MONTHS = re.compile(r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
                     r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b")


def remembered(function: Callable[[K], V], size: int = MEMO_SIZE) -> Callable[[K], V]:
    """``function`` with its results kept in a plain dict, emptied when full: unlike
    ``functools.lru_cache`` it holds no object the garbage collector walks."""
    values: dict[K, V] = {}

    def cached(key: K) -> V:
        value = values.get(key)
        if value is None:
            if len(values) >= size:
                values.clear()
            value = values[key] = function(key)
        return value

    return cached


def normalise(text: str) -> str:
    """Block text as fingerprints see it: lower case, a URL ``<url>``, an English month name
    or abbreviation ``<month>``, a digit run ``0``, single spaces."""
    text = text.lower()
    if "http" in text or "www." in text:  # what every URL the pattern folds starts with
        return fold_words(_URLS.sub("<url>", text))
    return _fold(text)


def fold_words(text: str) -> str:
    """``normalise`` of a lowered text without URLs (the reference of ``_fingerprints.fold``)."""
    return " ".join(_DIGITS.sub("0", _MONTHS.sub("<month>", text)).split())


try:
    from ._fingerprints import fold as _fold
except ImportError:  # installed without a compiler
    _fold = fold_words


def hash_text(text: str) -> int:
    """A 63-bit hash of a string (stable across processes, unlike ``hash``)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") & HASH_MASK


_memo: dict[str, int] = {}


def fingerprint(text: str) -> int:
    """The 63-bit fingerprint of a block's text (one frame: it runs on every block)."""
    fp = _memo.get(text)
    if fp is None:
        fp = hash_text(normalise(text))
        if len(text) <= CACHED_CHARS:
            if len(_memo) >= MEMO_SIZE:
                _memo.clear()
            _memo[text] = fp
    return fp
