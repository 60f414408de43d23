"""Character n-gram language models and the keep/discard classifier built on them.

Seed 000 classified text chunks with LingPipe's ``DynamicLMClassifier`` over
``NGramProcessLM``: one character language model per category, Witten–Bell
interpolation of every context length down to a uniform distribution over the
alphabet, and the category with the highest joint log-probability (prior ×
likelihood) wins. This module is that model, vectorised with NumPy:

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

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from ..errors import ModelFormatError
from . import lessons
from .counts import Table, counted, merged, pruned
from .lessons import CATEGORIES, DISCARD, KEEP, LESSON_CHARS, Lesson, Prepared
from .lmindex import Scorer
from .modelbytes import b64, narrowest, unb64
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
#: A classifier keeps scoring with its look-up tables until this share of new n-gram
#: occurrences (relative to what they were built from) has been trained since.
STALE_SHARE = 0.125
#: Format version of ``to_data``; a newer one is refused on load. Version 2 may store
#: lessons not yet counted (``lessons``); version 1 loads unchanged.
FORMAT_VERSION = 2

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


_NO_TABLE: Table = (np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64))  # tables=False


def _table(category: str, arrays: Mapping[str, np.ndarray] | None, tables: bool) -> Table | None:
    """A category's table for ``NGramLM.from_data``: the data's own (None), the arrays', or none."""
    if not tables:
        return _NO_TABLE
    return None if arrays is None else (arrays[f"{category}_keys"], arrays[f"{category}_counts"])


@dataclass(frozen=True)
class Classification:
    """The winning category and the log-odds (bits) of keep over discard."""

    category: str
    log_odds: float

    @property
    def p_keep(self) -> float:
        """The posterior of ``keep``, from the log-odds."""
        x = max(-60.0, min(60.0, self.log_odds))
        return 1.0 / (1.0 + 2.0 ** (-x))


