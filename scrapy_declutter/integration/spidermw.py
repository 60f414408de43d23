"""DeclutterSpiderMiddleware: writes a response's item fields on every item its callback yields.

An item pipeline only sees the item, never the response it came from; this
spider middleware sees both. The values come from the response itself
(``response.declutter_output``, left by the downloader middleware), or are
None where the response was not analysed, so every item keeps its columns;
a field the spider filled is never overwritten. Items that carry raw HTML
in ``DECLUTTER_HTML_FIELD`` are left to DeclutterPipeline. Once the
callback's output is consumed, the response's parsed tree is let go
(``let_tree_go``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from itemadapter import is_item
from scrapy import Request

from .items import field_values, has_value
from .state import CrawlComponent

if TYPE_CHECKING:
    from scrapy.http import Response


class DeclutterSpiderMiddleware(CrawlComponent):
    """Spider middleware: writes each response's field values onto the items it yields."""

    async def process_spider_output(
        self, response: Response | None, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        state = self.state
        fields = self.fields(response)
        try:
            async for obj in result:
                if (
                    not isinstance(obj, Request)
                    and is_item(obj)
                    and not has_value(obj, state.options.html_field)  # the pipeline's job
                    and state.writer.write(obj, fields)
                ):
                    state.stats.inc_value("declutter/items")
                yield obj
        finally:
            let_tree_go(response)

    def fields(self, response: Response | None) -> dict[str, Any]:
        """The item field values of ``response``; all None where it was not analysed."""
        output = getattr(response, "declutter_output", None)
        if output is not None:
            return output.fields
        # Not analysed (non-HTML, skipped, answered by another middleware, or None for
        # items from start()): the request's own field names, quietly (already reported).
        options = self.state.options_for(getattr(response, "request", None), report=False)
        return field_values(None, options or self.state.options)


def let_tree_go(response: Response | None) -> None:
    """Drop the selector a response caches, so its parsed tree is freed with the response.

    ``TextResponse.selector`` keeps its Selector on the response, and the
    Selector keeps the response: a reference cycle (scrapy/scrapy#2977), so
    the page's libxml2 tree, 1-5 MB that the garbage collector does not
    count, waits for a full collection. Once the callback's output is
    consumed nothing of Scrapy's reads the selector again; a spider that
    keeps the response and reads it later gets a fresh selector. Scrapy's
    own attribute: if it goes, this does nothing.
    """
    if getattr(response, "_cached_selector", None) is not None:
        response._cached_selector = None  # type: ignore[union-attr]
