"""The keep/discard classifier of seed 000: two character n-gram LMs (``ngramlm``).

LingPipe's ``DynamicLMClassifier``: one process language model per category,
add-one category priors, and the category with the highest joint
log-probability (prior × likelihood) wins; the log-odds of keep over discard
is the block's score. What it is taught waits as lessons (``lessons``) until
its tables are read. A classifier is plain data (``to_data``/``from_data``,
or ``header`` and ``arrays`` as a stored site model keeps them,
``modelbytes``), versioned, never pickle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from ..errors import ModelFormatError
from . import lessons
from .counts import Table
from .lessons import CATEGORIES, DISCARD, KEEP, LESSON_CHARS, Lesson, Prepared
from .lmindex import Scorer
from .modelbytes import narrowest
from .ngramkeys import codepoints, ngram_keys, valid_mask
from .ngramlm import ALPHABET_SIZE, DEFAULT_ORDER, MAX_ENTRIES, NGramLM

#: A classifier keeps scoring with its look-up tables until this share of new n-gram
#: occurrences (relative to what they were built from) has been trained since.
STALE_SHARE = 0.125
#: Format version of ``to_data``; a newer one is refused on load. Version 2 may store
#: lessons not yet counted (``lessons``); version 1 loads unchanged.
FORMAT_VERSION = 2

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
        self._compiled: Scorer | None = None
        self._compiled_size = 0  # n-gram occurrences the tables were built from
        self._added = 0  # n-gram occurrences trained since

    @property
    def lms(self) -> dict[str, NGramLM]:
        """The language models by category, every lesson counted in."""
        self._count_lessons()
        return self._lms

    def train(self, category: str, text: str) -> None:
        """Train on one text (``Lesson.of`` refuses an unknown category, drops an empty text)."""
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
            # One that scores text counts at once, as it did before lessons: it will read
            # its tables anyway, and stale scoring tables are let go as soon as they are.
            # Otherwise a few dozen lessons wait at most: their sum is cheap to take.
            if self._compiled is not None or \
                    sum(waiting.chars for waiting in self._lessons) > LESSON_CHARS:
                self._count_lessons()

    def _count_lessons(self) -> None:
        """Count the waiting lessons into the tables, in the order they were taught."""
        waiting, self._lessons = self._lessons, []
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
        copy._lessons = list(self._lessons)
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
        if any(lm.order != clf.order for lm in clf._lms.values()):
            raise ModelFormatError("classifier language models disagree on the order")
        return clf
