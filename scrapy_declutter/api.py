"""The stateless entry point: one page in, one Result out."""

from __future__ import annotations

import gc
import logging

from .limits import ERROR
from .page import Page, site_key
from .registry import build_extractor
from .formats.text import join_blocks
from .result import Result, SiteDecisions
from .steps.embedded import EmbeddedContent

logger = logging.getLogger(__name__)
#: Run on every page after its extractor: an app shell's content is its embedded text.
_EMBEDDED = EmbeddedContent()


def result_of(page: Page, extractor: str, *, site_learning: SiteDecisions | None = None) -> Result:
    """Package an analysed Page as a Result (with what site learning decided, if it ran),
    an app shell's embedded text made its content first (``steps.embedded``)."""
    _EMBEDDED.process(page)
    return Result(
        text=join_blocks(page.content_blocks),
        blocks=page.blocks,
        title=page.title,
        url=page.url,
        site=page.site,
        language=page.language,
        extractor=extractor,
        reason=page.reason,
        site_learning=site_learning,
        root=page.root,
        page_type=page.page_type,
        page_type_probability=page.page_type_probability,
    )


def extract(
    html: str | bytes,
    url: str | None = None,
    *,
    extractor: str = "default",
    content_type: str | None = None,
) -> Result:
    """Split a page into blocks, label each content or boilerplate, return the clean text.

    Stateless: nothing is learned from the page. ``Declutter`` is the stateful
    variant that learns each site as it goes.

    No exception from a page escapes: a bug or a page we did not foresee is
    logged with the URL and traceback, and the Result has empty text and an
    ``"error: ..."`` reason (see ``limits`` for the other reasons).
    """
    chain = build_extractor(extractor)  # unknown names fail before any parsing
    # The analysis makes no reference cycles (a test checks a page's objects are freed
    # without the collector), so the cycle collector has nothing to find in it. Yet the
    # thousand-odd blocks, records and arrays a page makes set it off one to two times a
    # page, and every hundredth page a full collection: 0.3-0.5 ms of a 9 ms page. It is
    # paused for the page by the call that found it running, which alone resumes it, so
    # it is never left off: a concurrent call finds it paused and leaves it alone.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        page = Page.from_html(html, url, content_type=content_type)
        chain.run(page)
        return result_of(page, extractor)
    except Exception as exc:  # noqa: BLE001 - one bad page must never break a crawl
        logger.error("scrapy_declutter could not extract %s: %r", url or "<no url>", exc, exc_info=True)
        return Result(text="", blocks=[], url=url, site=site_key(url), extractor=extractor,
                      reason=f"{ERROR}: {type(exc).__name__}: {exc}"[:300])
    finally:
        if paused:
            gc.enable()
