"""What a page says about itself in its markup: JSON-LD, microdata, OpenGraph, meta tags.

The structured syntaxes are read with extruct (the Scrapy ecosystem's library
for them), from the tree the page was already parsed into, never from a
second parse. extruct is imported on first use: importing it pulls in rdflib,
mf2py and requests (about half a second), which ``extract()`` callers who
want no metadata must not pay.

Which syntaxes are read is a choice of cost against what they add; the lab's
``metadata_eval`` measures both. RDFa needs extruct's own XML-DOM parse of
the page (a second parse) and Dublin Core writes into the tree it reads (the
tree may be Scrapy's response tree), so neither is read.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from lxml import etree

logger = logging.getLogger(__name__)

#: The syntaxes read by default, and every one ``read_markup`` knows.
DEFAULT_SOURCES = ("json-ld", "opengraph", "meta")
SOURCES = ("json-ld", "microdata", "opengraph", "meta")

_META = etree.XPath("//meta[@content]")
_LINKS = etree.XPath("//link[@href and @rel]")
_TIMES = etree.XPath("//body//time[@datetime]")
#: Visible bylines: rel/itemprop author, and elements whose class names an author or byline.
_BYLINES = etree.XPath(
    "//body//*[@rel='author' or @itemprop='author']"
    " | //body//@class[contains(., 'author') or contains(., 'byline')]/.."
)
#: The authors a byline marks up: itself or its rel/itemprop author descendants.
_MARKED = etree.XPath("self::*[@rel='author' or @itemprop='author']"
                      " | .//*[@rel='author' or @itemprop='author']")
#: A marked-up author's own name: microdata's itemprop=name inside it.
_NAME = etree.XPath(".//*[@itemprop='name']")
#: A byline longer than this is a bio or a list, not a name.
BYLINE_MAX_WORDS = 6


class Byline(NamedTuple):
    """A visible byline: its text, and the author names its markup gives whole."""

    #: The element's text, whitespace collapsed: free text that may hold a place or a role.
    text: str
    #: Names of the rel/itemprop author elements it is or holds (itemprop=name where given).
    names: tuple[str, ...] = ()


@dataclass
class Markup:
    """The page's self-description, one attribute per source, as extruct returns it."""

    #: JSON-LD objects, ``@graph`` lists flattened into the list.
    jsonld: list[dict[str, Any]] = field(default_factory=list)
    #: Microdata items in extruct's ``{"type", "properties"}`` form.
    microdata: list[dict[str, Any]] = field(default_factory=list)
    #: OpenGraph properties (``og:title``, ``article:published_time`` ...), first value of each.
    opengraph: dict[str, str] = field(default_factory=dict)
    #: ``<meta name|property|itemprop=... content=...>``, names lower-cased, first value of each.
    meta: dict[str, str] = field(default_factory=dict)
    #: ``<link rel=... href=...>``: rel (lower-cased) to the first href.
    links: dict[str, str] = field(default_factory=dict)
    #: ``datetime`` of the ``<time>`` elements in the body, in document order (at most 20).
    times: list[str] = field(default_factory=list)
    #: The body's short author/byline elements, in document order (at most 5).
    bylines: list[Byline] = field(default_factory=list)


def _flatten_jsonld(items: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = list(reversed(items))
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            graph = item.get("@graph")
            if isinstance(graph, list):
                stack.extend(reversed(graph))
            if len(item) > 2 or "@graph" not in item:
                out.append(item)
    return out


def _opengraph(root: etree._Element, base_url: str | None) -> dict[str, str]:
    """OpenGraph through extruct, which reads ``document.head`` (an ``lxml.html`` API).

    Scrapy's trees are ``lxml.html`` ones; a tree parsed outside Scrapy is a
    plain ``etree`` one (``page.parse_html``), so extruct gets a small
    ``lxml.html`` document holding only the page's ``<meta property>`` tags.
    """
    from extruct.opengraph import OpenGraphExtractor
    from extruct.uniform import _uopengraph
    from lxml import html as lxml_html

    document = root
    if not isinstance(root, lxml_html.HtmlElement):
        document = lxml_html.document_fromstring("<html><head></head><body></body></html>")
        if root.get("prefix"):
            document.set("prefix", root.get("prefix"))
        head = document.head
        for head_el in root.iter("head"):
            if head_el.get("prefix"):
                head.set("prefix", head_el.get("prefix"))
            for el in head_el.iterchildren("meta"):
                if el.get("property") and el.get("content") is not None:
                    etree.SubElement(head, "meta", property=el.get("property"), content=el.get("content"))
            break
    found = _uopengraph(list(OpenGraphExtractor().extract_items(document, base_url=base_url)))
    props: dict[str, str] = {}
    for obj in found:
        for key, value in obj.items():
            if key == "@type":
                key = "og:type"
            if isinstance(value, str) and key not in props:
                props[key] = value
    return props


def _meta_tags(root: etree._Element, markup: Markup) -> None:
    for el in _META(root):
        name = el.get("name") or el.get("property") or el.get("itemprop")
        content = el.get("content")
        if name and content and content.strip():
            markup.meta.setdefault(name.strip().lower(), " ".join(content.split()))
    for el in _LINKS(root):
        for rel in el.get("rel", "").lower().split():
            markup.links.setdefault(rel, el.get("href").strip())
    markup.times = [t.get("datetime").strip() for t in _TIMES(root)[:20]]
    for el in _BYLINES(root):
        marked = _MARKED(el)
        names = tuple(dict.fromkeys(filter(_short, (_text((_NAME(a) or [a])[0]) for a in marked))))
        text = _text(el)
        # An element too long for a byline still names its author if it is the marked author.
        if (_short(text) or names and marked[0] is el) and all(b.text != text for b in markup.bylines):
            markup.bylines.append(Byline(text, names))
            if len(markup.bylines) == 5:
                break


def _text(el: etree._Element) -> str:
    """An element's text (a ``<meta>``'s content), whitespace collapsed."""
    text = el.get("content") if el.tag == "meta" else " ".join(el.itertext())
    return " ".join((text or "").split())


def _short(text: str) -> bool:
    return 0 < len(text.split()) <= BYLINE_MAX_WORDS


def _jsonld(root: etree._Element, base_url: str | None) -> list[dict[str, Any]]:
    from extruct.jsonld import JsonLdExtractor

    return _flatten_jsonld(JsonLdExtractor().extract_items(root, base_url=base_url))


def _microdata(root: etree._Element, base_url: str | None) -> list[dict[str, Any]]:
    from extruct.w3cmicrodata import MicrodataExtractor

    return MicrodataExtractor().extract_items(root, base_url)


_READERS: dict[str, Callable[[etree._Element, str | None], Any]] = {
    "json-ld": _jsonld,
    "microdata": _microdata,
    "opengraph": _opengraph,
}


def read_markup(root: etree._Element, base_url: str | None = None,
                sources: tuple[str, ...] = DEFAULT_SOURCES) -> Markup:
    """Read the given sources from a parsed page; a source that fails is logged and left empty."""
    unknown = sorted(set(sources) - set(SOURCES))
    if unknown:
        raise ValueError(f"unknown metadata source(s) {unknown}; known: {', '.join(SOURCES)}")
    markup = Markup()
    for source in sources:
        try:
            if source == "meta":
                _meta_tags(root, markup)
            else:
                value = _READERS[source](root, base_url)
                setattr(markup, "jsonld" if source == "json-ld" else source, value)
        except Exception as exc:  # noqa: BLE001 - broken markup must not cost the page its text
            logger.debug("metadata source %s failed on %s: %r", source, base_url, exc)
    return markup
