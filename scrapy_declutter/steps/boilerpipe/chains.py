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
counts); we keep the seed's.
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
    KeepLargestFulltextBlockFilter,
)
from .fusion import MAX_DISTANCE_1, MAX_DISTANCE_1_CONTENT_ONLY, SimpleBlockFusionProcessor


def article_chain() -> list[Step]:
    """Extractor ``boilerpipe-article``: tuned for news and article pages."""
    return [
        TerminatingBlocksFinder(),
        DocumentTitleMatchClassifier(),
        NumWordsRulesClassifier(),
        IgnoreBlocksAfterContentFilter(),
        MAX_DISTANCE_1,
        BoilerplateBlockFilter(),
        MAX_DISTANCE_1_CONTENT_ONLY,
        KeepLargestFulltextBlockFilter(),
        ExpandTitleToContentFilter(),
    ]


def default_chain() -> list[Step]:
    """Extractor ``boilerpipe-default``: the generic full-text chain, no news heuristics."""
    return [SimpleBlockFusionProcessor(), MAX_DISTANCE_1, DensityRulesClassifier()]
