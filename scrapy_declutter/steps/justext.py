"""jusText (seed 003, Jan Pomikálek's algorithm) on the page's Blocks.

The stages are plain functions over lists, each testable alone, as in
``justext.core``; the ``JusText`` step feeds them the Block features and
writes the labels:

1. ``context_free_class`` per block: bad / short / near-good / good from
   length, link density and stop-word density (the seed's table), with
   ``©`` and ``<select>`` blocks bad.
2. ``preprocess_headings``: short headings followed by good text within
   ``MAX_HEADING_DISTANCE`` characters become near-good.
3. ``revise_short`` then ``revise_near_good``: the context-sensitive pass,
   document edges counting as bad blocks. Each computes its revisions into a
   mapping that is applied afterwards, so look-ups never see half-updated
   state.
4. ``postprocess_headings``: non-bad headings followed by good text within
   the distance become good.

Where the seed and the jusText package (3.0) differ, the seed wins:

- The package's heading pre-processing never fires: it compares each
  heading with the *revised* class of the blocks after it, which is still
  empty at that point. Here it runs as the seed describes (on WCXB the
  difference is +0.0004 F1 for the package).
- The package tests stop-word density with ``>=``, the seed's pseudo-code
  with ``>``; we follow the package, whose author wrote both, so results
  match on the boundary (a 10-word block with 3 stop words is near-good).

Where our segmentation differs from the package's (see the README): more
block tags split text (HTML5 sectioning tags, ``ol``, ``tbody`` ...), and
``svg``/``template`` never produce text. The seed's
"``<header>``" is HTML's ``<head>``, which never produces text here either;
HTML5 ``<header>`` elements are kept, as the package keeps them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..blocks import BOILERPLATE, CONTENT, HEADING_TAGS
from ..language import DEFAULT_LANGUAGE, declared_language, stoplist, stopword_counts
from . import Step

if TYPE_CHECKING:
    from ..blocks import Block
    from ..page import Page

MAX_LINK_DENSITY = 0.2
LENGTH_LOW = 70
LENGTH_HIGH = 200
STOPWORDS_LOW = 0.30
STOPWORDS_HIGH = 0.32
MAX_HEADING_DISTANCE = 200
NO_HEADINGS = False

GOOD, BAD, SHORT, NEAR_GOOD = "good", "bad", "short", "near-good"
#: Blocks inside these elements are form controls, never content (the seed's ``<select>``).
FORM_CONTROL_TAGS = frozenset({"select", "option", "optgroup", "textarea"})
COPYRIGHT_MARKS = ("\xa9", "&copy")

#: Block score by (context-free class, final class): a confidence rank, not a probability.
SCORES = {
    (GOOD, GOOD): 1.0,
    (NEAR_GOOD, GOOD): 0.8,
    (SHORT, GOOD): 0.6,
    (NEAR_GOOD, BAD): 0.3,
    (SHORT, BAD): 0.2,
    (BAD, BAD): 0.0,
}


def context_free_class(
    length: int,
    link_density: float,
    stopword_density: float,
    *,
    has_link: bool | None = None,
    copyright: bool = False,
    form_control: bool = False,
    length_low: int = LENGTH_LOW,
    length_high: int = LENGTH_HIGH,
    stopwords_low: float = STOPWORDS_LOW,
    stopwords_high: float = STOPWORDS_HIGH,
    max_link_density: float = MAX_LINK_DENSITY,
) -> str:
    """The seed's context-free classification of one block (length in characters)."""
    if link_density > max_link_density or copyright or form_control:
        return BAD
    if length < length_low:
        linked = link_density > 0 if has_link is None else has_link
        return BAD if linked else SHORT
    if stopword_density >= stopwords_high:
        return GOOD if length > length_high else NEAR_GOOD
    if stopword_density >= stopwords_low:
        return NEAR_GOOD
    return BAD


def _follows_good(i: int, classes: Sequence[str], lengths: Sequence[int], max_distance: int) -> bool:
    """Whether a good block comes after block ``i`` with at most ``max_distance`` characters between."""
    distance = 0
    for j in range(i + 1, len(classes)):
        if distance > max_distance:
            return False
        if classes[j] == GOOD:
            return True
        distance += lengths[j]
    return False


def preprocess_headings(
    classes: Sequence[str],
    headings: Sequence[bool],
    lengths: Sequence[int],
    *,
    max_heading_distance: int = MAX_HEADING_DISTANCE,
) -> list[str]:
    """Short headings shortly before good text become near-good, so the context pass keeps them."""
    return [
        NEAR_GOOD if c == SHORT and h and _follows_good(i, classes, lengths, max_heading_distance) else c
        for i, (c, h) in enumerate(zip(classes, headings))
    ]


def _neighbour(classes: Sequence[str], i: int, step: int, ignore_near_good: bool) -> str:
    """Class of the nearest good/bad (or near-good) block from ``i`` in direction ``step``; edges are bad."""
    j = i + step
    while 0 <= j < len(classes):
        c = classes[j]
        if c == GOOD or c == BAD or (c == NEAR_GOOD and not ignore_near_good):
            return c
        j += step
    return BAD


def revise_short(classes: Sequence[str]) -> list[str]:
    """Short blocks take their neighbours' class; between good and bad, a near-good one on the bad side decides."""
    revised: dict[int, str] = {}
    for i, c in enumerate(classes):
        if c != SHORT:
            continue
        prev, nxt = _neighbour(classes, i, -1, True), _neighbour(classes, i, 1, True)
        if prev == nxt:
            revised[i] = prev
        elif (prev == BAD and _neighbour(classes, i, -1, False) == NEAR_GOOD) or (
            nxt == BAD and _neighbour(classes, i, 1, False) == NEAR_GOOD
        ):
            revised[i] = GOOD
        else:
            revised[i] = BAD
    return [revised.get(i, c) for i, c in enumerate(classes)]


