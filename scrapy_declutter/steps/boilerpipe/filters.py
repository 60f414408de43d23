"""Boilerpipe's filters that act on labels already set (Java ``filters/simple|english|heuristics``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import Step
from .document import INDICATES_END_OF_TEXT, MIGHT_BE_CONTENT, TITLE, TextUnit, document

if TYPE_CHECKING:
    from ...page import Page

#: IgnoreBlocksAfterContentFilter's default: full-text words needed before an end marker counts.
MIN_WORDS_BEFORE_END = 60
#: Text density from which a block's words count as full text (``getNumFullTextWords``).
FULLTEXT_MIN_DENSITY = 9


def fulltext_words(unit: TextUnit, min_density: float = FULLTEXT_MIN_DENSITY) -> int:
    """The unit's words if it reads like running text (dense enough), else 0."""
    return unit.words if unit.text_density >= min_density else 0


class IgnoreBlocksAfterContentFilter(Step):
    """After an INDICATES_END_OF_TEXT marker, everything is boilerplate.

    The marker only counts once ``min_words`` full-text words of content came
    before it, so a "Comments" link in the page header does not end the article.
    """

    name = "boilerpipe.IgnoreBlocksAfterContentFilter"

    def __init__(self, *, min_words: int = MIN_WORDS_BEFORE_END) -> None:
        self.min_words = min_words

    def process(self, page: Page) -> None:
        words, ended = 0, False
        for unit in document(page).units:
            if unit.is_content:
                words += fulltext_words(unit)
            if not ended and INDICATES_END_OF_TEXT in unit.markers and words >= self.min_words:
                ended = True
            if ended:
                unit.set_content(False, self.name)


class BoilerplateBlockFilter(Step):
    """Drop the boilerplate units from the Boilerpipe view (their Blocks keep their label).

    Downstream fusion then sees content blocks that were separated by
    boilerplate as neighbours, the point of running it before the second fusion.
    """

    name = "boilerpipe.BoilerplateBlockFilter"

    def process(self, page: Page) -> None:
        doc = document(page)
        doc.units = [u for u in doc.units if u.is_content]


class KeepLargestBlockFilter(Step):
    """Keep only the content unit with the most words; the rest become MIGHT_BE_CONTENT.

    Ties go to the first such unit. Demoted units are marked MIGHT_BE_CONTENT
    so ExpandTitleToContentFilter can bring back the ones between the title
    and the kept text. Not in the seed's chains: BoilerPy3's ArticleExtractor
    uses it in place of KeepLargestFulltextBlockFilter, and
    ``boilerpipe-article(keep_largest="words")`` selects it for comparison.
    """

    name = "boilerpipe.KeepLargestBlockFilter"

    def words(self, unit: TextUnit) -> int:
        return unit.words

    def process(self, page: Page) -> None:
        units = document(page).units
        if len(units) < 2:
            return
        largest, most = None, -1
        for unit in units:
            if unit.is_content:
                n = self.words(unit)
                if n > most:
                    largest, most = unit, n
        if largest is None:
            return
        for unit in units:
            if unit is largest:
                unit.set_content(True, self.name)
            else:
                unit.set_content(False, self.name)
                unit.markers.add(MIGHT_BE_CONTENT)


class KeepLargestFulltextBlockFilter(KeepLargestBlockFilter):
    """KeepLargestBlockFilter counting only full-text words (units of text density 9 or more).

    The seed's ArticleExtractor uses this one. A fused article whose headings
    and short list items pull its density under 9 counts 0 words here, and
    then the first content unit wins however small it is: the main reason our
    ``boilerpipe-article`` scores below BoilerPy3's, which counts plain words.
    """

    name = "boilerpipe.KeepLargestFulltextBlockFilter"

    def __init__(self, *, min_density: float = FULLTEXT_MIN_DENSITY) -> None:
        self.min_density = min_density

    def words(self, unit: TextUnit) -> int:
        return fulltext_words(unit, self.min_density)


class ExpandTitleToContentFilter(Step):
    """Units between the title and the first content unit that MIGHT_BE_CONTENT become content.

    Quite specific to news: it recovers the lead paragraphs and bylines that
    sit between the headline and the article body.
    """

    name = "boilerpipe.ExpandTitleToContentFilter"

    def process(self, page: Page) -> None:
        units = document(page).units
        title, start = -1, -1
        for i, unit in enumerate(units):
            if start == -1 and TITLE in unit.markers:
                title = i
            if start == -1 and unit.is_content:
                start = i
        if title == -1 or start <= title:
            return
        for unit in units[title:start]:
            if MIGHT_BE_CONTENT in unit.markers:
                unit.set_content(True, self.name)
