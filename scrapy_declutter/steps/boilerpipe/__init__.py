"""Boilerpipe (seed 002): shallow-text classifiers, filters and fusion as steps.

``document`` holds the TextDocument view that lets fusion and removal work
without touching ``page.blocks``; ``classifiers`` the decision trees and the
marker finders; ``filters`` the label filters; ``fusion`` the merging steps;
``chains`` the two extractors.
"""

from .chains import article_chain, default_chain
from .classifiers import (
    DensityRulesClassifier,
    DocumentTitleMatchClassifier,
    NumWordsRulesClassifier,
    TerminatingBlocksFinder,
)
from .document import TextDocument, TextUnit, document
from .filters import (
    BoilerplateBlockFilter,
    ExpandTitleToContentFilter,
    IgnoreBlocksAfterContentFilter,
    KeepLargestBlockFilter,
    KeepLargestFulltextBlockFilter,
)
from .fusion import (
    MAX_DISTANCE_1,
    MAX_DISTANCE_1_CONTENT_ONLY,
    MAX_DISTANCE_1_CONTENT_ONLY_SAME_TAGLEVEL,
    MAX_DISTANCE_1_SAME_TAGLEVEL,
    BlockProximityFusion,
    SimpleBlockFusionProcessor,
)

__all__ = [
    "MAX_DISTANCE_1",
    "MAX_DISTANCE_1_CONTENT_ONLY",
    "MAX_DISTANCE_1_CONTENT_ONLY_SAME_TAGLEVEL",
    "MAX_DISTANCE_1_SAME_TAGLEVEL",
    "BlockProximityFusion",
    "BoilerplateBlockFilter",
    "DensityRulesClassifier",
    "DocumentTitleMatchClassifier",
    "ExpandTitleToContentFilter",
    "IgnoreBlocksAfterContentFilter",
    "KeepLargestBlockFilter",
    "KeepLargestFulltextBlockFilter",
    "NumWordsRulesClassifier",
    "SimpleBlockFusionProcessor",
    "TerminatingBlocksFinder",
    "TextDocument",
    "TextUnit",
    "article_chain",
    "default_chain",
    "document",
]
