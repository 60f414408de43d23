"""scrapy_declutter: boilerplate removal for Scrapy crawls, learning each site as it goes."""

from .api import extract
from .blocks import BOILERPLATE, CONTENT, Block
from .errors import DeclutterError, UnknownExtractorError
from .extractors import Extractor, build_extractor, extractors
from .page import Page
from .result import Result

__version__ = "0.1.0"

__all__ = [
    "BOILERPLATE",
    "CONTENT",
    "Block",
    "DeclutterError",
    "Extractor",
    "Page",
    "Result",
    "UnknownExtractorError",
    "build_extractor",
    "extract",
    "extractors",
]
