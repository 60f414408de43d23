"""DeclutterMiddleware: the downloader middleware that analyses each HTML response once.

It runs in ``process_response`` below RetryMiddleware (550) and
HttpCompressionMiddleware (590), so it sees only final, decompressed
responses. It awaits the analysis (on the plugin's thread or a worker
process: ``backends``) and returns the response with its Result attached
(``response.DeclutteredResponse``): the callback reads ``response.declutter``
or ``result_for(response)``, and the spider middleware writes the item
fields from the same response. While a response awaits its analysis it
counts against ``CONCURRENT_REQUESTS``, like any response still in the
downloader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.http import HtmlResponse
from scrapy.http.request import NO_CALLBACK

from .response import decluttered
from .runner import Job
from .settings import RESPONSE_FLAG
from .state import CrawlComponent

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Response

    from .output import PageOutput
    from .settings import DeclutterOptions


def skip_reason(request: Request, response: Response) -> str:
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


def shell_to_render(request: Request, output: PageOutput, options: DeclutterOptions) -> bool:
    """Whether to fetch this app shell again through scrapy-playwright (once: not rendered yet).

    Only a shell whose content is in no data it embeds: one that embeds it
    already gave its text.
    """
    summary = output.summary
    return (options.render_shells and summary is not None and summary.needs_rendering
            and not request.meta.get("playwright"))


class DeclutterMiddleware(CrawlComponent):
    """Downloader middleware: each HTML page's Result, on the response its callback gets.

    Passes through untouched: non-HTML responses, non-2xx responses, empty
    bodies, requests with ``callback=NO_CALLBACK`` (robots.txt, media
    downloads) and requests whose ``meta["declutter"]`` is False. Each reason
    is counted under ``declutter/skipped/<reason>``. A body over
    ``DECLUTTER_MAX_SIZE`` is the core's to refuse, unparsed, like any page
    over its caps (``declutter/rejected/too_large``).
    """

    async def process_response(self, request: Request, response: Response) -> Response:
        state = self.state
        options = state.options_for(request)
        reason = "meta" if options is None else skip_reason(request, response)
        if reason:
            state.skip(reason)
            return response
        assert options is not None
        analysed = decluttered(response)
        answer = await state.backend.analyse(Job.of(analysed, options), analysed)
        await state.analysed(answer, response.url, response.body)
        if shell_to_render(request, answer.output, options):
            state.stats.inc_value("declutter/app_shells/rendered")
            # Instead of this response: its callback never sees the shell, so no item twice.
            return request.replace(meta={**request.meta, "playwright": True}, dont_filter=True)
        analysed.declutter_output = answer.output  # type: ignore[attr-defined]
        if answer.output.analysed:
            analysed.flags.append(RESPONSE_FLAG)
        return analysed
