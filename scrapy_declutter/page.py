"""Page: one parsed HTML document, its metadata and its blocks.

Parsing goes through parsel, exactly as Scrapy's ``response.selector`` does, so
a page parsed here and a page taken from a Scrapy response have the same tree.
Bytes are decoded with w3lib's browser-like rules (BOM, HTTP header, meta
charset, then UTF-8), the rules Scrapy itself applies to ``response.text``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from lxml import etree
from parsel import Selector
from w3lib.encoding import html_to_unicode

from .blocks import Block, segment
from .features import DEFAULT_LANGUAGE, count_stopwords, normalise_language, stoplist

if TYPE_CHECKING:
    from scrapy.http import TextResponse


def decode_html(body: bytes, content_type: str | None = None) -> str:
    """Decode page bytes the way a browser (and Scrapy) would."""
    _, text = html_to_unicode(content_type, body)
    return text


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
            value = found[0] if isinstance(found[0], str) else found[0].text_content()
            value = " ".join(value.split())
            if value:
                return value
    return ""


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

    @classmethod
    def from_root(cls, root: etree._Element, url: str | None = None) -> "Page":
        """Build a Page over an existing tree: segment it and compute block features."""
        language = normalise_language(root.get("lang") or root.get("xml:lang")) or DEFAULT_LANGUAGE
        page = cls(root=root, url=url, site=site_key(url), title=_title(root), language=language)
        page.blocks = segment(root)
        stops = stoplist(language)
        if stops:
            for b in page.blocks:
                b.stopwords = count_stopwords(b.text.split(), stops)
                b.stopword_density = b.stopwords / b.words if b.words else 0.0
        return page

    @classmethod
    def from_html(
        cls, html: str | bytes, url: str | None = None, *, content_type: str | None = None
    ) -> "Page":
        """Parse HTML text or bytes; bytes are decoded with browser rules first."""
        text = decode_html(html, content_type) if isinstance(html, bytes) else html
        return cls.from_root(Selector(text=text or "<html/>", type="html").root, url)

    @classmethod
    def from_response(cls, response: "TextResponse") -> "Page":
        """Reuse the tree Scrapy already parsed for ``response.selector``."""
        return cls.from_root(response.selector.root, response.url)

    @property
    def content_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.is_content]
