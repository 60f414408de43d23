"""Boilerpipe's classifiers: the two shallow-text decision trees and the two markers.

The trees are the C4.8 rules of Kohlschütter et al., "Boilerplate Detection
using Shallow Text Features" (WSDM 2010), with the thresholds of seed 002:
``num_words_rule`` is the paper's Algorithm 2 (NumWordsRulesClassifier),
``density_rule`` its Algorithm 1 (DensityRulesClassifier). Each is a pure
function of (previous, current, next) so a test can walk every leaf.

TerminatingBlocksFinder and DocumentTitleMatchClassifier only put markers on
units for the filters downstream; they change no label.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import Step
from .document import INDICATES_END_OF_TEXT, TITLE, TextUnit, document, neighbours

if TYPE_CHECKING:
    from ...page import Page

#: Both trees: a block whose link density is above this is boilerplate.
MAX_LINK_DENSITY = 0.333333
#: Both trees: the previous block's link density that switches subtree.
PREV_MAX_LINK_DENSITY = 0.555556

# NumWordsRulesClassifier (Algorithm 2) thresholds, in the seed's order.
CURR_WORDS_LOW = 16
NEXT_WORDS_LOW = 15
PREV_WORDS_LOW = 4
CURR_WORDS_AFTER_LINKS = 40
NEXT_WORDS_AFTER_LINKS = 17

# DensityRulesClassifier (Algorithm 1) thresholds.
CURR_DENSITY_LOW = 9
NEXT_DENSITY_LOW = 10
PREV_DENSITY_LOW = 4
NEXT_DENSITY_AFTER_LINKS = 11

Rule = Callable[[TextUnit, TextUnit, TextUnit], bool]


def num_words_rule(prev: TextUnit, cur: TextUnit, nxt: TextUnit) -> bool:
    """Algorithm 2: is ``cur`` content, from word counts and link densities."""
    if cur.link_density > MAX_LINK_DENSITY:
        return False
    if prev.link_density <= PREV_MAX_LINK_DENSITY:
        if cur.words <= CURR_WORDS_LOW:
            if nxt.words <= NEXT_WORDS_LOW:
                return prev.words > PREV_WORDS_LOW
            return True
        return True
    if cur.words <= CURR_WORDS_AFTER_LINKS:
        return nxt.words > NEXT_WORDS_AFTER_LINKS
    return True


def density_rule(prev: TextUnit, cur: TextUnit, nxt: TextUnit) -> bool:
    """Algorithm 1: is ``cur`` content, from text densities and link densities."""
    if cur.link_density > MAX_LINK_DENSITY:
        return False
    if prev.link_density <= PREV_MAX_LINK_DENSITY:
        if cur.text_density <= CURR_DENSITY_LOW:
            if nxt.text_density <= NEXT_DENSITY_LOW:
                return prev.text_density > PREV_DENSITY_LOW
            return True
        return nxt.text_density != 0
    return nxt.text_density > NEXT_DENSITY_AFTER_LINKS


class _RulesClassifier(Step):
    """Label every unit with a (prev, cur, next) rule; decisions first, then applied."""

    rule: Rule

    def process(self, page: Page) -> None:
        units = document(page).units
        decisions = [self.rule(p, c, n) for p, c, n in neighbours(units)]
        for unit, content in zip(units, decisions):
            unit.set_content(content, self.name)


class NumWordsRulesClassifier(_RulesClassifier):
    """Content/boilerplate by number of words and link density (ArticleExtractor's classifier)."""

    name = "boilerpipe.NumWordsRulesClassifier"
    rule = staticmethod(num_words_rule)


class DensityRulesClassifier(_RulesClassifier):
    """Content/boilerplate by text density and link density (DefaultExtractor's classifier)."""

    name = "boilerpipe.DensityRulesClassifier"
    rule = staticmethod(density_rule)


#: TerminatingBlocksFinder only looks at blocks with fewer words than this.
TERMINATING_MAX_WORDS = 20
#: Boilerpipe 1.1.0's phrases (the seed's list), matched case-sensitively as
#: Java did: hence the case variants.
TERMINATING_STARTS = ("Comments", "© Reuters", "Please rate this")
TERMINATING_CONTAINS = (
    "What you think...",
    "add your comment",
    "Add your comment",
    "Add Your Comment",
    "Add Comment",
    "Reader views",
    "Have your say",
    "Have Your Say",
    "Reader Comments",
)
TERMINATING_EQUALS = ("Thanks for your comments - this feedback is now closed",)
#: "12 Comments", "3 users responded in" (Java ``N_COMMENTS``, case-insensitive, any line).
N_COMMENTS = re.compile(r"^[0-9]+ (Comments|users responded in)", re.MULTILINE | re.DOTALL | re.IGNORECASE)


def is_terminating(text: str) -> bool:
    """Whether a short block's text says the article ends here (comments, ratings, wire credit)."""
    text = text.strip()
    return (
        text.startswith(TERMINATING_STARTS)
        or N_COMMENTS.search(text) is not None
        or any(p in text for p in TERMINATING_CONTAINS)
        or text in TERMINATING_EQUALS
    )


class TerminatingBlocksFinder(Step):
    """Mark short blocks that signal the end of the article text (INDICATES_END_OF_TEXT).

    Used with IgnoreBlocksAfterContentFilter downstream. Markers are not
    labels: no Block's label changes here.
    """

    name = "boilerpipe.TerminatingBlocksFinder"

    def __init__(self, *, max_words: int = TERMINATING_MAX_WORDS) -> None:
        self.max_words = max_words

    def process(self, page: Page) -> None:
        for unit in document(page).units:
            if unit.words < self.max_words and is_terminating(unit.text):
                unit.markers.add(INDICATES_END_OF_TEXT)


#: Separators the page title is split at, each giving one candidate (Boilerpipe 1.1.0).
TITLE_SEPARATORS = (
    re.compile(r"[ ]*[|:][ ]*"),
    re.compile(r"[ ]*[|:()][ ]*"),
    re.compile(r"[ ]*[|:()\-][ ]*"),
    re.compile(r"[ ]*[|,:()\-][ ]*"),
)
_WORD = re.compile(r"\w+")


def _longest_part(title: str, separator: re.Pattern[str]) -> str | None:
    parts = separator.split(title)
    if len(parts) == 1:
        return None
    longest, longest_words = "", 0
    for part in parts:
        if ".com" in part:
            continue
        n = len(_WORD.findall(part))
        if n > longest_words or len(part) > len(longest):
            longest, longest_words = part, n
    return longest.strip() or None


def potential_titles(title: str | None) -> set[str]:
    """The title and its longest part under each separator, lower-cased."""
    title = (title or "").strip()
    if not title:
        return set()
    found = {title}
    for sep in TITLE_SEPARATORS:
        part = _longest_part(title, sep)
        if part:
            found.add(part)
    return {t.lower() for t in found}


class DocumentTitleMatchClassifier(Step):
    """Mark the blocks whose whole text is the page title or a part of it (TITLE).

    The candidates come from ``page.title`` at process time, never from the
    step, so one instance serves every page (BoilerPy3 stored them on the
    shared instance). Markers are not labels: no Block's label changes here.
    """

    name = "boilerpipe.DocumentTitleMatchClassifier"

    def process(self, page: Page) -> None:
        doc = document(page)
        titles = potential_titles(doc.title)
        if titles:
            for unit in doc.units:
                if unit.text.strip().lower() in titles:
                    unit.markers.add(TITLE)
