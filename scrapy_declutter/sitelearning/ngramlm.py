"""Character n-gram process language models: the two halves of the keep/discard classifier.

LingPipe's ``NGramProcessLM`` (seed 000): Witten–Bell interpolation of every
context length down to a uniform base over the alphabet. An n-gram is one 64-bit
key, ``hash32(context) << 32 | char`` (FNV-1a rolled over the text in NumPy), in a
sorted table with its count, so a context's total ``C(h)`` and its distinct
extensions ``E(h)`` are derived from the n-grams and every distribution sums to
one, pruning (the rarest past ``max_entries``) and merging included::

    P(c | h) = (C(hc) + L·E(h)·P(c | h[1:])) / (C(h) + L·E(h)),   P(c | ε-base) = 1 / alphabet
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import ModelFormatError

#: A sorted table of unique n-gram keys and their counts (int64).
Table = tuple[np.ndarray, np.ndarray]

#: The seed's n (LingPipe ``NGRAM_SIZE = 6``).
DEFAULT_ORDER = 6
#: LingPipe's default ``maxChars``: the uniform base spreads over this many characters.
ALPHABET_SIZE = 65535
#: Stored n-grams per language model before the rarest are pruned (12 bytes each).
MAX_ENTRIES = 32768
#: Pruning keeps this share of ``max_entries``, so it does not run on every update.
PRUNE_TO = 0.75
#: Pending batches are folded into the table once they hold this many times ``max_entries``
#: occurrences, which bounds their memory.
FOLD_AT = 1.0
#: Only the first characters of a block are modelled: enough to classify, and it bounds cost.
MAX_CHARS = 2000

SHIFT = np.uint64(32)
_SEED = np.uint64(0xCBF29CE484222325)  # FNV-1a offset basis
_PRIME = np.uint64(0x100000001B3)  # FNV-1a prime
_LOW32 = np.uint64(0xFFFFFFFF)


def codepoints(text: str, max_chars: int = MAX_CHARS) -> np.ndarray:
    """The text's characters as uint64 code points (at most ``max_chars``)."""
    raw = text[:max_chars].encode("utf-32-le", "surrogatepass")
    return np.frombuffer(raw, dtype="<u4").astype(np.uint64)


def ngram_keys(chars: np.ndarray, order: int) -> np.ndarray:
    """``(order, len)`` keys: row k, column i is character i after its k preceding characters
    (columns ``i < k`` have no such context: ``valid_mask``)."""
    m = len(chars)
    keys = np.empty((order, m), dtype=np.uint64)
    ctx = np.full(m, _SEED, dtype=np.uint64)
    for k in range(order):
        keys[k] = (((ctx >> SHIFT) ^ (ctx & _LOW32)) << SHIFT) | chars
        if k + 1 < order and m > 1:
            nxt = np.full(m, _SEED, dtype=np.uint64)
            nxt[1:] = (ctx[:-1] ^ chars[:-1]) * _PRIME
            ctx = nxt
    return keys


def valid_mask(order: int, m: int) -> np.ndarray:
    """``mask[k, i]``: character i has k characters before it (the process LM never pads)."""
    return np.arange(m)[None, :] >= np.arange(order)[:, None]


def texts_counted(texts: Sequence[str], order: int) -> Table:
    """The n-grams of the texts counted, each text its own sequence (as LingPipe trains)."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    chars = codepoints("".join(texts), max_chars=int(lengths.sum()))
    offset = np.arange(len(chars)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return counted(ngram_keys(chars, order)[np.arange(order)[:, None] <= offset[None, :]])


def counted(keys: np.ndarray) -> Table:
    """The distinct keys, sorted, and how often each occurs."""
    uniq, counts = np.unique(keys, return_counts=True)
    return uniq, counts.astype(np.int64)


def merged(keys: np.ndarray, counts: np.ndarray, new_keys: np.ndarray,
           new_counts: np.ndarray) -> Table:
    """Two tables added up, as new arrays."""
    uniq, where = np.unique(np.concatenate([keys, new_keys]), return_inverse=True)
    total = np.zeros(len(uniq), dtype=np.int64)
    np.add.at(total, where, np.concatenate([counts, new_counts]).astype(np.int64))
    return uniq, total


def pruned(keys: np.ndarray, counts: np.ndarray, keep: int) -> Table:
    """The ``keep`` entries with the highest counts, ties to the lower key, in key order."""
    if len(keys) <= keep:
        return keys, counts
    survive = np.sort(np.lexsort((keys, -counts))[:max(keep, 0)])
    return keys[survive], counts[survive]


class Scorer:
    """Witten–Bell probabilities of text under LMs of one order, their context totals
    ``C(h)`` and extension counts ``E(h)`` derived once from the tables."""

    def __init__(self, tables: Sequence[Table], lambdas: Sequence[float], alphabet_size: int,
                 order: int) -> None:
        self.order, self.base = order, 1.0 / alphabet_size
        self.lambdas = np.asarray(lambdas, dtype=np.float64)[:, None, None]
        self.tables = []
        for keys, counts in tables:
            ctx = keys >> SHIFT
            starts = np.flatnonzero(np.r_[True, ctx[1:] != ctx[:-1]]) if len(keys) else ctx
            self.tables.append((keys, counts, ctx[starts], np.add.reduceat(counts, starts)
                                if len(keys) else counts,
                                np.add.reduceat((counts > 0).astype(np.int64), starts)
                                if len(keys) else counts))

    def probs(self, text: str) -> np.ndarray:
        """``(LMs, chars)``: P(each character | what precedes it) under each LM."""
        chars = codepoints(text)
        keys, mask = ngram_keys(chars, self.order), valid_mask(self.order, len(chars))
        contexts = keys >> SHIFT
        c_hc, c_h, exts = (np.zeros((len(self.tables),) + keys.shape) for _ in range(3))
        for j, (table_keys, counts, ctx, totals, extensions) in enumerate(self.tables):
            if len(table_keys):
                c_hc[j] = _look_up(table_keys, counts, keys)
                c_h[j] = _look_up(ctx, totals, contexts)
                exts[j] = _look_up(ctx, extensions, contexts)
        c_hc[:, ~mask] = c_h[:, ~mask] = exts[:, ~mask] = 0  # no such context: the suffix's
        weight = self.lambdas * exts
        weight += c_h == 0
        den = c_h + weight
        p = np.full((len(self.tables), len(chars)), self.base)
        for k in range(self.order):
            p = (c_hc[:, k] + weight[:, k] * p) / den[:, k]
        return p


def _look_up(keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Each query's value in the sorted ``keys`` (0 when absent), as float64."""
    at = np.minimum(np.searchsorted(keys, queries), len(keys) - 1)
    return np.where(keys[at] == queries, values[at], 0).astype(np.float64)


