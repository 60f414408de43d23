"""scrapy_declutter: boilerplate removal for Scrapy crawls, learning each site as it goes.

The public names are re-exported here. The parts, top layer first (a part
imports only from those below it; ``setup.cfg``'s import-linter contracts
check it, and docs/layout.md lists them):

* ``lab`` — development: evaluation, training, fuzzing, benchmarks; no
  runtime module imports it;
* ``cli`` (the command line) and ``integration`` (the Scrapy components);
* ``nearduplicates`` (``DuplicateIndex``: a crawl's near-duplicate pages);
* ``sitelearning`` (site models, ``SiteStep``, stores, ``Declutter``) and
  ``report`` (inspection reports);
* ``api`` (``extract()``), then ``registry`` (extractor names) and
  ``result`` (``Result``), then ``formats`` (Markdown) and ``metadata``;
* ``steps`` — the algorithms, one module or subpackage each;
* ``page`` (``Page``), and beneath it the modules it builds on:
  ``language``, ``salvage``, ``limits``, ``modelfile``, ``sniff``,
  ``blocks``, ``structure``, ``errors``, ``version``.
"""

from .api import extract
from .blocks import BOILERPLATE, COMMENT, CONTENT, Block, SiteReason
from .errors import (
    DeclutterError,
    MissingExtraError,
    ModelError,
    ModelFormatError,
    ModelVersionError,
    ResultNotKeptError,
    SettingsError,
    StoreError,
    StoreUnavailableError,
    UnknownExtractorError,
)
from .page import Page
from .registry import Extractor, build_extractor, extractors
from .result import Result, SiteDecisions
from .version import __version__

#: Imported on first use: Scrapy costs ~0.5 s to import and site learning
#: pulls in NumPy; ``extract()`` needs neither.
_LAZY = {
    "Declutter": "scrapy_declutter.sitelearning",
    "SiteStep": "scrapy_declutter.sitelearning",
    "DuplicateIndex": "scrapy_declutter.nearduplicates",
    "open_duplicate_index": "scrapy_declutter.nearduplicates",
    "Addon": "scrapy_declutter.integration.addon",
    "DeclutterMiddleware": "scrapy_declutter.integration.middleware",
    "DeclutterSpiderMiddleware": "scrapy_declutter.integration.spidermw",
    "DeclutterPipeline": "scrapy_declutter.integration.pipeline",
    "result_for": "scrapy_declutter.integration.response",
    "DeclutteredResponse": "scrapy_declutter.integration.response",
    "CsvItemExporter": "scrapy_declutter.integration.exporters",
    "XmlItemExporter": "scrapy_declutter.integration.exporters",
}


def __getattr__(name: str):  # PEP 562: lazy re-exports
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'scrapy_declutter' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value

__all__ = [
    "Addon",
    "BOILERPLATE",
    "COMMENT",
    "CONTENT",
    "Block",
    "CsvItemExporter",
    "Declutter",
    "DeclutterMiddleware",
    "DeclutterPipeline",
    "DeclutterSpiderMiddleware",
    "DeclutteredResponse",
    "DeclutterError",
    "DuplicateIndex",
    "Extractor",
    "MissingExtraError",
    "ModelError",
    "ModelFormatError",
    "ModelVersionError",
    "Page",
    "Result",
    "ResultNotKeptError",
    "SettingsError",
    "SiteDecisions",
    "SiteReason",
    "SiteStep",
    "StoreError",
    "StoreUnavailableError",
    "UnknownExtractorError",
    "__version__",
    "XmlItemExporter",
    "build_extractor",
    "extract",
    "extractors",
    "open_duplicate_index",
    "result_for",
]
