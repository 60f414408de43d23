"""The keys of character n-grams: every (context, character) pair of a text as one integer.

An n-gram is one 64-bit key, ``hash32(context) << 32 | char`` (``lmindex``
reads them back), so the entries that extend one context are contiguous once
the keys are sorted. Context hashes are FNV-1a, rolled over the text in NumPy,
one pass per order: the text is never sliced into substrings. Apart from the
models in ``ngram``: training (``prepare``) and scoring both start here.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .counts import Table, counted
from .lmindex import SHIFT

#: Only the first characters of a block are modelled: enough to classify, and it bounds cost.
MAX_CHARS = 2000

_SEED = np.uint64(0xCBF29CE484222325)  # FNV-1a offset basis
_PRIME = np.uint64(0x100000001B3)  # FNV-1a prime
_LOW32 = np.uint64(0xFFFFFFFF)


def codepoints(text: str, max_chars: int = MAX_CHARS) -> np.ndarray:
    """The text's characters as uint64 code points (at most ``max_chars``)."""
    raw = text[:max_chars].encode("utf-32-le", "surrogatepass")
    return np.frombuffer(raw, dtype="<u4").astype(np.uint64)


def ngram_keys(chars: np.ndarray, order: int) -> np.ndarray:
    """Keys of every (context, char) pair the text holds, for contexts of 0..order-1 chars.

    Returns an ``(order, len)`` array of packed keys: row k, column i is the
    key of character i after its k preceding characters; columns with
    ``i < k`` have no such context and are masked with ``valid_mask``.
    """
    m = len(chars)
    keys = np.empty((order, m), dtype=np.uint64)
    ctx = np.full(m, _SEED, dtype=np.uint64)
    for k in range(order):
        keys[k] = (_fold32(ctx) << SHIFT) | chars
        if k + 1 < order and m > 1:
            nxt = np.full(m, _SEED, dtype=np.uint64)
            nxt[1:] = (ctx[:-1] ^ chars[:-1]) * _PRIME
            ctx = nxt
    return keys


def valid_mask(order: int, m: int) -> np.ndarray:
    """``mask[k, i]``: character i has k characters before it (the process LM never pads)."""
    return np.arange(m)[None, :] >= np.arange(order)[:, None]


def _fold32(h: np.ndarray) -> np.ndarray:
    return (h >> SHIFT) ^ (h & _LOW32)


def texts_counted(texts: Sequence[str], order: int) -> Table:
    """The n-grams of the texts, counted (``counts.counted``), each text a sequence of its own
    (no context reaches into the text before, as LingPipe trains each text): what training
    them adds.
    """
    return counted(texts_keys(texts, order))


def texts_keys(texts: Sequence[str], order: int) -> np.ndarray:
    """The keys of every n-gram of the texts, in NumPy: the texts joined, and each
    position's contexts kept only as far back as its own text's start."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    chars = codepoints("".join(texts), max_chars=int(lengths.sum()))
    keys = ngram_keys(chars, order)
    offset = np.arange(len(chars)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return keys[np.arange(order)[:, None] <= offset[None, :]]
