"""Page: one parsed HTML document, its metadata and its blocks.

Parsing goes through parsel's ``create_root_node``, exactly as Scrapy's
``response.selector`` does, so a page parsed here and a page taken from a
Scrapy response have the same tree. Only the element classes differ: plain
``etree.HTMLParser`` skips ``lxml.html``'s per-element class lookup, which
cost a tenth of the segmentation walk and which nothing here uses.
Bytes are decoded with w3lib's browser-like rules (BOM, HTTP header, meta
charset, then UTF-8), the rules Scrapy itself applies to ``response.text``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from lxml import etree
from parsel.selector import create_root_node

from .blocks import Block, segment
from .language import DEFAULT_LANGUAGE, declared_language, page_language, stoplist, stopword_counts
from .limits import DEFAULT_LIMITS, NO_TEXT, TOO_DEEP, Limits, empty_root, log_reason
from .salvage import flatten, whole_document
from .sniff import decode_html

if TYPE_CHECKING:
    from scrapy.http import TextResponse


def site_key(url: str | None) -> str:
    """The default site key: the URL's host, lower-cased, without ``www.``."""
    if not url:
        return ""
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def _title(root: etree._Element) -> str:
    for xp in ("//head/title", "//title", "//meta[@property='og:title']/@content"):
        found = root.xpath(xp)
        if found:
            value = found[0] if isinstance(found[0], str) else "".join(found[0].itertext())
            value = " ".join(value.split())
            if value:
                return value
    return ""


def parse_html(text: str) -> etree._Element:
    """The page's tree, as parsel would build it for Scrapy (whitespace and NULs stripped)."""
    return create_root_node(text or "<html/>", etree.HTMLParser)


@dataclass(eq=False)
class Page:
    """A parsed page. ``root`` is shared with the caller and never mutated here."""

    root: etree._Element
    url: str | None = None
    site: str = ""
    title: str = ""
    language: str = DEFAULT_LANGUAGE
    blocks: list[Block] = field(default_factory=list)
    #: Per-page scratch space for steps (e.g. a title a classifier found), so
    #: steps themselves stay stateless and shareable across threads.
    notes: dict[str, Any] = field(default_factory=dict)
    #: Why the page was passed through or only partly analysed ("" when it was
    #: analysed normally); see ``limits`` for the caps and the reasons.
    reason: str = ""

    @classmethod
    def from_root(
        cls, root: etree._Element, url: str | None = None, *, limits: Limits | None = None
    ) -> "Page":
        """Build a Page over an existing tree: segment it and compute block features.

        A tree over a cap (``limits``) gets no blocks and a ``reason``; one the
        parser cut short (too deep) is segmented as far as it goes.
        """
        declared = declared_language(root)
        page = cls(root=root, url=url, site=site_key(url), title=_title(root),
                   language=declared or DEFAULT_LANGUAGE)
        page.reason = (limits or DEFAULT_LIMITS).check_tree(root)
        if page.reason and not page.reason.startswith(TOO_DEEP):
            log_reason(url, page.reason)
            return page
        page.root = root = whole_document(root)
        page.blocks = segment(root)
        if not page.blocks and not page.reason:
            page.reason = NO_TEXT
        log_reason(url, page.reason)
        # Declared, else guessed from the blocks' stop words, else English:
        # stop-word features in the wrong language mislead every step. Counted
        # here, once, for every step that reads them (jusText included).
        words = (w for b in page.blocks for w in b.text.split())
        page.language = page_language(declared, words)
        stops = stoplist(page.language)
        if stops:
            for b in page.blocks:
                b.bare_stopwords, b.stopwords = stopword_counts(b.text, stops)
                b.stopword_density = b.stopwords / b.words if b.words else 0.0
        return page

    @classmethod
    def from_html(
        cls,
        html: str | bytes,
        url: str | None = None,
        *,
        content_type: str | None = None,
        limits: Limits | None = None,
    ) -> "Page":
        """Parse HTML text or bytes; bytes are decoded with browser rules first.

        Empty, binary and oversized input is not parsed (the Page has a
        ``reason`` and no blocks); a page nested deeper than the parser goes
        is re-read flat (``salvage``) so its text is not lost.
        """
        limits = limits or DEFAULT_LIMITS
        refused = cls.refused(html, url, content_type=content_type, limits=limits)
        if refused is not None:
            return refused
        text = decode_html(html, content_type) if isinstance(html, bytes) else html
        page = cls.from_root(parse_html(text), url, limits=limits)
        if page.reason.startswith(TOO_DEEP):
            flat = cls.from_root(parse_html(flatten(text)), url, limits=limits)
            flat.title, flat.language = page.title, page.language
            if not flat.reason or flat.reason == NO_TEXT:
                flat.reason = f"{page.reason}; text re-read without nesting"
            page = flat
        return page

    @classmethod
    def refused(
        cls,
        html: str | bytes,
        url: str | None = None,
        *,
        content_type: str | None = None,
        limits: Limits | None = None,
    ) -> "Page | None":
        """The passed-through Page for input that must not be parsed (empty, binary,
        over a cap), with its reason logged; None when the input may be parsed."""
        reason = (limits or DEFAULT_LIMITS).check_input(html, content_type)
        if not reason:
            return None
        log_reason(url, reason)
        return cls(root=empty_root(), url=url, site=site_key(url), reason=reason)

    @classmethod
    def from_response(cls, response: "TextResponse") -> "Page":
        """Reuse the tree Scrapy already parsed for ``response.selector``."""
        return cls.from_root(response.selector.root, response.url)

    @property
    def content_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.is_content]
