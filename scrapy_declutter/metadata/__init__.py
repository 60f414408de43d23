"""Metadata: what a page says about itself, and how sure the extraction is.

Every field comes from the page's own markup, read by ``markup`` (extruct
for JSON-LD and OpenGraph, plain XPath for meta and link tags). Where several
sources give a field, the most specific one wins: JSON-LD describes the
article itself, OpenGraph the page as a share card, meta tags the page for
search engines, and the visible ``<h1>``/``<time>`` come last. Dates are
ISO 8601 (``dates``). ``confidence`` (``confidence``) says how much to trust
the extracted text. ``page_type`` is not read here: the Result fills it in
from the learned step's page-type classifier, nor ``needs_rendering``: the
Result fills it in from the page's app-shell check (``appshell``).
"""

from __future__ import annotations

import html
import logging
import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence
from urllib.parse import urljoin

from .confidence import extraction_confidence
from .dates import iso_date, visible_date
from .markup import DEFAULT_SOURCES, SOURCES, Byline, Markup, read_markup

if TYPE_CHECKING:
    from lxml import etree

    from ..blocks import Block

__all__ = ["DEFAULT_SOURCES", "SOURCES", "Markup", "Metadata", "extraction_confidence",
           "iso_date", "read_markup", "read_metadata"]

logger = logging.getLogger(__name__)

#: JSON-LD / microdata types that describe the page's main content, most specific first.
CONTENT_TYPES = (
    "NewsArticle", "ReportageNewsArticle", "BlogPosting", "Article", "TechArticle",
    "ScholarlyArticle", "Report", "LiveBlogPosting", "SocialMediaPosting",
    "DiscussionForumPosting", "QAPage", "Question", "Recipe", "Review", "Product",
    "HowTo", "Event", "Course", "JobPosting", "VideoObject", "WebPage", "ItemPage",
    "AboutPage", "FAQPage", "ProfilePage", "CollectionPage",
)  # fmt: skip
_RANK = {t: i for i, t in enumerate(CONTENT_TYPES)}
#: Separators between a title and the site name in ``<title>``.
TITLE_SEPARATORS = (" | ", " – ", " — ", " - ", " :: ", " · ", " » ", " // ", " : ")
_BY = re.compile(r"^(?:(?:written|posted|published)\s+)?(?:by|author|authors)\b[:\s]*", re.I)
#: What separates the names of a free-text byline: commas, semicolons, "and".
_SEPARATORS = re.compile(r"\s*(?:[,;]|\sand\s)\s*")
#: Lower-case words that belong to names ("Ludwig van Beethoven", "Ana de la Cruz").
NAME_PARTICLES = frozenset("al bin da das de del della der di dos du el ibn la le st ten ter van von y zu".split())
#: Meta names that carry a publication / modification date, in order of trust.
PUBLISHED_META = ("article:published_time", "datepublished", "publish-date", "publish_date",
                  "pubdate", "date", "dc.date", "dc.date.issued", "dcterms.created",
                  "citation_publication_date", "sailthru.date", "parsely-pub-date", "og:published_time")
MODIFIED_META = ("article:modified_time", "datemodified", "og:updated_time", "last-modified",
                 "dcterms.modified", "dc.date.modified")


@dataclass
class Metadata:
    """The page's metadata; None (or empty) where the page does not say."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    #: ISO 8601 (a date, or a timestamp with its offset as the page wrote it).
    date_published: str | None = None
    date_modified: str | None = None
    #: BCP 47 as declared (``en-GB``), else the detected ISO 639-1 code.
    language: str | None = None
    site_name: str | None = None
    description: str | None = None
    canonical_url: str | None = None
    image: str | None = None
    #: article, forum, product, collection, listing, documentation, service (a classifier's).
    page_type: str | None = None
    #: How far to trust the extracted text, in [0, 1] (see ``confidence``).
    confidence: float = 0.0
    #: The page is an app shell whose content only a browser running its scripts would
    #: show (``Result.needs_rendering``): False when its embedded data gave the text.
    needs_rendering: bool = False

    @property
    def author(self) -> str | None:
        """The authors as one string, as most exports want them."""
        return ", ".join(self.authors) or None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON types; ``authors`` as a list."""
        data = asdict(self)
        data["authors"] = list(self.authors)
        return data


def _clean(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if v), None)
    if isinstance(value, dict):
        value = value.get("name") or value.get("@value") or value.get("url") or value.get("@id")
    if not isinstance(value, str):
        return None
    value = " ".join(html.unescape(value).split())  # JSON-LD often carries "&amp;"
    return value or None


def _types(item: dict[str, Any]) -> list[str]:
    t = item.get("@type") or item.get("type") or ()
    types = [t] if isinstance(t, str) else [x for x in t if isinstance(x, str)]
    return [x.rsplit("/", 1)[-1] for x in types]


