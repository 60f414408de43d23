"""Site learning: what each site teaches while it is crawled, and where it is kept.

* ``ngram`` — character n-gram LMs (Witten–Bell) and the keep/discard classifier;
* ``model`` — a site's model: block fingerprints, structural keys, content
  containers, pages seen, the classifier;
* ``places`` — a block's place in its page: paths, structural keys, containers;
* ``learner`` — how a model labels a page and what the page teaches it;
* ``step`` — ``SiteStep``, which applies those rules as the last step of a chain;
* ``ngramstep`` — ``NGramStep``, seed 000's n-gram filter (the part ``ngram``);
* ``supervision`` — labels from a content selector or comment markers;
* ``stores`` — memory, SQLite and Redis stores, chosen by URI;
* ``warmup`` — a site's first pages, held and labelled together;
* ``declutter`` — ``Declutter``, the stateful extraction API.
"""

from .declutter import Declutter
from .model import SiteModel
from .ngram import NGramClassifier, NGramLM
from .step import SiteStep
from .stores import SiteStore, open_store
from .warmup import Released

__all__ = ["Declutter", "NGramClassifier", "NGramLM", "Released", "SiteModel", "SiteStep",
           "SiteStore", "open_store"]
