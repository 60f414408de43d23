"""How a response's Result reaches its callback and the items it yields, and no other page.

The downloader middleware leaves a ``PageOutput`` for each response it sees,
keyed by the request object; the spider middleware reads it while the
callback's output is consumed and deletes it afterwards (also when the
callback or errback raises). Callbacks read the Result with
``result_for(response)``.

Why not a key in ``request.meta``, public or private: meta is what spiders
copy (``response.follow(url, meta=dict(response.meta))`` is common), so a copy
would carry this page's Result to the next request. If that response is not
analysed (JSON, a 404, a PDF) its items would get this page's text; even
when it is, the copy keeps the Result alive while the request waits in the
scheduler, and a disk queue (``JOBDIR``) or scrapy-redis would serialise it.
A weak map keyed by the request carries nothing along with a copy, and an
entry goes away with its request even when no callback ever consumes it
(``NO_CALLBACK`` downloads, a request dropped by another middleware).
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass, field, replace
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .items import field_values
from .shipping import ShippedResult

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Response

    from ..result import Result, SiteDecisions
    from .settings import DeclutterOptions

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PageSummary:
    """What the crawl's stats record of one analysed page (``CrawlState.record``).

    A few numbers, read without rebuilding the Result of a page analysed in
    a worker process (``DECLUTTER_PROCESSES``), which only a callback that
    asks for it pays for (``PageOutput``).
    """

    site: str
    #: Why the core passed the page through ("too_large: ...", "error: ..."), else "".
    reason: str
    blocks: int
    content_blocks: int
    site_learning: SiteDecisions | None

    @classmethod
    def of(cls, result: Result) -> PageSummary:
        return cls(result.site or "", result.reason or "", len(result.blocks),
                   sum(1 for b in result.blocks if b.is_content), result.site_learning)


@dataclass(frozen=True)
class PageOutput:
    """What the analysis of one response gives its callback and its items.

    ``summary`` is None when the response was not analysed (non-HTML, an
    error status, skipped by meta, or the analysis failed); ``fields`` then
    maps every configured item field to None, so the items keep their
    columns, and there is no Result. ``fields`` is computed where the Result
    is, for the options that request was analysed with.

    A page analysed in a worker process (``DECLUTTER_PROCESSES``) has no
    ``result``: either ``shipped``, its Result as plain tuples (``shipping``),
    rebuilt by ``result_for`` only if the callback asks, or, before any
    callback of the crawl asked, ``kept``: what fetches it from the worker that
    kept it (``Workers.fetch`` for its worker and ticket). So a crawl whose callbacks never ask pays
    nothing for Results, and a callback gets the same Result as in-process.
    """

    result: Result | None
    fields: dict[str, Any]
    summary: PageSummary | None = None
    shipped: ShippedResult | None = None
    kept: Callable[[], ShippedResult | None] | None = None

    @classmethod
    def of(cls, result: Result, options: DeclutterOptions) -> PageOutput:
        """The output of a page analysed in this process."""
        return cls(result, field_values(result, options), PageSummary.of(result))

    @classmethod
    def of_worker(cls, result: Result, options: DeclutterOptions, *, ship: bool) -> PageOutput:
        """The output a worker sends back: with its Result as tuples if ``ship``, else none."""
        return cls(None, field_values(result, options), PageSummary.of(result),
                   ShippedResult.of(result) if ship else None)

    @classmethod
    def unanalysed(cls, options: DeclutterOptions) -> PageOutput:
        """The output of a response that was not analysed: every configured field None."""
        return cls(None, field_values(None, options))

    @property
    def analysed(self) -> bool:
        return self.summary is not None

    def unshipped(self, response: Any) -> PageOutput:
        """This output with its worker's Result rebuilt, on the tree of ``response``.

        A Result the worker kept is fetched first: this blocks the reactor
        until the worker has answered the pages queued before (once or a few
        times a crawl, since the first fetch has every later Result sent).
        """
        shipped = self.shipped if self.kept is None else self.kept()
        if shipped is None:
            logger.warning("scrapy_declutter no longer has the Result of %s in its worker "
                           "process; result_for gives None", response.url)
            return replace(self, kept=None)
        return replace(self, result=shipped.result(response.selector.root), shipped=None,
                       kept=None)


@dataclass(eq=False)
class Ticket:
    """One analysed response: its options, its output once released, its items waiting for it."""

    options: DeclutterOptions
    url: str
    output: PageOutput | None = None
    items: list[Any] = field(default_factory=list)


_OUTPUTS: weakref.WeakKeyDictionary[Request, PageOutput | Ticket] = weakref.WeakKeyDictionary()


def put(request: Request, output: PageOutput | Ticket) -> None:
    """Leave a response's output, or the Ticket of a page in its site's warm-up (``holding``)."""
    _OUTPUTS[request] = output


def get(response: Any) -> PageOutput | None:
    """The output left for this response's request, if any (None for a Failure or no request).

    None too while the page waits in its site's warm-up: see ``pending``.
    """
    output = _entry(response)
    return output.output if isinstance(output, Ticket) else output


def pending(response: Any) -> Ticket | None:
    """The Ticket of this response's page while it waits in its site's warm-up, else None."""
    output = _entry(response)
    return output if isinstance(output, Ticket) and output.output is None else None


def _entry(response: Any) -> PageOutput | Ticket | None:
    """What ``put`` left for this response's request (None for a Failure or no request)."""
    request = getattr(response, "request", None)
    return _OUTPUTS.get(request) if request is not None else None


def discard(response: Any) -> None:
    """Forget the output of this response's request: its callback's output is consumed."""
    request = getattr(response, "request", None)
    if request is not None:
        _OUTPUTS.pop(request, None)


def result_for(response: Response) -> Result | None:
    """The Result of ``response``, for its callback; None when it was not analysed.

    Available while the callback (or errback) of that response runs, like
    ``response.meta``; it is gone once the callback's output is consumed.
    None also while the page is held in its site's warm-up
    (``DECLUTTER_WARMUP_PAGES``): its items get their fields when it ends.
    A Result made in a worker process is read back on the first call, and
    every later call gives that same object.
    """
    entry = _entry(response)
    output = entry.output if isinstance(entry, Ticket) else entry
    if output is None:
        return None
    if output.shipped is not None or output.kept is not None:
        output = output.unshipped(response)
        if isinstance(entry, Ticket):
            entry.output = output
        else:
            put(response.request, output)
    return output.result
