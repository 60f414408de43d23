"""Items of pages still in their site's warm-up, held back and sent on with their page's result.

With ``DECLUTTER_WARMUP_PAGES`` (``sitelearning.warmup``) a page's Result is
known only once its site's warm-up ends, which may be after the callback ran.
The callback's requests go on at once; its items wait in the page's
``Ticket``. When the warm-up ends, in the analysis of a later page of the
site, at ``spider_idle`` or when the spider closes, each held page's Ticket
gets its own output, its items get their fields and go to the item
pipelines through ``Scraper.start_itemproc_async``, Scrapy's public way (2.14+)
to send an item that did not come out of a callback. Items a callback yields
after its page was released are written and yielded as usual.

A Ticket that never got a result (its analysis failed midway through a
release) is settled at idle or close with every field None: an item is never
lost, and never gets another page's text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.utils.defer import deferred_from_coro

from .handoff import PageOutput, Ticket

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from .items import FieldWriter


class HeldItems:
    """The Tickets of one crawl not yet settled, and the sending on of their items."""

    def __init__(self, crawler: Crawler, writer: FieldWriter) -> None:
        self.crawler = crawler
        self.writer = writer
        self.pending: set[Ticket] = set()

    def open(self, ticket: Ticket) -> None:
        self.pending.add(ticket)

    def settle(self, ticket: Ticket, output: PageOutput) -> list[Any]:
        """Give the ticket its output; return its held items, with their fields written."""
        self.pending.discard(ticket)
        ticket.output = output
        items, ticket.items = ticket.items, []
        for item in items:
            if self.writer.write(item, output.fields):
                self.crawler.stats.inc_value("declutter/items")
        return items

    def unsettled(self) -> list[Ticket]:
        return list(self.pending)

    def send(self, items: list[Any]) -> None:
        """Send items to the item pipelines without waiting (the spider is running)."""
        for item in items:
            deferred_from_coro(self.send_now(item))

    async def send_now(self, item: Any) -> None:
        """Send one item to the item pipelines and wait for them (the spider is closing)."""
        self.crawler.stats.inc_value("declutter/warmup/items_sent")
        await self.crawler.engine.scraper.start_itemproc_async(item, response=None)
