"""DeclutterMiddleware: the downloader middleware that analyses each HTML response once.

It runs in ``process_response`` below RetryMiddleware (550) and
HttpCompressionMiddleware (590), so it sees only final, decompressed
responses. The analysis reuses ``response.selector`` (the tree Scrapy parses
for the spider anyway), runs on a worker thread so the reactor keeps serving
other downloads, feeds site learning, and leaves a ``handoff.PageOutput``
(the Result and the item field values) for the spider callback, which reads
it with ``result_for(response)``; the spider middleware copies the fields
onto the items the callback yields. A response it leaves alone gets a
PageOutput too, with every field None, so that its items keep the columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.http import HtmlResponse
from scrapy.http.request import NO_CALLBACK

from ..sniff import text_is_utf8
from . import handoff
from .handoff import PageOutput, Ticket
from .settings import META_KEY, RESPONSE_FLAG, DeclutterOptions, SettingsError
from .state import CrawlComponent, CrawlState

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from ..result import Result
    from ..sitelearning.warmup import Released


def request_options(state: CrawlState, request: Request) -> DeclutterOptions | None:
    """The options for one request, or None when ``meta["declutter"]`` turns it off.

    A malformed override is an error of the spider: it is logged, counted in
    ``declutter/errors/bad_meta`` and the request is left alone.
    """
    meta: Any = request.meta.get(META_KEY, True)
    if meta is True or meta is None:
        return state.options
    if meta is False:
        return None
    if not isinstance(meta, dict):
        state.stats.inc_value("declutter/errors/bad_meta")
        state.log.error(
            "meta[%r] must be True, False or a dict, not %r (%s)",
            META_KEY,
            request.meta.get(META_KEY),
            request.url,
        )
        return None
    try:
        return state.options.override(meta)
    except (SettingsError, ValueError) as e:
        state.stats.inc_value("declutter/errors/bad_meta")
        state.log.error("%s (%s)", e, request.url)
        return None


class DeclutterMiddleware(CrawlComponent):
    """Downloader middleware: each HTML page's Result, for its callback and items.

    Passes through untouched: non-HTML responses, non-2xx responses, empty
    bodies, requests with ``callback=NO_CALLBACK`` (robots.txt, media
    downloads) and requests whose ``meta["declutter"]`` is False. Each reason
    is counted under ``declutter/skipped/<reason>``. A body over
    ``DECLUTTER_MAX_SIZE`` is the core's to refuse, unparsed, like any page
    over its caps (``declutter/rejected/too_large``).
    """

    def skip_reason(self, request: Request, response: Response, options: DeclutterOptions) -> str:
        """Why this response is left alone, or "" when it should be analysed."""
        if request.callback is NO_CALLBACK:
            return "no_callback"
        if not isinstance(response, HtmlResponse):
            return "non_html"
        if not 200 <= response.status < 300:
            return "status"
        body = response.body
        if not body or body.isspace():  # ``not body.strip()``, without copying the body
            return "empty"
        return ""

    async def process_response(self, request: Request, response: Response) -> Response:
        state = self.state
        options = request_options(state, request)
        reason = "meta" if options is None else self.skip_reason(request, response, options)
        if reason:
            state.skip(reason)
            output = PageOutput.unanalysed(options or state.options)
        else:
            # A page in its site's warm-up gets its output later (``holding``).
            ticket = Ticket(options, response.url)
            await state.send(ticket, response.body, _content_type(response), self._analyse,
                             response)
            if ticket.output is None or ticket.output.analysed:
                response.flags.append(RESPONSE_FLAG)
            handoff.put(request, ticket)
            return response
        if request.callback is not NO_CALLBACK:  # else no callback would ever read it
            handoff.put(request, output)
        return response

    def _analyse(self, response: HtmlResponse, options: DeclutterOptions,
                 ticket: Ticket) -> list[Released]:
        # Parsing happens here, on the worker thread, and Scrapy caches the
        # tree on the response, so the spider's own selectors reuse it.
        analyser = self.state.analyser
        content_type = _content_type(response)
        page = analyser.page_of_response(
            response.body,
            content_type,
            lambda: response.selector.root,
            lambda: response.text,
            response.url,
            options,
            utf8=text_is_utf8(response.body, content_type),
        )
        return analyser.submit(page, options, ticket)


def _content_type(response: Response) -> str | None:
    content_type = response.headers.get(b"Content-Type")
    return content_type.decode("latin-1") if content_type else None