class NGramClassifier:
    """Two process LMs (keep, discard) and add-one category priors: LingPipe's DynamicLMClassifier.

    What it is taught waits as lessons (``lessons``) until its tables are read.
    """

    def __init__(self, *, order: int = DEFAULT_ORDER, max_entries: int = MAX_ENTRIES,
                 alphabet_size: int = ALPHABET_SIZE) -> None:
        self.order = order
        self._lms = {c: NGramLM(order=order, max_entries=max_entries, alphabet_size=alphabet_size)
                     for c in CATEGORIES}
        self.examples = {c: 0 for c in CATEGORIES}
        self._lessons: list[Lesson] = []  # taught, not counted yet, oldest first
        self._lesson_chars = 0
        self._compiled: Scorer | None = None
        self._compiled_size = 0  # n-gram occurrences the tables were built from
        self._added = 0  # n-gram occurrences trained since

    @property
    def lms(self) -> dict[str, NGramLM]:
        """The language models by category, every lesson counted in."""
        self._count_lessons()
        return self._lms

    def train(self, category: str, text: str) -> None:
        if category not in self._lms:
            raise ValueError(f"category must be one of {CATEGORIES}, not {category!r}")
        if text:
            self.add_lesson(Lesson.of({category: [text]}))

    def train_many(self, examples: Iterable[tuple[str, str]]) -> None:
        """Train on many (category, text) pairs: the same counts as ``train`` on each, in one pass."""
        self.add_lesson(Lesson.of_pairs(examples))

    def add_lesson(self, lesson: Lesson, *, tables: bool = True) -> None:
        """Learn a page's lesson: its example counts now, its n-grams once a table is read
        (``lessons``). ``tables=False``: the example counts alone, for a model without its
        tables (``SiteModel.ngrams``) whose delta trains them."""
        for category, n in lesson.examples().items():
            self.examples[category] += n
        if tables and lesson.texts:
            self._lessons.append(lesson)
            self._lesson_chars += lesson.chars
            # One that scores text counts at once, as it did before lessons: it will read
            # its tables anyway, and stale scoring tables are let go as soon as they are.
            if self._compiled is not None or self._lesson_chars > LESSON_CHARS:
                self._count_lessons()

    def _count_lessons(self) -> None:
        """Count the waiting lessons into the tables, in the order they were taught."""
        waiting, self._lessons, self._lesson_chars = self._lessons, [], 0
        for lesson in waiting:
            self._add_counted(lesson.counted(self.order))

    def _add_counted(self, batch: Prepared) -> None:
        for category, (keys, counts, _) in batch.items():
            self._lms[category].add_counted(keys, counts)
            self._added += int(counts.sum())
        if self._compiled is not None and self._stale():
            # Rebuilt at the next classification anyway: not held meanwhile. The tables
            # are some 4x the arrays' bytes, and a young site's are stale after each page.
            self._compiled = None

    def ready(self, min_examples: int = 1) -> bool:
        """Whether both categories have seen at least ``min_examples`` texts."""
        return all(n >= min_examples for n in self.examples.values())

    def log_prior(self, category: str) -> float:
        total = sum(self.examples.values())
        return math.log2((self.examples[category] + 1) / (total + len(CATEGORIES)))

    def classify(self, text: str) -> Classification:
        chars = codepoints(text)
        joint = {c: self.log_prior(c) for c in CATEGORIES}
        if len(chars):
            probs = self._scorer().probs(ngram_keys(chars, self.order),
                                         valid_mask(self.order, len(chars)))
            for c, row in zip(CATEGORIES, np.log2(probs).sum(axis=1)):
                joint[c] += float(row)
        odds = joint[KEEP] - joint[DISCARD]
        return Classification(KEEP if odds >= 0 else DISCARD, odds)

    def _scorer(self) -> Scorer:
        """The look-up tables, rebuilt once ``STALE_SHARE`` more has been trained.

        Rebuilding costs about as much as scoring a whole page, so a crawl
        that trains after every page scores with tables at most 1/8 behind.
        """
        lms = self.lms
        if self._compiled is None or self._stale():
            for lm in lms.values():
                lm._fold()
            self._compiled = Scorer([(lm._keys, lm._counts) for lm in lms.values()],
                                    [lm.lambda_factor for lm in lms.values()],
                                    lms[KEEP].alphabet_size)
            self._compiled_size = int(sum(lm._counts.sum() for lm in lms.values()))
            self._added = 0
        return self._compiled

    def _stale(self) -> bool:
        """Whether the look-up tables are ``STALE_SHARE`` behind what was trained."""
        return self._added > STALE_SHARE * max(self._compiled_size, 4096)

    def merge(self, other: "NGramClassifier") -> None:
        """Add another classifier's counts (both count their lessons first: merged tables are
        pruned, so what survives depends on when each side counted, as it did before lessons)."""
        mine, theirs = self.lms, other.lms
        for c in CATEGORIES:
            mine[c].merge(theirs[c])
            self.examples[c] += other.examples[c]
        self._compiled = None  # a merge can change everything: rebuild

    def snapshot(self) -> "NGramClassifier":
        """A copy sharing the language models' arrays (``NGramLM.snapshot``), without scoring tables."""
        copy = NGramClassifier(order=self.order)
        copy._lms = {c: lm.snapshot() for c, lm in self._lms.items()}
        copy.examples = dict(self.examples)
        copy._lessons, copy._lesson_chars = list(self._lessons), self._lesson_chars
        return copy

    def without_tables(self) -> "NGramClassifier":
        """This one's parameters and example counts, its language models empty, no lessons."""
        lm = self._lms[KEEP]
        copy = NGramClassifier(order=self.order, max_entries=lm.max_entries,
                               alphabet_size=lm.alphabet_size)
        copy.examples = dict(self.examples)
        return copy

    def estimated_bytes(self) -> int:
        """Memory held now, without building or counting anything: a cache's budget checks it
        per page.

        ``nbytes`` compiles the scoring tables first; this counts the arrays,
        the keys waiting to be folded, the lessons waiting to be counted and
        the tables only if already built.
        """
        held = sum(lm._keys.nbytes + lm._counts.nbytes + 8 * lm._pending_size
                   for lm in self._lms.values())
        held += sum(lesson.nbytes for lesson in self._lessons)
        return held + (self._compiled.nbytes if self._compiled else 0)

    @property
    def nbytes(self) -> int:
        """Stored arrays plus the look-up tables scoring builds."""
        self._scorer()
        stored = sum(lm._keys.nbytes + lm._counts.nbytes for lm in self._lms.values())
        return stored + (self._compiled.nbytes if self._compiled else 0)

    def to_data(self) -> dict[str, Any]:
        return {**self.header(), "lms": {c: lm.to_data() for c, lm in self.lms.items()}}

    def header(self) -> dict[str, Any]:
        """``to_data`` without the tables, which ``arrays`` gives."""
        return {"version": FORMAT_VERSION, "order": self.order, "examples": dict(self.examples),
                "lms": {c: lm.header() for c, lm in self._lms.items()}}

    def arrays(self) -> dict[str, np.ndarray]:
        """The language models' tables, by name, as a stored model keeps them (``modelbytes``),
        and the lessons not counted yet (``lessons.arrays``).

        Lessons are stored as texts only by a classifier that has counted
        nothing yet (a site's delta, a fresh site's model in an unsupervised
        crawl): counted later, in order, they give the tables counting them now
        would. Beside counted tables they are counted first, since tables
        merged at different times prune differently; and lessons already
        counted (for a model whose pages were scored) cost only the merge.
        """
        if self._lessons and (any(len(lm._keys) or lm._pending for lm in self._lms.values())
                              or all(lesson.is_counted for lesson in self._lessons)):
            self._count_lessons()
        out = {}
        for c, lm in self._lms.items():
            keys, counts = lm.table()
            out[f"{c}_keys"], out[f"{c}_counts"] = keys.astype("<u8"), narrowest(counts)
        if self._lessons:
            out.update(lessons.arrays(self._lessons))
        return out

    @classmethod
    def from_data(cls, data: dict[str, Any], arrays: Mapping[str, np.ndarray] | None = None, *,
                  tables: bool = True) -> "NGramClassifier":
        """A classifier from ``to_data``, or from ``header`` and ``arrays``; ``tables=False``:
        its language models empty (``without_tables``), nothing of the tables decoded."""
        if not isinstance(data, dict):
            raise ModelFormatError("classifier data must be a mapping")
        version = data.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION or version < 1:
            raise ModelFormatError(f"classifier format version {version!r}; this release reads "
                                   f"up to {FORMAT_VERSION}")
        try:
            clf = cls(order=int(data["order"]))
            clf._lms = {c: NGramLM.from_data(data["lms"][c], _table(c, arrays, tables))
                        for c in CATEGORIES}
            clf.examples = {c: int(data["examples"][c]) for c in CATEGORIES}
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFormatError(f"bad classifier data: {exc!r}") from None
        if tables and arrays is not None:
            clf._lessons = lessons.from_arrays(arrays)
            clf._lesson_chars = sum(lesson.chars for lesson in clf._lessons)
        if any(lm.order != clf.order for lm in clf._lms.values()):
            raise ModelFormatError("classifier language models disagree on the order")
        return clf
