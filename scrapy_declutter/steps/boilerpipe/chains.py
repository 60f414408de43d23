"""Boilerpipe's two extractors, composed exactly as seed 002 lists them.

``ArticleExtractor.process`` in Boilerpipe 1.1.0::

    TerminatingBlocksFinder | DocumentTitleMatchClassifier(doc title)
    | NumWordsRulesClassifier | IgnoreBlocksAfterContentFilter.DEFAULT_INSTANCE
    | BlockProximityFusion.MAX_DISTANCE_1 | BoilerplateBlockFilter
    | BlockProximityFusion.MAX_DISTANCE_1_CONTENT_ONLY
    | KeepLargestFulltextBlockFilter | ExpandTitleToContentFilter

``DefaultExtractor.process``::

    SimpleBlockFusionProcessor | BlockProximityFusion.MAX_DISTANCE_1
    | DensityRulesClassifier

Java joins the filters with the non-short-circuit ``|``, so every filter
runs; ``Extractor.run`` does the same. BoilerPy3's ArticleExtractor replaced
KeepLargestFulltextBlockFilter with KeepLargestBlockFilter (plain word
counts); we keep the seed's by default, and ``keep_largest="words"`` selects
BoilerPy3's choice so the difference can be measured.
"""

from __future__ import annotations

from .. import Step
from .classifiers import (
    DensityRulesClassifier,
    DocumentTitleMatchClassifier,
    NumWordsRulesClassifier,
    TerminatingBlocksFinder,
)
from .filters import (
    BoilerplateBlockFilter,
    ExpandTitleToContentFilter,
    IgnoreBlocksAfterContentFilter,
    KeepLargestBlockFilter,
    KeepLargestFulltextBlockFilter,
)
from .fusion import MAX_DISTANCE_1, MAX_DISTANCE_1_CONTENT_ONLY, SimpleBlockFusionProcessor

#: ``article_chain(keep_largest=...)``: which block-size measure picks the article.
KEEP_LARGEST = {"fulltext": KeepLargestFulltextBlockFilter, "words": KeepLargestBlockFilter}


def article_chain(*, keep_largest: str = "fulltext") -> list[Step]:
    """Extractor ``boilerpipe-article``: tuned for news and article pages.

    ``keep_largest`` is ``fulltext`` (the seed: words of units with text
    density 9 or more) or ``words`` (BoilerPy3: all words).
    """
    if keep_largest not in KEEP_LARGEST:
        raise ValueError(f"keep_largest must be one of {sorted(KEEP_LARGEST)}, not {keep_largest!r}")
    return [
        TerminatingBlocksFinder(),
        DocumentTitleMatchClassifier(),
        NumWordsRulesClassifier(),
        IgnoreBlocksAfterContentFilter(),
        MAX_DISTANCE_1,
        BoilerplateBlockFilter(),
        MAX_DISTANCE_1_CONTENT_ONLY,
        KEEP_LARGEST[keep_largest](),
        ExpandTitleToContentFilter(),
    ]


def default_chain() -> list[Step]:
    """Extractor ``boilerpipe-default``: the generic full-text chain, no news heuristics."""
    return [SimpleBlockFusionProcessor(), MAX_DISTANCE_1, DensityRulesClassifier()]
