"""A page's lesson for the n-gram classifier, kept as its texts until a table is read.

An unsupervised crawl trains every site's n-gram classifier and, by default,
never scores text with it (the learner votes only on sites someone labelled,
``learner``). Counting a page's n-grams there (hashing some 70,000 keys, sorting
the distinct ones, merging them into the tables) was a third of what site
learning cost the crawl, and the counted tables (some 25,000 keys a page, a
few hundred KB) were most of what its deltas wrote. So a classifier keeps each
page's lesson as the texts it was given (at most 6,000 characters a class) and
counts them when something reads its tables: scoring, a merge, a stored model
that has counted tables already, or ``LESSON_CHARS`` of texts waiting. They
are counted one page at a time and in the order they came, so the tables are
the ones counting each page at once gave.

A lesson is counted at most once (``counted`` keeps the result): the same
lesson goes to the site's model and to its delta, and a ``Declutter`` whose
pages are scored counts it for the model, then the delta reuses the counts.

Stored (``arrays``/``from_arrays``), the lessons are four arrays beside the
tables: the texts' UTF-8 bytes, each text's byte length, its category (an
index into ``CATEGORIES``) and each page's number of texts.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

from ..errors import ModelFormatError
from .ngramkeys import MAX_CHARS, texts_counted

KEEP = "keep"
DISCARD = "discard"
CATEGORIES = (KEEP, DISCARD)
#: Characters of lessons a classifier keeps uncounted; past this it counts them. A page
#: gives at most 12,000 (``learner``), so a site's first 20 pages or so wait: a broad
#: crawl's sites mostly never count. Counted tables hold at most some 1 MB per site.
LESSON_CHARS = 1 << 18

#: Per category: its texts' n-grams, counted (``counts.counted``), and how many texts.
Prepared = dict[str, tuple[np.ndarray, np.ndarray, int]]


class Lesson:
    """One page's training texts by category, and their n-grams once counted."""

    __slots__ = ("texts", "chars", "_counted")

    def __init__(self, texts: Mapping[str, Sequence[str]]) -> None:
        """``texts``: per category, texts each non-empty and cut to ``MAX_CHARS`` (``of``)."""
        self.texts = {category: tuple(items) for category, items in texts.items() if items}
        self.chars = sum(sum(map(len, items)) for items in self.texts.values())
        self._counted: tuple[int, Prepared] | None = None  # (order, batch)

    @classmethod
    def of(cls, examples: Mapping[str, Iterable[str]]) -> "Lesson":
        """A lesson from texts by category: empty texts dropped, the rest cut to
        ``MAX_CHARS`` (all a model reads of a text); an unknown category is a ValueError."""
        for category in examples:
            if category not in CATEGORIES:
                raise ValueError(f"category must be one of {CATEGORIES}, not {category!r}")
        return cls({category: [text[:MAX_CHARS] for text in texts if text]
                    for category, texts in examples.items()})

    @classmethod
    def of_pairs(cls, examples: Iterable[tuple[str, str]]) -> "Lesson":
        """A lesson from (category, text) pairs, as ``of``."""
        texts: dict[str, list[str]] = {}
        for category, text in examples:
            texts.setdefault(category, []).append(text)
        return cls.of(texts)

    def examples(self) -> dict[str, int]:
        """How many texts of each category the lesson holds."""
        return {category: len(items) for category, items in self.texts.items()}

    def counted(self, order: int) -> Prepared:
        """Per category, the n-grams of its texts, counted, and how many texts: one pass each.

        Each text is its own sequence (``ngramkeys.texts_counted``), so the
        counts equal training each text on its own, as LingPipe does.
        """
        if self._counted is None or self._counted[0] != order:
            self._counted = order, {category: (*texts_counted(items, order), len(items))
                                    for category, items in self.texts.items()}
        return self._counted[1]

    @property
    def is_counted(self) -> bool:
        return self._counted is not None

    @property
    def nbytes(self) -> int:
        """Memory held: the texts (one byte a character, as ASCII holds them) and any counts."""
        held = self.chars
        if self._counted is not None:
            held += sum(keys.nbytes + counts.nbytes for keys, counts, _ in self._counted[1].values())
        return held


def arrays(lessons: Sequence[Lesson]) -> dict[str, np.ndarray]:
    """The stored form of lessons (see the module docstring), for ``modelbytes``."""
    encoded, categories, sizes = [], [], []
    for lesson in lessons:
        size = 0
        for category, texts in lesson.texts.items():
            encoded += [text.encode("utf-8", "surrogatepass") for text in texts]
            categories += [CATEGORIES.index(category)] * len(texts)
            size += len(texts)
        sizes.append(size)
    return {
        "lesson_texts": np.frombuffer(b"".join(encoded), dtype="|u1"),
        "lesson_lengths": np.fromiter(map(len, encoded), dtype="<u4", count=len(encoded)),
        "lesson_categories": np.array(categories, dtype="|u1"),
        "lesson_sizes": np.array(sizes, dtype="<u4"),
    }


def from_arrays(stored: Mapping[str, np.ndarray]) -> list[Lesson]:
    """Lessons from their stored form; none when the arrays are absent (an older model).
    Arrays that do not add up, or texts that are not UTF-8, are a ModelFormatError."""
    if "lesson_sizes" not in stored:
        return []
    try:
        raw = stored["lesson_texts"].tobytes()
        lengths = stored["lesson_lengths"].tolist()
        categories = stored["lesson_categories"].tolist()
        sizes = stored["lesson_sizes"].tolist()
    except KeyError as exc:
        raise ModelFormatError(f"stored lessons lack {exc}") from None
    if sum(sizes) != len(lengths) or len(categories) != len(lengths) or sum(lengths) != len(raw) \
            or any(c >= len(CATEGORIES) for c in categories):
        raise ModelFormatError("stored lessons do not add up")
    out, first, at = [], 0, 0  # a lesson's first text, and the byte it starts at
    try:
        for size in sizes:
            by_category: dict[str, list[str]] = {}
            for category, length in zip(categories[first:first + size],
                                        lengths[first:first + size]):
                by_category.setdefault(CATEGORIES[category], []).append(
                    raw[at:at + length].decode("utf-8", "surrogatepass"))
                at += length
            out.append(Lesson(by_category))
            first += size
    except UnicodeDecodeError as exc:
        raise ModelFormatError(f"a stored lesson is not UTF-8: {exc}") from None
    return out