class NGramLM:
    """A character n-gram process language model with Witten–Bell smoothing (LingPipe's)."""

    def __init__(self, *, order: int = DEFAULT_ORDER, alphabet_size: int = ALPHABET_SIZE,
                 lambda_factor: float | None = None, max_entries: int = MAX_ENTRIES) -> None:
        if order < 1:
            raise ValueError(f"order must be >= 1, not {order}")
        self.order = order
        self.alphabet_size = alphabet_size
        self.lambda_factor = float(order if lambda_factor is None else lambda_factor)
        self.max_entries = max_entries
        self._keys = np.empty(0, dtype=np.uint64)  # sorted, unique
        self._counts = np.empty(0, dtype=np.int64)
        self._pending: list[Table] = []  # counted batches waiting to be folded in
        self._pending_size = 0

    def train(self, text: str) -> None:
        """Add every character of ``text`` (up to ``MAX_CHARS``), each in all its contexts."""
        self.add_counted(*texts_counted([text[:MAX_CHARS]], self.order))

    def add_counted(self, keys: np.ndarray, counts: np.ndarray) -> None:
        """Add counted n-grams; batches wait until ``FOLD_AT * max_entries`` occurrences, and
        what pruning keeps depends only on the batches and on when folds happen."""
        if len(keys):
            self._pending.append((keys, counts))
            self._pending_size += int(counts.sum())
            if self._pending_size >= FOLD_AT * self.max_entries:
                self._fold()

    def merge(self, other: "NGramLM") -> None:
        """Add another model's counts to this one (concurrent writers merge this way)."""
        if other.order != self.order:
            raise ValueError(f"cannot merge order {other.order} into order {self.order}")
        self._set(*merged(*self.table(), *other.table()))

    def _fold(self) -> None:
        if not self._pending:
            return
        (keys, counts), *rest = self._pending
        for more in rest:
            keys, counts = merged(keys, counts, *more)
        self._pending, self._pending_size = [], 0
        self._set(*merged(self._keys, self._counts, keys, counts))

    def _set(self, keys: np.ndarray, counts: np.ndarray) -> None:
        if len(keys) > self.max_entries:
            keys, counts = pruned(keys, counts, int(self.max_entries * PRUNE_TO))
        self._keys, self._counts = keys, counts

    def __len__(self) -> int:
        return len(self.table()[0])

    def table(self) -> Table:
        """The n-grams' keys and counts, all folded in (not to be changed in place)."""
        self._fold()
        return self._keys, self._counts

    def header(self) -> dict[str, Any]:
        """The parameters, as a stored model keeps them beside ``table``."""
        return {"order": self.order, "alphabet_size": self.alphabet_size,
                "lambda_factor": self.lambda_factor, "max_entries": self.max_entries}

    @classmethod
    def from_header(cls, data: dict[str, Any], table: Table) -> "NGramLM":
        """A model from its ``header`` and ``table``; anything malformed is a ModelFormatError."""
        try:
            lm = cls(order=int(data["order"]), alphabet_size=int(data["alphabet_size"]),
                     lambda_factor=float(data["lambda_factor"]),
                     max_entries=int(data["max_entries"]))
            keys, counts = table[0].astype(np.uint64), table[1].astype(np.int64)
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFormatError(f"bad language model data: {exc!r}") from None
        if len(keys) != len(counts) or (len(keys) > 1 and not np.all(keys[1:] > keys[:-1])):
            raise ModelFormatError("bad language model data: keys unsorted or counts mismatched")
        lm._keys, lm._counts = keys, counts
        return lm
