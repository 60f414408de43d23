"""What the analysis of one response gives its callback, its items and the crawl's stats.

A ``PageOutput`` travels on the response the callback receives
(``response.declutter_output``, see ``response``): nothing keyed by request
is kept anywhere, so a copied ``meta`` carries nothing to another page and an
output goes away with its response.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ResultNotKeptError
from .items import field_values
from .shipping import ShippedResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from lxml import etree

    from ..result import Result, SiteDecisions
    from .settings import DeclutterOptions


@dataclass(frozen=True)
class PageSummary:
    """What the crawl's stats record of one analysed page, without the Result itself."""

    site: str
    #: Why the core passed the page through ("too_large: ...", "error: ..."), else "".
    reason: str
    blocks: int
    content_blocks: int
    site_learning: SiteDecisions | None
    #: An app shell whose content is in no data it embeds: only a browser shows it.
    needs_rendering: bool = False

    @classmethod
    def of(cls, result: Result) -> PageSummary:
        return cls(result.site or "", result.reason or "", len(result.blocks),
                   sum(1 for b in result.blocks if b.is_content), result.site_learning,
                   result.needs_rendering)


@dataclass
class PageOutput:
    """The item field values of one response, its stats summary and its Result.

    ``summary`` is None when the response was not analysed (the analysis
    failed); ``fields`` then maps every configured item field to None, so
    the items keep their columns. The Result is kept only when the request's
    options ask for it (``DECLUTTER_CALLBACK_RESULTS``): building and sending
    it costs a worker about a sixth of its time a page, which a crawl whose
    callbacks only yield items should not pay. A page analysed in a worker
    process has ``packed`` instead of ``result``: its Result as bytes,
    rebuilt on the crawl process's own tree when a callback reads it
    (``result_on``).
    """

    fields: dict[str, Any]
    summary: PageSummary | None = None
    result: Result | None = None
    packed: bytes | None = None
    #: The clean text's MinHash values, made with the Result when the crawl looks for
    #: near-duplicates (``DECLUTTER_DUPLICATE_FIELD``); None for a text without words.
    signature: Any = None

    @classmethod
    def of(cls, result: Result, options: DeclutterOptions, *, pack: bool = False) -> PageOutput:
        """The output of an analysed page; with ``pack``, its Result as bytes (a worker's)."""
        fields, summary = field_values(result, options), PageSummary.of(result)
        if not options.callback_results:
            return cls(fields, summary)
        if not pack:
            return cls(fields, summary, result)
        # Encoded by the worker, on its own core: the pipe then carries one bytes object,
        # and the crawl process decodes only the Results a callback asks for.
        return cls(fields, summary, packed=ShippedResult.of(result).pack())

    @classmethod
    def unanalysed(cls, options: DeclutterOptions) -> PageOutput:
        """The output of a response that was not analysed: every configured field None."""
        return cls(field_values(None, options))

    @property
    def analysed(self) -> bool:
        return self.summary is not None

    def result_on(self, root: Callable[[], etree._Element], url: str) -> Result | None:
        """The Result, rebuilt from ``packed`` on ``root`` (a callable giving the page's tree);
        None when the analysis failed. ``ResultNotKeptError`` when it was not asked for: a
        ``None`` would read as "not analysed" while the item fields were written."""
        if self.result is None and self.packed is not None:
            self.result = ShippedResult.unpack(self.packed).result(root())
            self.packed = None
        if self.result is None and self.analysed:
            raise ResultNotKeptError(
                f"scrapy_declutter analysed {url} and wrote its item fields, but kept no Result "
                "for its callback: set DECLUTTER_CALLBACK_RESULTS = True (or "
                "meta={'declutter': {'callback_results': True}} on the requests whose "
                "callbacks read response.declutter)")
        return self.result

