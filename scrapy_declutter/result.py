"""Result: what an extraction hands back, in the shapes items and JSON need.

A Result is data; ``report.render_report(result)`` renders it as HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .blocks import Block


def join_blocks(blocks: list[Block]) -> str:
    """Clean text: one block per paragraph, paragraphs (and headings) separated by a blank line."""
    return "\n\n".join(b.text for b in blocks)


@dataclass(frozen=True)
class SiteDecisions:
    """What the site step did to one page (``Declutter`` with site learning)."""

    #: Pages the site's model had learned from before this one.
    pages: int
    #: Blocks relabelled boilerplate because they are the site's template.
    template: int
    #: Blocks the site's n-gram classifier relabelled.
    voted: int
    #: Whether the user's content selector or markers labelled the page.
    supervised: bool


@dataclass
class Result:
    """The clean text of a page with every block's label.

    ``reason`` is empty for a normal extraction; when the page could not be
    analysed (empty body, over a size cap, ...) it says why, and ``text`` and
    ``blocks`` are empty. A page only partly analysed (``too_deep``, re-read
    flat) keeps its best-effort text and blocks with the reason; the reasons
    and caps are in ``limits``.
    """

    text: str
    blocks: list[Block]
    title: str = ""
    url: str | None = None
    site: str = ""
    language: str = ""
    extractor: str = ""
    reason: str = ""
    #: What site learning decided on the page; None without it (``extract()``,
    #: ``site_learning=False``, a site not loaded, a page without blocks).
    site_learning: SiteDecisions | None = None

    @property
    def content_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.is_content]

    def labels(self) -> list[dict[str, Any]]:
        """The block labels as plain dicts: the form that lands on items."""
        return [b.as_dict() for b in self.blocks]

    def as_dict(self) -> dict[str, Any]:
        """The whole result in plain JSON types."""
        return {
            "url": self.url,
            "site": self.site,
            "title": self.title,
            "language": self.language,
            "extractor": self.extractor,
            "reason": self.reason,
            "text": self.text,
            "blocks": self.labels(),
        }
