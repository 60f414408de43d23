"""Result: what an extraction hands back, in the shapes items and JSON need.

A Result is data; ``report.render_report(result)`` renders it as HTML.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .appshell import EMBEDDED_STEP
from .blocks import Block
from .formats.chunks import CHUNK_WORDS, split_chunks
from .limits import APP_SHELL

if TYPE_CHECKING:
    from lxml import etree

    from .metadata import Metadata


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
    #: Ambiguous blocks the site's content container relabelled.
    settled: int = 0


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
    #: The parsed page, kept so that ``metadata`` is read only when asked for.
    root: "etree._Element | None" = field(default=None, repr=False, compare=False)
    #: The kind of page (article, collection, documentation, forum, listing, product,
    #: service) when the extractor classifies pages (the default does); "" otherwise.
    page_type: str = ""
    #: The page-type classifier's probability of ``page_type`` (0.0 without one).
    page_type_probability: float = 0.0

    @property
    def content_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.is_content]

    @property
    def needs_rendering(self) -> bool:
        """Whether the page is an app shell (``reason == "app_shell"``) whose content only
        a browser running its scripts would show: it embeds no text as data either (when
        it does, that text is the content, from blocks of step ``embedded``)."""
        return self.reason == APP_SHELL and not any(
            b.step == EMBEDDED_STEP and b.is_content for b in self.blocks)

    def labels(self) -> list[dict[str, Any]]:
        """The block labels as plain dicts: the form that lands on items."""
        return [b.as_dict() for b in self.blocks]

    @property
    def markdown(self) -> str:
        """The content as Markdown, without links or images (``to_markdown`` for those)."""
        return self.to_markdown()

    def to_markdown(self, *, links: bool = False, images: bool = False) -> str:
        """The content as Markdown (see ``formats.markdown``) under the page's ``headline``,
        links and images if asked."""
        from .formats.markdown import render_markdown

        return render_markdown(self.blocks, title=self.headline, base_url=self.url,
                               links=links, images=images)

    @cached_property
    def headline(self) -> str:
        """The page's headline, which the Markdown starts with: the ``<h1>`` that titles the
        content (``steps.title.find_headline``), else ``og:title``, else ``<title>`` without
        the site's name; "" when the page has none."""
        from .metadata import page_title
        from .steps.title import find_headline, walked_og_title

        og_title = walked_og_title(self.root) if self.root is not None else ""
        at = find_headline(self.blocks, (self.title, og_title))
        if at is not None:
            return self.blocks[at].text
        return og_title or page_title(self.title, None, ()) or ""

    def chunks(self, words: int = CHUNK_WORDS) -> list[dict[str, Any]]:
        """The clean text cut at its headings and at about ``words`` words, never inside a
        paragraph, list item, table row or code block (see ``formats.chunks``): dicts of
        ``headings`` (the path above the chunk), ``text`` and ``words``, in reading order.
        Their texts joined with a blank line are ``text``."""
        return [chunk.as_dict() for chunk in split_chunks(self.content_blocks, words)]

    @cached_property
    def confidence(self) -> float:
        """How far to trust ``text``, in [0, 1]: its expected word F1 (``metadata.confidence``)."""
        from .metadata.confidence import extraction_confidence

        return extraction_confidence(self.blocks, self.page_type, self.page_type_probability)

    @cached_property
    def metadata(self) -> "Metadata":
        """Title, authors, dates, language ... and the extraction's confidence, read from
        the page's markup on first use (extruct is imported then, not before)."""
        from .metadata import Metadata, read_metadata

        if self.root is None:
            return Metadata(title=self.headline or None, language=self.language or None,
                            page_type=self.page_type or None, confidence=self.confidence,
                            needs_rendering=self.needs_rendering)
        found = read_metadata(self.root, self.url, title=self.title, language=self.language,
                              blocks=self.blocks)
        return replace(found, page_type=self.page_type or None, confidence=self.confidence,
                       needs_rendering=self.needs_rendering)

    def as_dict(self) -> dict[str, Any]:
        """The whole result in plain JSON types, Markdown and metadata included."""
        return {
            "url": self.url,
            "site": self.site,
            "title": self.title,
            "language": self.language,
            "extractor": self.extractor,
            "reason": self.reason,
            "page_type": self.page_type,
            "text": self.text,
            "markdown": self.markdown,
            "metadata": self.metadata.as_dict(),
            "blocks": self.labels(),
        }
