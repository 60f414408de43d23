"""scrapy_declutter: boilerplate removal for Scrapy crawls, learning each site as it goes."""

from .api import extract
from .blocks import BOILERPLATE, CONTENT, Block
from .errors import (
    DeclutterError,
    MissingExtraError,
    ModelError,
    ModelFormatError,
    ModelVersionError,
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
    "Addon": "scrapy_declutter.integration.addon",
    "DeclutterMiddleware": "scrapy_declutter.integration.middleware",
    "DeclutterSpiderMiddleware": "scrapy_declutter.integration.spidermw",
    "DeclutterPipeline": "scrapy_declutter.integration.pipeline",
    "result_for": "scrapy_declutter.integration.handoff",
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
    "CONTENT",
    "Block",
    "CsvItemExporter",
    "Declutter",
    "DeclutterMiddleware",
    "DeclutterPipeline",
    "DeclutterSpiderMiddleware",
    "DeclutterError",
    "Extractor",
    "MissingExtraError",
    "ModelError",
    "ModelFormatError",
    "ModelVersionError",
    "Page",
    "Result",
    "SettingsError",
    "SiteDecisions",
    "SiteStep",
    "StoreError",
    "StoreUnavailableError",
    "UnknownExtractorError",
    "__version__",
    "XmlItemExporter",
    "build_extractor",
    "extract",
    "extractors",
    "result_for",
]
