"""A page's MinHash signature: what the index compares instead of the page's clean text.

The text is cut into words and the words into overlapping shingles of
``SHINGLE_WORDS``; datasketch's MinHash with ``PERMUTATIONS`` permutations
summarises the set of shingles, and the share of equal values in two
signatures estimates the Jaccard similarity of their shingle sets.

Words are runs of letters and digits (a non-ASCII character counts as a
letter, except the Latin-1 signs, general punctuation and CJK punctuation,
which include the no-break and ideographic spaces), ASCII case folded; a
character of the scripts written without spaces (Chinese, Japanese) is a
word of its own, as a run of them would otherwise be one "word". The
words are found and hashed on the text's UTF-8 bytes with NumPy (a
polynomial hash per word, the same in every process,
unlike Python's salted ``hash``, so processes sharing a Redis index agree),
because doing it word by word in Python cost more than the MinHash itself;
where the package was compiled, ``_words`` does the same in one pass.
Above ``MAX_SHINGLES`` shingles, a page is summarised by its
``MAX_SHINGLES`` smallest shingle hashes (a bottom-k sample, the same rule
for every page), so a very long page costs no more than a long one.
"""

from __future__ import annotations

import threading
from importlib import import_module
from types import ModuleType
from typing import Any

import numpy as np

#: Words per shingle. Three: an edit of one word changes three shingles, so a 300-word page
#: with four words changed keeps a Jaccard near 0.92 (with five-word shingles, 0.88), while
#: two distinct texts share few three-word runs.
SHINGLE_WORDS = 3
#: MinHash permutations: the estimate's standard error at a Jaccard of 0.9 is
#: sqrt(0.9 * 0.1 / 128) = 0.027; a signature is 128 uint32 values, 512 bytes.
PERMUTATIONS = 128
#: The seed of datasketch's permutations: fixed, so the signatures of every process compare.
SEED = 1
#: Distinct shingles a signature reads at most (the smallest hashes of a longer page).
MAX_SHINGLES = 512

_U64 = np.uint64
#: Bytes that belong to words: ASCII letters and digits, and every byte of a non-ASCII character.
_WORD_BYTE = np.zeros(256, dtype=bool)
_WORD_BYTE[[*range(48, 58), *range(65, 91), *range(97, 123), *range(128, 256)]] = True
#: A byte's value in a word's hash, ASCII upper case folded to lower case (never 0).
_BYTE_VALUE = np.arange(1, 257, dtype=_U64)
_BYTE_VALUE[65:91] += 32
#: Lead bytes of the three-byte UTF-8 characters U+3000..U+9FFF (CJK and kana): each such
#: character is a word of its own.
_UNSPACED_LEAD = np.zeros(256, dtype=bool)
_UNSPACED_LEAD[0xE3:0xEA] = True
#: Odd 64-bit multipliers: the polynomial base of a word's hash, and the mixer of shingles.
_BASE = _U64(0x100000001B3)
_MIX = _U64(0x9E3779B97F4A7C15)
#: Bytes of a word that count in its hash; the rest of a longer word weighs like its last.
_MAX_WORD_BYTES = 64
_POWERS = np.cumprod(np.r_[_U64(1), np.full(_MAX_WORD_BYTES - 1, _BASE, dtype=_U64)])  # base**i

try:  # by name: the import graph sees .py modules only
    _compiled: ModuleType | None = import_module(f"{__package__}._words")
except ImportError:  # built without a compiler: NumPy below
    _compiled = None


def _punctuation(data: np.ndarray) -> np.ndarray:
    """Bytes of the UTF-8 characters U+0080..U+00BF, U+2000..U+207F and U+3000..U+303F."""
    found = np.zeros(data.size + 2, dtype=bool)
    two = data[:-1] == 0xC2
    lead, second = data[:-2], data[1:-1]
    three = ((lead == 0xE2) & (second <= 0x81)) | ((lead == 0xE3) & (second == 0x80))
    for shift in range(2):
        found[shift:shift + two.size] |= two
    for shift in range(3):
        found[shift:shift + three.size] |= three
    return found[:data.size]


