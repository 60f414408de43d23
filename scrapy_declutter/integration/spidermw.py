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
HTML instead.
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

    def process_spider_exception(self, response: Response, exception: Exception) -> None:
        """The callback raised: its response's output is no longer needed."""
        handoff.discard(response)
