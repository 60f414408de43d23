"""The stateless entry point: one page in, one Result out."""

from __future__ import annotations

from .extractors import build_extractor
from .page import Page
from .result import Result, join_blocks


def result_of(page: Page, extractor: str) -> Result:
    """Package an analysed Page as a Result."""
    return Result(
        text=join_blocks(page.content_blocks),
        blocks=page.blocks,
        title=page.title,
        url=page.url,
        site=page.site,
        language=page.language,
        extractor=extractor,
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
    """
    chain = build_extractor(extractor)  # unknown names fail before any parsing
    page = Page.from_html(html, url, content_type=content_type)
    chain.run(page)
    return result_of(page, extractor)
