"""The Scrapy components: add-on, downloader middleware, spider middleware, item pipeline.

Also the feed exporters that write nested values as JSON text, and
``result_for(response)``, which gives a callback its page's Result.

* ``addon`` — ``Addon``: enables the components and registers the exporters;
* ``settings`` — ``DeclutterOptions``, the one table of ``DECLUTTER_*``
  settings, with ``converters`` reading their values;
* ``state`` — what the components of one crawler share, the start-up check
  and the summary line; ``analyser`` runs the core on a response or an item;
  ``offload`` runs it on the plugin's own thread; ``workers`` in worker
  processes (``DECLUTTER_PROCESSES``), each running ``worker``;
* ``middleware`` (downloader), ``spidermw`` (spider), ``pipeline`` (items
  carrying raw HTML);
* ``handoff`` — how a response's Result reaches its callback and items, and
  no other page; ``items`` — writing fields onto any item type;
* ``exporters`` — CSV and XML exporters with nested values as JSON text.

The only part that imports Scrapy at run time; it builds on the whole core
(site learning, reports, the registry) and nothing but the command line
sits beside it.

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
