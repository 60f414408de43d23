"""The keep/discard classifier of seed 000 (LingPipe's ``DynamicLMClassifier``).

One process language model per category (``ngramlm``), add-one priors; the
category with the highest joint log-probability wins, and the log-odds of keep
over discard is the block's score.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from ..errors import ModelFormatError
from .modelbytes import narrowest
from .ngramlm import ALPHABET_SIZE, DEFAULT_ORDER, MAX_CHARS, MAX_ENTRIES, NGramLM, Scorer, \
    texts_counted

KEEP = "keep"
DISCARD = "discard"
CATEGORIES = (KEEP, DISCARD)
#: A classifier scores with its tables until this share of new n-gram occurrences (relative
#: to what they were built from) has been trained since: building them costs a page's scoring.
STALE_SHARE = 0.125
#: Format version of ``header``; a newer one is refused on load.
FORMAT_VERSION = 2

#: Per category: its texts' n-grams counted (keys, counts) and how many texts.
Prepared = dict[str, tuple[np.ndarray, np.ndarray, int]]


def prepare(examples: Mapping[str, Iterable[str]], order: int) -> Prepared:
    """Texts by category, counted for ``NGramClassifier.add`` (one page's texts go to a site's
    model and its delta, counted once): empty texts dropped, the rest cut to ``MAX_CHARS``."""
    out: Prepared = {}
    for category, items in examples.items():
        if category not in CATEGORIES:
            raise ValueError(f"category must be one of {CATEGORIES}, not {category!r}")
        texts = [text[:MAX_CHARS] for text in items if text]
        if texts:
            out[category] = (*texts_counted(texts, order), len(texts))
    return out


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
    """Two process LMs (keep, discard) and add-one category priors: LingPipe's DynamicLMClassifier."""

    def __init__(self, *, order: int = DEFAULT_ORDER, max_entries: int = MAX_ENTRIES,
                 alphabet_size: int = ALPHABET_SIZE) -> None:
        self.order = order
        self.lms = {c: NGramLM(order=order, max_entries=max_entries, alphabet_size=alphabet_size)
                    for c in CATEGORIES}
        self.examples = {c: 0 for c in CATEGORIES}
        self._scoring: Scorer | None = None
        self._scoring_size = 0  # n-gram occurrences the scorer was built from
        self._added = 0  # n-gram occurrences trained since

    def train(self, category: str, text: str) -> None:
        self.add(prepare({category: [text]}, self.order))

    def train_many(self, examples: Iterable[tuple[str, str]]) -> None:
        """Train on (category, text) pairs: the same counts as ``train`` on each."""
        texts: dict[str, list[str]] = {}
        for category, text in examples:
            texts.setdefault(category, []).append(text)
        self.add(prepare(texts, self.order))

    def add(self, prepared: Prepared) -> None:
        """Learn texts ``prepare`` counted."""
        for category, (keys, counts, n) in prepared.items():
            self.examples[category] += n
            self.lms[category].add_counted(keys, counts)
            self._added += int(counts.sum())
        if self._scoring is not None and self._stale():
            self._scoring = None

    def ready(self, min_examples: int = 1) -> bool:
        """Whether both categories have seen at least ``min_examples`` texts."""
        return all(n >= min_examples for n in self.examples.values())

    def classify(self, text: str) -> Classification:
        total = sum(self.examples.values()) + len(CATEGORIES)  # add-one priors
        joint = {c: math.log2((self.examples[c] + 1) / total) for c in CATEGORIES}
        if text[:MAX_CHARS]:
            for c, row in zip(CATEGORIES, np.log2(self._scorer().probs(text)).sum(axis=1)):
                joint[c] += float(row)
        odds = joint[KEEP] - joint[DISCARD]
        return Classification(KEEP if odds >= 0 else DISCARD, odds)

    def _scorer(self) -> Scorer:
        """The scorer, rebuilt once ``STALE_SHARE`` more has been trained."""
        if self._scoring is None or self._stale():
            tables = [lm.table() for lm in self.lms.values()]
            self._scoring = Scorer(tables, [lm.lambda_factor for lm in self.lms.values()],
                                   self.lms[KEEP].alphabet_size, self.order)
            self._scoring_size = int(sum(counts.sum() for _, counts in tables))
            self._added = 0
        return self._scoring

    def _stale(self) -> bool:
        return self._added > STALE_SHARE * max(self._scoring_size, 4096)

    def merge(self, other: "NGramClassifier") -> None:
        """Add another classifier's counts."""
        for c in CATEGORIES:
            self.lms[c].merge(other.lms[c])
            self.examples[c] += other.examples[c]
        self._scoring = None

    def estimated_bytes(self) -> int:
        """Memory the tables hold, without folding anything: a cache's budget reads it per page."""
        return sum(lm._keys.nbytes + lm._counts.nbytes + 16 * lm._pending_size
                   for lm in self.lms.values())

    def header(self) -> dict[str, Any]:
        """What is stored as JSON: everything but the tables (``arrays``)."""
        return {"version": FORMAT_VERSION, "order": self.order, "examples": dict(self.examples),
                "lms": {c: lm.header() for c, lm in self.lms.items()}}

    def arrays(self) -> dict[str, np.ndarray]:
        """The language models' tables, by name, as a stored model keeps them."""
        out = {}
        for c, lm in self.lms.items():
            keys, counts = lm.table()
            out[f"{c}_keys"], out[f"{c}_counts"] = keys.astype("<u8"), narrowest(counts)
        return out

    @classmethod
    def from_header(cls, data: Any, arrays: Mapping[str, np.ndarray]) -> "NGramClassifier":
        """A classifier from ``header`` and ``arrays``; anything else is a ModelFormatError."""
        if not isinstance(data, dict):
            raise ModelFormatError("classifier data must be a mapping")
        version = data.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION or version < 1:
            raise ModelFormatError(f"classifier format version {version!r}; this release reads "
                                   f"up to {FORMAT_VERSION}")
        try:
            clf = cls(order=int(data["order"]))
            clf.lms = {c: NGramLM.from_header(data["lms"][c], (arrays[f"{c}_keys"],
                                                               arrays[f"{c}_counts"]))
                       for c in CATEGORIES}
            clf.examples = {c: int(data["examples"][c]) for c in CATEGORIES}
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFormatError(f"bad classifier data: {exc!r}") from None
        if any(lm.order != clf.order for lm in clf.lms.values()):
            raise ModelFormatError("classifier language models disagree on the order")
        return clf
