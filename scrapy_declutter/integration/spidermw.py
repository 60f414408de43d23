"""DeclutterSpiderMiddleware: the bridge from a response's Result to the items it produced.

An item pipeline only sees the item (``process_item(item)``), never the
response it came from, so the clean text cannot be attached there. This spider
middleware sees both: for every item a callback yields it writes the
configured fields from that response's ``handoff.PageOutput`` (the Result's
values, or None where the response was not analysed), never overwriting the
spider's own. Once the callback's output is consumed, or the callback
raised, the output is forgotten. While the response's page waits in its
site's warm-up, its items are held in its Ticket instead, and sent on when
the warm-up ends (``holding``); its requests go on at once. Items that carry raw HTML in
``DECLUTTER_HTML_FIELD`` are left to DeclutterPipeline, which analyses that
HTML instead. Once the output is consumed, the response's parsed tree is let
go with the response (``let_tree_go``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from itemadapter import is_item
from scrapy import Request

from . import handoff
from .handoff import PageOutput
from .items import has_value
from .state import CrawlComponent

if TYPE_CHECKING:
    from scrapy.http import Response


class DeclutterSpiderMiddleware(CrawlComponent):
    """Spider middleware: writes each response's field values onto the items it yields."""

    async def process_spider_output(
        self, response: Response | None, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        state = self.state
        # None (items from start()) or a response the downloader middleware never saw
        # (another middleware answered it): the fields are there, empty.
        unanalysed = PageOutput.unanalysed(state.options)
        try:
            async for obj in result:
                if (
                    isinstance(obj, Request)
                    or not is_item(obj)
                    or has_value(obj, state.options.html_field)  # the pipeline's job
                ):
                    yield obj
                    continue
                ticket = handoff.pending(response)  # looked up per item: it may settle meanwhile
                if ticket is not None:
                    ticket.items.append(obj)  # sent on when its site's warm-up ends
                    state.stats.inc_value("declutter/warmup/held_items")
                    continue
                output = handoff.get(response) or unanalysed
                if state.writer.write(obj, output.fields):
                    state.stats.inc_value("declutter/items")
                yield obj
        finally:
            handoff.discard(response)
            let_tree_go(response)

    def process_spider_exception(self, response: Response, exception: Exception) -> None:
        """The callback raised: its response's output is no longer needed."""
        handoff.discard(response)


def let_tree_go(response: Response | None) -> None:
    """Drop the selector a response caches, so its parsed tree is freed with the response.

    ``TextResponse.selector`` keeps its Selector on the response, and the
    Selector keeps the response: a reference cycle (scrapy/scrapy#2977), so
    the page's libxml2 tree, 1-5 MB that the garbage collector does not
    count, waits for a full collection. In a 2,000-site crawl every full
    collection found some 50-80 such responses and nothing else of size,
    and freed 100-300 MB of trees at once (the C allocator's bytes in use
    fell from 450 MB to 150 MB): the crawl's peak was set by those trees,
    not by what the plugin keeps. Once the callback's output is consumed
    nothing of Scrapy's reads the selector again; a spider that keeps the
    response and reads it later gets a fresh selector (Scrapy parses again).
    Scrapy's own attribute: if it goes, this does nothing.
    """
    if getattr(response, "_cached_selector", None) is not None:
        response._cached_selector = None  # type: ignore[union-attr]
