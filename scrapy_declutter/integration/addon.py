"""Addon: ``ADDONS = {"scrapy_declutter.Addon": 500}`` enables all three components.

It only edits component dicts, with ``setdefault`` semantics, so a priority
the user gave any of the components wins, and every ``DECLUTTER_*`` setting
keeps its default from ``settings.DEFAULTS`` unless the project, the spider or
the command line sets it. It also registers the CSV and XML exporters that
write nested values as JSON text (``exporters``), for the formats the
project has not given an exporter of its own.

Settings are not checked here: a spider's ``from_crawler`` may still change
them after the add-ons ran. The components check them when Scrapy builds
them (``state.CrawlState``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .exporters import CsvItemExporter, XmlItemExporter
from .middleware import DeclutterMiddleware
from .pipeline import DeclutterPipeline
from .spidermw import DeclutterSpiderMiddleware

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: Below RetryMiddleware (550) and HttpCompressionMiddleware (590): only final,
#: decompressed responses; not 543, which scrapy-poet and the project template use.
DOWNLOADER_MIDDLEWARE_PRIORITY = 540
#: Close to the spider, so the items are filled before other spider middlewares see them.
SPIDER_MIDDLEWARE_PRIORITY = 950
#: Before the customary 300 of project pipelines, which may store the clean text.
PIPELINE_PRIORITY = 200
#: Feed format -> the exporter that writes nested values as JSON text.
FEED_EXPORTERS = {"csv": CsvItemExporter, "xml": XmlItemExporter}


class Addon:
    """The Scrapy add-on; any add-on priority works, since it only touches its own entries."""

    def update_settings(self, settings: BaseSettings) -> None:
        for setting, component, priority in (
            ("DOWNLOADER_MIDDLEWARES", DeclutterMiddleware, DOWNLOADER_MIDDLEWARE_PRIORITY),
            ("SPIDER_MIDDLEWARES", DeclutterSpiderMiddleware, SPIDER_MIDDLEWARE_PRIORITY),
            ("ITEM_PIPELINES", DeclutterPipeline, PIPELINE_PRIORITY),
        ):
            settings.setdefault_in_component_priority_dict(setting, component, priority)
        exporters = settings.getdict("FEED_EXPORTERS")
        for fmt, exporter in FEED_EXPORTERS.items():
            exporters.setdefault(fmt, exporter)
        # At the priority the setting already has, like setdefault_in_component_priority_dict:
        # the project's own entries stay, and so does a dict it set at any priority.
        settings.set("FEED_EXPORTERS", exporters, settings.getpriority("FEED_EXPORTERS") or 0)
