"""Site learning: what each site teaches while it is crawled, and where it is kept.

``fingerprints`` and ``places`` say what a block is across a site's pages, ``model``
what a site has learned, ``learner`` and ``step`` how it relabels a page,
``ngram``/``ngramlm``/``ngramstep`` seed 000's per-site n-gram classifier, ``stores``
where models live, ``declutter`` the stateful extraction API.
"""

from .declutter import Declutter
from .model import SiteModel
from .ngram import NGramClassifier, NGramLM
from .step import SiteStep
from .stores import SiteStore, open_store

__all__ = ["Declutter", "NGramClassifier", "NGramLM", "SiteModel", "SiteStep",
           "SiteStore", "open_store"]
