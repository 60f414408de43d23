"""The Scrapy components: add-on, downloader middleware, spider middleware, item pipeline.

Also the feed exporters that write nested values as JSON text, and
``result_for(response)``, which gives a callback its page's Result.

* ``addon`` — ``Addon``: enables the components and registers the exporters;
* ``settings`` — ``DeclutterOptions``, the one table of ``DECLUTTER_*``
  settings, with ``converters`` reading their values;
* ``state`` — what the components of one crawler share: the start-up check,
  the backend, the stats and the summary line;
* ``backends`` — where analyses run: ``InProcess`` (the plugin's thread) or
  ``workers.WorkerProcesses`` (``DECLUTTER_PROCESSES``, each running
  ``worker``); both run a ``runner.Runner``, which turns a ``Job`` into an
  ``Answer`` with ``analyser``, the one place that calls the core;
* ``middleware`` (downloader: awaits the analysis, returns the
  ``response.DeclutteredResponse``), ``spidermw`` (spider: writes the fields
  on the items), ``pipeline`` (items carrying raw HTML);
* ``output`` — a page's field values, stats summary and Result; ``shipping``
  — a worker's Result as plain tuples; ``items`` — writing fields onto any
  item type;
* ``exporters`` — CSV and XML exporters with nested values as JSON text.

The only part that imports Scrapy at run time; it builds on the whole core
(site learning, reports, the registry) and nothing but the command line
sits beside it.

Importing this package imports Scrapy; ``scrapy_declutter`` itself re-exports
these names lazily so that the extraction core loads without it.
"""

from .addon import Addon
from .exporters import CsvItemExporter, XmlItemExporter
from .response import DeclutteredResponse, result_for
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
    "DeclutteredResponse",
    "XmlItemExporter",
    "result_for",
]