def _main_item(items: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The JSON-LD object (or microdata properties) that describes the main content."""
    best, best_rank = None, len(CONTENT_TYPES)
    for item in items:
        props = item.get("properties", item)
        for t in _types(item):
            rank = _RANK.get(t, len(CONTENT_TYPES))
            if rank < best_rank:
                best, best_rank = props, rank
    return best


def _names(value: Any, people: bool) -> list[str]:
    """Author names from a JSON-LD/microdata ``author``: strings, Person objects, lists;
    ``people``: only persons (and bare names), else only organisations."""
    values = value if isinstance(value, list) else [value]
    names: list[str] = []
    for v in values:
        if isinstance(v, dict):
            if ("Organization" in _types(v) or "Organisation" in _types(v)) == people:
                continue
            v = v.get("properties", v)
            v = v.get("name") or (" ".join(filter(None, (_clean(v.get("givenName")),
                                                          _clean(v.get("familyName"))))) or None)
        elif not people:
            continue
        name = _clean(v)
        if name and "://" not in name and name not in names:
            names.append(name)
    return names


def _split_authors(text: str | None) -> list[str]:
    """The names of a free-text byline: split on commas and "and" only when every part
    reads as a name, so "Gary Younge in Sarasota, Florida" is not two authors."""
    if not text or "://" in text:
        return []
    text = _BY.sub("", text.strip()).strip(" ,;")
    parts = [p for p in _SEPARATORS.split(text) if p]
    if len(parts) > 1 and all(map(_reads_as_name, parts)):
        return parts
    return [text] if text else []


def _byline_authors(byline: Byline) -> list[str]:
    """The names a byline's markup gives (whole, without a leading "By"), else its text's."""
    if byline.names:
        names = (_BY.sub("", name).strip(" ,;") for name in byline.names)
        return [n for n in names if any(c.isalnum() for c in n)]
    return _split_authors(byline.text)


def _reads_as_name(text: str) -> bool:
    """A few words, none of them lower-case but a particle (``van``, ``de``), no digit."""
    words = text.split()
    return (0 < len(words) <= 4 and not any(c.isdigit() for c in text)
            and all(not w[0].islower() or w in NAME_PARTICLES for w in words))


def page_title(title: str, site_name: str | None, headings: Iterable[str]) -> str | None:
    """The title from ``<title>``: the ``<h1>`` it names, else its part before the site name."""
    from ..steps.title import titles_match

    if not title:
        return None
    for heading in headings:
        if titles_match(heading, title):
            return heading
    for sep in TITLE_SEPARATORS:
        if sep in title:
            parts = [p.strip() for p in title.split(sep) if p.strip()]
            if site_name:
                parts = [p for p in parts if p.casefold() != site_name.casefold()] or parts
            return parts[0] if parts else title
    return title


def _headline(blocks: Sequence["Block"], title: str, og_title: str | None) -> str | None:
    """The text of the headline block (``steps.title.find_headline``): the title the page
    shows, which its Markdown starts with, before what its markup says."""
    from ..steps.title import find_headline

    at = find_headline(blocks, (title, og_title or ""))
    return blocks[at].text if at is not None else None


def _first(*values: Any) -> str | None:
    for v in values:
        v = _clean(v)
        if v:
            return v
    return None


def read_metadata(root: "etree._Element", url: str | None = None, *, title: str = "",
                  language: str = "", blocks: Sequence["Block"] = (),
                  sources: tuple[str, ...] = DEFAULT_SOURCES, visible_dates: bool = True) -> Metadata:
    """The metadata of a parsed page (``title``/``language``: the Page's), with the
    confidence of the extraction whose labelled ``blocks`` are given; ``visible_dates``:
    look for the date in the page's text (htmldate) when its markup gives none."""
    m = read_markup(root, url, sources)
    item = _main_item(m.jsonld) or {}
    micro = _main_item(m.microdata) or {}
    og, meta = m.opengraph, m.meta
    site = _first(og.get("og:site_name"), meta.get("application-name"),
                  *(i.get("name") for i in m.jsonld if "WebSite" in _types(i)),
                  (item.get("publisher") or {}) if isinstance(item.get("publisher"), dict) else None)
    headline = _first(item.get("headline"), micro.get("headline"), og.get("og:title"),
                      meta.get("twitter:title"), item.get("name"))
    authors = (_names(item.get("author"), True) or _names(micro.get("author"), True)
               or _split_authors(meta.get("author")) or _split_authors(meta.get("dc.creator"))
               or next(filter(None, map(_byline_authors, m.bylines)), None)
               or _names(item.get("author"), False) or _names(item.get("creator"), True))
    published = (iso_date(_clean(item.get("datePublished"))) or iso_date(_clean(micro.get("datePublished")))
                 or next(filter(None, (iso_date(meta.get(k) or og.get(k)) for k in PUBLISHED_META)), None)
                 or iso_date(_clean(item.get("dateCreated") or item.get("uploadDate")))
                 or next(filter(None, map(iso_date, m.times)), None))
    if published is None and visible_dates:
        try:
            published = visible_date(root, url)
        except Exception as exc:  # noqa: BLE001 - a date is not worth the page's other fields
            logger.debug("htmldate failed on %s: %r", url, exc)
    modified = (iso_date(_clean(item.get("dateModified"))) or iso_date(_clean(micro.get("dateModified")))
                or next(filter(None, (iso_date(meta.get(k) or og.get(k)) for k in MODIFIED_META)), None))
    lang = _first(root.get("lang"), root.get("xml:lang"), meta.get("content-language"),
                  item.get("inLanguage"), (og.get("og:locale") or "").replace("_", "-"), language)
    canonical = _first(m.links.get("canonical"), og.get("og:url"), item.get("url"), url)
    image = _first(og.get("og:image"), item.get("image"), meta.get("twitter:image"))
    return Metadata(
        title=_headline(blocks, title, og.get("og:title")) or headline
        or page_title(title, site, (b.text for b in blocks if b.structure.heading == 1)),
        authors=tuple(authors),
        date_published=published,
        date_modified=modified,
        language=lang,
        site_name=site,
        description=_first(meta.get("description"), og.get("og:description"), item.get("description")),
        canonical_url=urljoin(url, canonical) if url and canonical else canonical,
        image=urljoin(url, image) if url and image else image,
        confidence=extraction_confidence(blocks),
    )
