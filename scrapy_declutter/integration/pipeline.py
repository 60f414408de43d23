"""DeclutterPipeline: the item pipeline for items that carry their own HTML.

Items scraped from a response get their fields from the spider middleware,
which can see the response. This pipeline handles what only the item knows: an
item whose ``DECLUTTER_HTML_FIELD`` holds raw HTML (an API payload, a page
rendered elsewhere, an item built in ``start()``) is analysed from that HTML,
with the URL from ``DECLUTTER_URL_FIELD`` as its site key, and gets the same
fields. It never drops an item: when the analysis fails or is skipped the
item goes on with those fields None.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter

from .handoff import PageOutput
from .items import has_value
from .state import CrawlComponent


class DeclutterPipeline(CrawlComponent):
    """Item pipeline: analyses the raw HTML an item carries in ``DECLUTTER_HTML_FIELD``."""

    async def close_spider(self) -> None:
        """The spider closes before it went idle (``CloseSpider``, a ``CLOSESPIDER_*`` limit).

        Items still waiting for their site's warm-up go to the item pipelines
        now, before the feeds close (at ``spider_closed``). Pipelines close in
        parallel, so one that closes before this returns may miss them; the
        feeds get them all. At a normal finish they went at ``spider_idle``.
        """
        for item in self.state.release_all():
            await self.state.held.send_now(item)

    async def process_item(self, item: Any) -> Any:
        state = self.state
        options = state.options
        if not has_value(item, options.html_field):
            return item
        adapter = ItemAdapter(item)
        html = adapter.get(options.html_field)
        url = adapter.get(options.url_field) if options.url_field else None
        if not isinstance(html, (str, bytes)):
            state.skip("html_field_type")
            output = PageOutput.unanalysed(options)
        else:  # one over DECLUTTER_MAX_SIZE is the core's to refuse (declutter/rejected/too_large)
            url = url if isinstance(url, str) else None
            output = await state.analyse(url, options, state.analyser.analyse_html, html, url)
            if output.result is not None:
                state.stats.inc_value("declutter/html_items")
        if state.writer.write(item, output.fields):
            state.stats.inc_value("declutter/items")
        return item
