"""Character n-gram process language models: the two halves of the keep/discard classifier.

Seed 000 classified text chunks with LingPipe's ``DynamicLMClassifier``
(``ngram``) over ``NGramProcessLM``: one character language model per
category, with Witten–Bell interpolation of every context length down to a
uniform distribution over the alphabet. This module is that language model,
vectorised with NumPy:

* An n-gram is stored as one 64-bit key, ``hash32(context) << 32 | char``,
  so the entries that extend one context are contiguous once the keys are
  sorted, and a context's total count and its number of distinct extensions
  (the two Witten–Bell needs) are derived from the stored n-grams instead of
  being stored apart. Derived totals keep every conditional distribution
  summing to exactly 1, pruning and merging included.
* Context hashes are rolled over the text in NumPy (one pass per order), and
  look-ups are two ``searchsorted`` calls, so scoring a 1,000-character block
  costs a few hundred microseconds.
* Size is bounded: past ``max_entries`` the rarest n-grams are pruned (as
  LingPipe's ``prune``), lowest counts first, which keeps the short contexts.
* A model is plain data (``to_data``/``from_data``: dicts of ints and base64
  arrays, versioned; a stored site model keeps the tables as raw arrays,
  ``header`` and ``table``, see ``modelbytes``), never pickle.

Witten–Bell, as LingPipe computes it, for a context ``h`` of length k with
extension count ``C(h) = Σ_c C(hc)`` and ``E(h)`` distinct extensions::

    λ(h)     = C(h) / (C(h) + L · E(h))            (L = lambda_factor, default n)
    P(c | h) = λ(h) · C(hc) / C(h) + (1 − λ(h)) · P(c | h[1:])
    P(c | ε-base) = 1 / alphabet_size

A context that never occurred leaves the estimate of its suffix unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ModelFormatError
from .counts import Table, counted, merged, pruned
from .lmindex import Scorer
from .modelbytes import b64, unb64
from .ngramkeys import codepoints, ngram_keys, valid_mask

#: The seed's n (LingPipe ``NGRAM_SIZE = 6``).
DEFAULT_ORDER = 6
#: LingPipe's default ``maxChars``: the uniform base spreads over this many characters.
ALPHABET_SIZE = 65535
#: Stored n-grams per language model before the rarest are pruned (12 bytes each).
MAX_ENTRIES = 32768
#: Pruning keeps this share of ``max_entries``, so it does not run on every update.
PRUNE_TO = 0.75
#: Pending n-gram batches are folded into the sorted arrays once they hold this many keys
#: (a multiple of ``max_entries``), which bounds the memory they take between folds.
FOLD_AT = 1.0


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
        #: Counted batches (``counts.counted``) waiting to be folded into the table.
        self._pending: list[Table] = []
        self._pending_size = 0  # n-gram occurrences they hold
        self._compiled: Scorer | None = None

    # -- training ---------------------------------------------------------
    def train(self, text: str) -> None:
        """Add every character of ``text`` (up to ``MAX_CHARS``), each in all its contexts."""
        chars = codepoints(text)
        if len(chars):
            keys = ngram_keys(chars, self.order)
            self.add_keys(keys[valid_mask(self.order, len(chars))])

    def add_keys(self, keys: np.ndarray) -> None:
        """Add n-gram keys (``ngram_keys`` under ``valid_mask``), one count each."""
        if len(keys):
            self.add_counted(*counted(keys))

    def add_counted(self, keys: np.ndarray, counts: np.ndarray) -> None:
        """Add n-grams already counted (``counts.counted``): one page's lesson goes to two
        models (the site's and its delta), counted once.

        Batches wait until they hold ``FOLD_AT * max_entries`` occurrences; a
        fold adds them to the table and prunes it once, so what survives
        depends on the n-grams trained and on when folds happen, never on
        how the batches were counted.
        """
        if len(keys):
            self._pending.append((keys, counts))
            self._pending_size += int(counts.sum())
            self._compiled = None
            if self._pending_size >= FOLD_AT * self.max_entries:
                self._fold()

    def merge(self, other: "NGramLM") -> None:
        """Add another model's counts to this one (concurrent writers merge this way)."""
        if other.order != self.order:
            raise ValueError(f"cannot merge order {other.order} into order {self.order}")
        other._fold()
        self._fold()
        self._set(*merged(self._keys, self._counts, other._keys, other._counts))

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
            # Highest counts survive; ties go to the lower key, so pruning is deterministic.
            keys, counts = pruned(keys, counts, int(self.max_entries * PRUNE_TO))
        self._keys, self._counts = keys, counts
        self._compiled = None

    def snapshot(self) -> "NGramLM":
        """A copy that shares this model's arrays: they are never changed in place
        (``counts`` returns new tables), so the copy stays as it is while this model
        goes on learning, and costs a few objects, not the arrays."""
        copy = NGramLM(order=self.order, alphabet_size=self.alphabet_size,
                       lambda_factor=self.lambda_factor, max_entries=self.max_entries)
        copy._keys, copy._counts = self._keys, self._counts
        copy._pending, copy._pending_size = list(self._pending), self._pending_size
        return copy

    # -- estimation -------------------------------------------------------
    def _scorer(self) -> Scorer:
        self._fold()
        if self._compiled is None:
            self._compiled = Scorer([(self._keys, self._counts)], [self.lambda_factor],
                                    self.alphabet_size)
        return self._compiled

    def char_probs(self, text: str) -> np.ndarray:
        """P(c_i | preceding chars) for every character of ``text`` (up to ``MAX_CHARS``)."""
        chars = codepoints(text)
        if not len(chars):
            return np.empty(0)
        keys = ngram_keys(chars, self.order)
        return self._scorer().probs(keys, valid_mask(self.order, len(chars)))[0]

    def prob(self, char: str, context: str) -> float:
        """P(char | context); only the last ``order - 1`` context characters matter."""
        tail = context[-(self.order - 1):] if self.order > 1 else ""
        text = tail + char
        return float(self.char_probs(text)[-1])

    def log2_prob(self, text: str) -> float:
        """log2 P(text) under the process model (no start or end padding)."""
        p = self.char_probs(text)
        return float(np.log2(p).sum()) if len(p) else 0.0

    def __len__(self) -> int:
        self._fold()
        return len(self._keys)

    @property
    def nbytes(self) -> int:
        return self._keys.nbytes + self._counts.nbytes + self._scorer().nbytes

    # -- data -------------------------------------------------------------
    def header(self) -> dict[str, Any]:
        """The parameters: ``to_data`` without the table."""
        return {
            "order": self.order,
            "alphabet_size": self.alphabet_size,
            "lambda_factor": self.lambda_factor,
            "max_entries": self.max_entries,
        }

    def to_data(self) -> dict[str, Any]:
        self._fold()
        return {**self.header(), "keys": b64(self._keys.astype("<u8")),
                "counts": b64(self._counts.astype("<u4"))}

    def table(self) -> Table:
        """The n-grams' keys and counts, all folded in (not to be changed in place)."""
        self._fold()
        return self._keys, self._counts

    @classmethod
    def from_data(cls, data: dict[str, Any], table: Table | None = None) -> "NGramLM":
        """A model from ``to_data``, or from ``header`` and its ``table`` (a stored form's arrays)."""
        try:
            lm = cls(order=int(data["order"]), alphabet_size=int(data["alphabet_size"]),
                     lambda_factor=float(data["lambda_factor"]),
                     max_entries=int(data["max_entries"]))
            if table is None:
                table = unb64(data["keys"], "<u8"), unb64(data["counts"], "<u4")
            keys, counts = table[0].astype(np.uint64), table[1].astype(np.int64)
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFormatError(f"bad language model data: {exc!r}") from None
        if len(keys) != len(counts) or (len(keys) > 1 and not np.all(keys[1:] > keys[:-1])):
            raise ModelFormatError("bad language model data: keys unsorted or counts mismatched")
        lm._keys, lm._counts = keys, counts
        return lm
