"""One analysis, start to end, the same wherever it runs: a ``Job`` in, an ``Answer`` out.

The in-process backend runs a ``Runner`` on the plugin's thread, a worker
process runs one of its own (``backends``, ``worker``): both build the
page, analyse it, save its inspection report and time it the same way, and
neither raises: an analysis that fails gives an Answer with the traceback
and every item field None, which the crawl logs and counts.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..page import parse_html, parse_utf8
from ..sniff import text_is_utf8
from .output import PageOutput

if TYPE_CHECKING:
    from lxml import etree
    from scrapy.http import Response

    from ..report.files import ReportSampler
    from ..result import Result
    from .analyser import Analyser
    from .settings import DeclutterOptions

#: A log line made where the crawl's loggers are not (a worker process): the logger's
#: name (None: the spider's own log), its level, the message.
LogLine = tuple["str | None", int, str]
#: The characters of a page's text in which Scrapy's ``get_base_url`` looks for ``<base>``.
BASE_CHARS = 4096


@dataclass(frozen=True)
class Job:
    """One page to analyse, as plain values (what crosses to a worker process).

    ``from_item``: ``body`` is raw HTML an item carried (``DECLUTTER_HTML_FIELD``),
    not a response's body.
    """

    url: str | None
    body: bytes | str
    content_type: str | None
    options: DeclutterOptions
    from_item: bool = False

    @classmethod
    def of(cls, response: Response, options: DeclutterOptions) -> Job:
        content_type = response.headers.get(b"Content-Type")
        return cls(response.url, response.body,
                   content_type.decode("latin-1") if content_type else None, options)


@dataclass
class Answer:
    """What one analysis gives the crawl: the page's output and what to record of it.

    ``error`` is the traceback of an analysis that raised (``error_type`` its
    exception's name), "" when none did.
    """

    output: PageOutput
    seconds: float = 0.0
    logs: list[LogLine] = field(default_factory=list)
    reports_saved: int = 0
    report_errors: int = 0
    error: str = ""
    error_type: str = ""


class Runner:
    """Analyses jobs one at a time with one ``Analyser``; ``pack``: Results as bytes (a worker's)."""

    def __init__(self, analyser: Analyser, inspector: ReportSampler | None = None, *,
                 pack: bool = False) -> None:
        self.analyser = analyser
        self.inspector = inspector
        self.pack = pack
        self.signer: Any = None

    def run(self, job: Job, response: Response | None = None) -> Answer:
        """Analyse ``job``; ``response``, in the crawl process, lends it the spider's own tree."""
        begin = time.thread_time()
        try:
            result = self._result(job, response)
            answer = Answer(PageOutput.of(result, job.options, pack=self.pack))
            if job.options.duplicate_field:
                answer.output.signature = self._signer().signature(result.text)
            self._report(result, answer)
        except Exception as e:  # noqa: BLE001 - one bad page never stops a crawl
            answer = Answer(PageOutput.unanalysed(job.options), error=traceback.format_exc(),
                            error_type=type(e).__name__)
        answer.seconds = time.thread_time() - begin
        return answer

    def _signer(self) -> Any:
        """The near-duplicate signer, made once (datasketch: imported only when asked for)."""
        if self.signer is None:
            from ..nearduplicates.signature import Signer

            self.signer = Signer()
        return self.signer

    def _result(self, job: Job, response: Response | None) -> Result:
        analyser, options = self.analyser, job.options
        if job.from_item:
            return analyser.analyse_html(job.body, job.url, options)
        body = job.body
        assert isinstance(body, bytes)
        utf8 = text_is_utf8(body, job.content_type)
        if response is not None:  # Scrapy caches this tree for the spider's own selectors
            tree: Callable[[], etree._Element] = lambda: response.selector.root  # type: ignore[attr-defined]
            source: Any = response
        else:
            source = _html_response(job)
            tree = lambda: _parsed(source, utf8)  # noqa: E731
        page = analyser.page_of_response(body, job.content_type, tree, lambda: source.text,
                                         job.url, options, utf8=utf8)
        return analyser.analyse(page, options)

    def _report(self, result: Result, answer: Answer) -> None:
        """Save the page's inspection report if sampled; a disk error only warns."""
        if self.inspector is None:
            return
        try:
            if self.inspector.save(result) is not None:
                answer.reports_saved += 1
        except OSError as e:
            answer.report_errors += 1
            answer.logs.append((None, 30, f"scrapy_declutter could not save the report of "
                                          f"{result.url}: {e}"))


def _html_response(job: Job) -> Any:
    """The response Scrapy would have made of the job's body: its text decodes the same."""
    from scrapy.http import HtmlResponse

    headers = {"Content-Type": job.content_type} if job.content_type else None
    return HtmlResponse(job.url or "about:blank", body=job.body, headers=headers)


def _parsed(response: Any, utf8: bool) -> etree._Element:
    """The tree ``response.selector.root`` gives, without the cycle it makes.

    ``page.parse_html`` builds parsel's tree from the same text, node for
    node, with Scrapy's base URL, and is freed by reference counting as soon
    as the analysis lets it go (Scrapy's selector and its response form a
    cycle that only the garbage collector frees). With ``utf8`` the body
    goes to the parser as it came, and the base URL is found as Scrapy's
    ``get_base_url`` finds it, in the text's first ``BASE_CHARS`` characters.
    """
    if not utf8:
        from scrapy.utils.response import get_base_url

        return parse_html(response.text, base_url=get_base_url(response))
    from w3lib.html import get_base_url as base_url_in

    head = response.body[:4 * BASE_CHARS].decode("utf-8", "ignore")[:BASE_CHARS]
    return parse_utf8(response.body, base_url=base_url_in(head, response.url, "utf-8"))