def word_hashes(text: str) -> np.ndarray:
    """One 64-bit hash per word of the text, in order (see the module's note on words)."""
    data = text.encode("utf-8", "surrogatepass")
    return _compiled.word_hashes(data) if _compiled is not None else python_word_hashes(data)


def python_word_hashes(utf8: bytes) -> np.ndarray:
    """``word_hashes`` in NumPy: the reference of ``_words.word_hashes``."""
    data = np.frombuffer(utf8, dtype=np.uint8)
    inside = _WORD_BYTE[data]
    if data.size > 1:
        inside &= ~_punctuation(data)
    starts = inside.copy()
    starts[1:] &= ~inside[:-1]
    unspaced = _UNSPACED_LEAD[data] & inside
    starts |= unspaced  # an unspaced character starts a word...
    starts[3:] |= unspaced[:-3] & inside[3:]  # ...and so does whatever follows it
    positions = np.flatnonzero(inside)
    if positions.size == 0:
        return np.empty(0, dtype=_U64)
    word_of = np.cumsum(starts[positions]) - 1
    first = np.flatnonzero(starts[positions])
    offset = np.minimum(np.arange(positions.size) - first[word_of], _MAX_WORD_BYTES - 1)
    terms = _BYTE_VALUE[data[positions]] * _POWERS[offset]
    sums = np.add.reduceat(terms, first)
    return (sums ^ (sums >> _U64(29))) * _MIX  # spread the low bytes' weight over all bits


def shingle_hashes(text: str, size: int = SHINGLE_WORDS) -> np.ndarray:
    """The 32-bit hashes of the text's shingles of ``size`` words (a text of fewer words: one
    shingle of them all), the ``MAX_SHINGLES`` smallest; empty for a text without words."""
    hashes = word_hashes(text)
    if hashes.size == 0:
        return hashes
    size = min(size, hashes.size)
    count = hashes.size - size + 1
    mixed = hashes[:count].copy()
    for k in range(1, size):
        mixed = mixed * _MIX + hashes[k:k + count]  # wraps modulo 2**64, as meant
    folded = ((mixed >> _U64(32)) ^ mixed).astype(np.uint32)
    if folded.size > MAX_SHINGLES:  # a shingle repeated among them counts once in the MinHash
        folded = np.partition(folded, MAX_SHINGLES - 1)[:MAX_SHINGLES]
    return folded


def _as_hashed(shingles: np.ndarray) -> np.ndarray:
    """A MinHash's hash function for a batch of one value, a page's shingle hashes: they
    are hashed already."""
    return shingles


class Signer:
    """Turns texts into MinHash signatures; holds the permutations, drawn once per index, and
    one MinHash per thread, cleared for each text (building one parses the permutations).

    A page's shingle hashes go to ``update_batch`` as one value (an array, hashed
    by ``_as_hashed``): datasketch turns a batch into an array value by value in
    Python; given as one array, a page is one NumPy step, with the same values.
    """

    def __init__(self, permutations: int = PERMUTATIONS, seed: int = SEED) -> None:
        from datasketch import MinHash

        self._minhash = MinHash
        self.permutations = permutations
        self.seed = seed
        self._drawn = MinHash(num_perm=permutations, seed=seed).permutations
        self._local = threading.local()

    def minhash(self, text: str | None) -> Any:
        """The text's ``datasketch.MinHash`` (this thread's, valid until its next call), or
        None for a text without words. Its ``hashvalues`` array is new for every text."""
        shingles = shingle_hashes(text) if text else np.empty(0)
        if shingles.size == 0:
            return None
        minhash = getattr(self._local, "minhash", None)
        if minhash is None:
            minhash = self._local.minhash = self._minhash(
                num_perm=self.permutations, seed=self.seed, hashfunc=_as_hashed,
                permutations=self._drawn, scheme="affine32")
        else:
            minhash.clear()
        minhash.update_batch([shingles])
        return minhash

    def signature(self, text: str | None) -> np.ndarray | None:
        """The text's MinHash values (uint32), or None for a text without words."""
        minhash = self.minhash(text)
        return None if minhash is None else minhash.hashvalues
