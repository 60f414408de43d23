"""DeclutterSpiderMiddleware: the bridge from a response's Result to the items it produced.

An item pipeline only sees the item (``process_item(item)``), never the
response it came from, so the clean text cannot be attached there. This spider
middleware sees both: for every item a callback yields from an analysed
response it writes the configured fields (never overwriting the spider's
own). Items that carry raw HTML in ``DECLUTTER_HTML_FIELD`` are left to
DeclutterPipeline, which analyses that HTML instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from itemadapter import is_item
from scrapy import Request

from .items import field_values, has_value
from .middleware import request_options
from .settings import FIELDS_META_KEY, RESULT_META_KEY
from .state import CrawlComponent

if TYPE_CHECKING:
    from scrapy.http import Response


class DeclutterSpiderMiddleware(CrawlComponent):
    """Spider middleware: copies ``response.meta["declutter_result"]`` onto yielded items."""

    async def process_spider_output(
        self, response: Response | None, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        try:
            found = response.meta.get(RESULT_META_KEY) if response is not None else None
        except AttributeError:  # a response built without a request has no meta
            found = None
        if found is None:
            async for obj in result:
                yield obj
            return
        options = request_options(self.state, response.request) or self.state.options
        values = response.meta.get(FIELDS_META_KEY) or field_values(found, options)
        async for obj in result:
            if (
                not isinstance(obj, Request)
                and is_item(obj)
                and not has_value(obj, options.html_field)  # the pipeline's job
                and self.state.writer.write(obj, values)
            ):
                self.state.stats.inc_value("declutter/items")
            yield obj
