"""The Scrapy components: add-on, downloader middleware, spider middleware, item pipeline.

Also the feed exporters that write nested values as JSON text, and
``result_for(response)``, which gives a callback its page's Result.

Importing this package imports Scrapy; ``scrapy_declutter`` itself re-exports
these names lazily so that the extraction core loads without it.
"""

from .addon import Addon
from .exporters import CsvItemExporter, XmlItemExporter
from .handoff import result_for
from .middleware import DeclutterMiddleware
from .pipeline import DeclutterPipeline
from .settings import DEFAULTS, DeclutterOptions
from .spidermw import DeclutterSpiderMiddleware

__all__ = [
    "DEFAULTS",
    "Addon",
    "CsvItemExporter",
    "DeclutterMiddleware",
    "DeclutterOptions",
    "DeclutterPipeline",
    "DeclutterSpiderMiddleware",
    "XmlItemExporter",
    "result_for",
]