def revise_near_good(classes: Sequence[str]) -> list[str]:
    """Near-good blocks are bad between two bad blocks (or edges), good otherwise."""
    revised: dict[int, str] = {}
    for i, c in enumerate(classes):
        if c == NEAR_GOOD:
            both_bad = _neighbour(classes, i, -1, True) == BAD and _neighbour(classes, i, 1, True) == BAD
            revised[i] = BAD if both_bad else GOOD
    return [revised.get(i, c) for i, c in enumerate(classes)]


def postprocess_headings(
    classes: Sequence[str],
    cf_classes: Sequence[str],
    headings: Sequence[bool],
    lengths: Sequence[int],
    *,
    max_heading_distance: int = MAX_HEADING_DISTANCE,
) -> list[str]:
    """Headings that were not bad context-free become good shortly before good text (not iterated)."""
    revised: dict[int, str] = {}
    for i, (c, cf, h) in enumerate(zip(classes, cf_classes, headings)):
        if h and c == BAD and cf != BAD and _follows_good(i, classes, lengths, max_heading_distance):
            revised[i] = GOOD
    return [revised.get(i, c) for i, c in enumerate(classes)]


def classify_context_sensitive(
    cf_classes: Sequence[str],
    headings: Sequence[bool],
    lengths: Sequence[int],
    *,
    max_heading_distance: int = MAX_HEADING_DISTANCE,
) -> list[str]:
    """Stages 2–4: heading pre-processing, short and near-good revision, heading post-processing."""
    classes = preprocess_headings(cf_classes, headings, lengths, max_heading_distance=max_heading_distance)
    classes = revise_near_good(revise_short(classes))
    return postprocess_headings(
        classes, cf_classes, headings, lengths, max_heading_distance=max_heading_distance
    )


def link_density(block: "Block") -> float:
    """Characters inside links over the block's characters (the seed's definition)."""
    return block.link_chars / block.text_chars if block.text_chars else 0.0


def is_heading(block: "Block") -> bool:
    """Inside an ``h1``–``h6`` element, as jusText's ``h\\d`` test on the block's DOM path."""
    return block.tag in HEADING_TAGS or any(a.tag in HEADING_TAGS for a in block.ancestors)


def is_form_control(block: "Block") -> bool:
    return block.tag in FORM_CONTROL_TAGS or any(a.tag in FORM_CONTROL_TAGS for a in block.ancestors)


class JusText(Step):
    """jusText's context-free and context-sensitive classification as one step.

    Labels every block: good → content, bad → boilerplate. The finer classes
    ride along: ``block.cf_class`` (context-free: good, near-good, short,
    bad) and ``block.justext_class`` (final), and the trail
    gets ``("justext:context-free", cf_class)`` before the step's label.
    """

    name = "justext"

    def __init__(
        self,
        *,
        length_low: int = LENGTH_LOW,
        length_high: int = LENGTH_HIGH,
        stopwords_low: float = STOPWORDS_LOW,
        stopwords_high: float = STOPWORDS_HIGH,
        max_link_density: float = MAX_LINK_DENSITY,
        max_heading_distance: int = MAX_HEADING_DISTANCE,
        no_headings: bool = NO_HEADINGS,
        language: str | None = None,
        detect_language: bool = True,
    ) -> None:
        self.length_low = length_low
        self.length_high = length_high
        self.stopwords_low = stopwords_low
        self.stopwords_high = stopwords_high
        self.max_link_density = max_link_density
        self.max_heading_distance = max_heading_distance
        self.no_headings = no_headings
        self.language = language
        self.detect_language = detect_language

    def stopword_densities(self, page: "Page") -> list[float]:
        """Each block's share of words that are stop words as they stand (jusText's count).

        The Page counted them in its language; only a step told to use another
        stop list (``language``), or not to guess one (``detect_language=False``
        on a page without ``<html lang>``), counts again, with that list.
        """
        blocks = page.blocks
        language = self.language or None
        if language is None and not self.detect_language and declared_language(page.root) is None:
            language = DEFAULT_LANGUAGE
        if language is None:
            bare = [b.bare_stopwords for b in blocks]
        else:
            stops = stoplist(language)
            bare = [stopword_counts(b.text, stops)[0] for b in blocks]
        return [n / b.words if b.words else 0.0 for n, b in zip(bare, blocks)]

    def context_free(self, page: "Page") -> list[str]:
        """Stage 1 over the page's blocks, with the page's stop-word counts."""
        return [
            context_free_class(
                b.text_chars,
                link_density(b),
                density,
                has_link=b.link_words > 0,
                copyright=any(mark in b.text for mark in COPYRIGHT_MARKS),
                form_control=is_form_control(b),
                length_low=self.length_low,
                length_high=self.length_high,
                stopwords_low=self.stopwords_low,
                stopwords_high=self.stopwords_high,
                max_link_density=self.max_link_density,
            )
            for b, density in zip(page.blocks, self.stopword_densities(page))
        ]

    def process(self, page: "Page") -> None:
        blocks = page.blocks
        cf_classes = self.context_free(page)
        headings = [False] * len(blocks) if self.no_headings else [is_heading(b) for b in blocks]
        lengths = [b.text_chars for b in blocks]
        final = classify_context_sensitive(
            cf_classes, headings, lengths, max_heading_distance=self.max_heading_distance
        )
        for b, cf, c in zip(blocks, cf_classes, final):
            b.cf_class = cf
            b.justext_class = c
            b.trail = (*b.trail, (f"{self.name}:context-free", cf))
            label = CONTENT if c == GOOD else BOILERPLATE
            b.set_label(label, SCORES.get((cf, c), 0.5), self.name)
