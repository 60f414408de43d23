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

from .items import has_value
from .output import PageOutput
from .runner import Job
from .state import CrawlComponent


class DeclutterPipeline(CrawlComponent):
    """Item pipeline: analyses the raw HTML an item carries in ``DECLUTTER_HTML_FIELD``."""

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
            answer = await state.backend.analyse(Job(url, html, None, options, from_item=True))
            await state.analysed(answer, url, html)
            output = answer.output
            if output.analysed:
                state.stats.inc_value("declutter/html_items")
        if state.writer.write(item, output.fields):
            state.stats.inc_value("declutter/items")
        return item
