"""What kind of page this is: the seven WCXB page types, from page-level facts.

The line between content and boilerplate moves with the kind of page: a
list of linked headlines with dates is chrome beside an article and the
content of a listing; a thread of posts is noise under a news story and
the whole point of a forum. So the learned step first classifies the page
(rs-trafilatura's main lever on WCXB), feeds the probabilities to the block
classifier as features, and cuts each type at its own threshold.

The facts are cheap and read once per page:

- the URL path's words (``/products/``, ``/t/``, ``/docs/``, ``/2024/05/``),
  its depth, slug and digits;
- structured data: JSON-LD ``@type`` values and microdata ``itemtype``
  grouped by the type they suggest (``Product``, ``DiscussionForumPosting``,
  ``NewsArticle``, ``CollectionPage``, ``TechArticle``, ``LocalBusiness``),
  ``og:type``, and the ``generator`` meta (Discourse, Sphinx, Shopify ...);
- how many of some tags the page has (``article``, ``form``, ``pre``,
  ``time`` ...), from one walk that visits only those tags;
- the shape of the text: block and word counts, link and prose shares, the
  largest blocks' share, and how often the short lines hold prices, cart
  buttons, forum words ("reply", "joined"), documentation words or dates.

The classifier itself is a set of tree ensembles in the model file, one per
type, combined by softmax (``model.TypeClassifier``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit

import numpy as np
from lxml import etree

from ... import treefacts
from ...blocks import HEADING_TAGS
from ...page import TREE_FACTS
from ...segment import in_reference_walk
from .text import at_word_start

#: The compiled scan (``scrapy_declutter._treefacts``, which makes it in the walk of the
#: page's tree facts); None without a compiler: ``python_tree_scan``, the reference.
_compiled = treefacts._compiled
try:
    from . import _text
except ImportError:  # built without a compiler: ``python_shape``, the reference
    _text = None

if TYPE_CHECKING:
    from ...page import Page

#: The WCXB page types, in the order of the classifier's outputs.
PAGE_TYPES = ("article", "collection", "documentation", "forum", "listing", "product", "service")

_URL_WORDS = {
    "article": "news|article|articles|blog|blogs|post|posts|story|stories|20\\d\\d|19\\d\\d|"
               "opinion|magazine|press|insights",
    "forum": "forum|forums|thread|threads|topic|topics|t|questions|question|discussion|"
             "discussions|community|viewtopic|showthread|answers|r|comments",
    "product": "product|products|p|dp|item|items|shop|store|buy|sku|pd",
    "collection": "collections|collection|category|categories|c|catalog|all|browse",
    "listing": "tag|tags|archive|archives|search|list|page|events|directory|index|latest|results",
    "documentation": "docs|doc|documentation|api|reference|ref|manual|guide|guides|wiki|learn|"
                     "tutorial|tutorials|en|latest|stable|help|kb|usersguide|html",
    "service": "services|service|about|contact|pricing|solutions|features|company|plans|"
               "programs|program|courses|certificate|why|testimonials|reviews|support",
}
_URL_RES = {k: re.compile(f"^(?:{v})$") for k, v in _URL_WORDS.items()}
_URL_SPLIT = re.compile(r"[/_.\-]+")
_SCHEMA_TYPES = {
    "article": "article newsarticle blogposting reportagenewsarticle analysisnewsarticle "
               "opinionnewsarticle scholarlyarticle recipe howto review posting liveblogposting",
    "forum": "discussionforumposting qapage question answer comment socialmediaposting",
    "product": "product offer aggregateoffer productgroup aggregaterating individualproduct car "
               "vehicle",
    "collection": "collectionpage itemlist offercatalog searchresultspage listitem",
    "documentation": "techarticle apireference softwaresourcecode softwareapplication course "
                     "learningresource",
    "service": "service localbusiness organization professionalservice faqpage contactpage "
               "aboutpage corporation event educationalorganization financialservice "
               "medicalbusiness store",
}
_SCHEMA_GROUP = {t: g for g, names in _SCHEMA_TYPES.items() for t in names.split()}
_LD_TYPE = re.compile(r'"@type"\s*:\s*(?:\[\s*)?"([^"]+)"')
GENERATORS = (
    "wordpress", "discourse", "phpbb", "vbulletin", "xenforo", "sphinx", "mkdocs", "docusaurus",
    "hugo", "jekyll", "shopify", "drupal", "joomla", "gatsby", "wix", "squarespace", "ghost",
    "mediawiki", "hubspot", "webflow",
)  # fmt: skip
COUNTED_TAGS = (
    "article", "form", "input", "button", "select", "pre", "code", "table", "li", "a", "p",
    "h1", "h2", "h3", "time", "img", "nav", "aside", "section", "blockquote", "dl", "figure",
    "iframe", "main", "header", "footer",
)  # fmt: skip
#: Words and signs counted in the page's short lines (``str.count``: a regex over every
#: line cost more than the rest of the vector), per what they suggest.
_PHRASES = {
    "prices": ("$", "€", "£", "¥", "usd", "eur "),
    "carts": ("add to cart", "add to bag", "add to basket", "warenkorb", "buy now", "in stock",
              "out of stock", "free shipping", "quantity", "sold out"),
    "forum_lines": ("reply", "replies", "quote", "posted", "joined", "posts", "member",
                    "moderator", "upvote", "vote", "answered", "asked"),
    "docs_lines": ("parameters", "returns", "example", "usage", "install", "syntax",
                   "function", "class", "method", "configuration", "version"),
}
#: A date in a short line: ``\b(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|
#: (?:jan|feb|...|dec)[a-z]*\.? \d{1,2})\b``, written alternative by alternative
#: (``text.at_word_start``) so that ``re`` scans for a first character: the same matches.
_DATE = re.compile(at_word_start((
    (r"\d", r"\d?[./-]\d{1,2}[./-]\d{2,4}\b"),
    (r"\d", r"\d{3}-\d{2}-\d{2}\b"),
    *((month[0], rf"{month[1:]}[a-z]*\.? \d{{1,2}}\b")
      for month in "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec".split("|")),
)))
#: The attributes ``container_paths`` and ``PageFacts`` read, in one scan: each
#: ``//@name`` costs a walk of the whole tree in libxml2.
_MARK_ATTRIBUTES = etree.XPath("//@role | //@itemprop | //@itemtype")
#: Lines up to this many characters are looked at for prices, carts, forum words, dates.
SHORT_LINE = 80
#: A block is prose from this many words when under this share of them are link text ...
_PROSE_MIN_WORDS = 8
_PROSE_MAX_LINKS = 0.3
#: ... and tiny up to this many words.
_TINY_WORDS = 3
#: At most this many JSON-LD scripts and microdata types are read.
MAX_TYPES = 50


@dataclass(frozen=True)
class PageFacts:
    """The tree-wide facts the page-type vector needs (kept by training, which drops trees)."""

    schema_types: tuple[str, ...]
    og_type: str
    generator: str
    tag_counts: tuple[int, ...]

    @classmethod
    def of(cls, page: "Page", scan: "TreeScan | None" = None) -> "PageFacts":
        """The facts of a page, from ``scan`` when the caller made one (``tree_scan``)."""
        types: list[str] = []
        counts: tuple[int, ...] = (0,) * len(COUNTED_TAGS)
        og = generator = ""
        try:  # one walk over the few tags that matter, one attribute scan
            scan = scan or tree_scan(page)
            for el in scan.meta:
                if el.tag == "script":
                    # The type first: the text of every other script (kilobytes of code,
                    # decoded into a string) is not made to be thrown away.
                    if (el.get("type") or "").lower() == "application/ld+json" and el.text:
                        types += _LD_TYPE.findall(el.text)[:MAX_TYPES]
                elif not og and el.get("property") == "og:type":
                    og = el.get("content") or ""
                elif not generator and el.get("name") == "generator":
                    generator = el.get("content") or ""
            counts = scan.counts
            types += [v.rsplit("/", 1)[-1] for v in scan.itemtypes[:MAX_TYPES]]
        except Exception:  # noqa: BLE001 - a malformed tree gives no facts, not an error
            pass
        return cls(tuple(t.lower() for t in types[:MAX_TYPES]), og.lower(), generator.lower(),
                   tuple(counts))


#: The tags ``tree_scan`` walks over: ``COUNTED_TAGS`` are counted, the elements of
#: ``KEPT_TAGS`` are kept (``PageFacts`` reads the scripts and metas; ``article`` and
#: ``main``, counted too, are containers ``containers.container_paths`` looks for).
KEPT_TAGS = ("script", "meta", "article", "main")
SCANNED_TAGS = ("script", "meta", *COUNTED_TAGS)


class TreeScan(NamedTuple):
    """What ``PageFacts.of`` and ``containers.container_paths`` read from a page's tree,
    gathered once for both (``tree_scan``): they walk the same tags and scan the same
    kind of attributes, and each walk of the tree costs about as much as the other."""

    #: How many elements of each of ``COUNTED_TAGS`` the tree has.
    counts: tuple[int, ...]
    #: The ``<script>`` and ``<meta>`` elements, in document order.
    meta: list
    #: The ``<article>`` and ``<main>`` elements, in document order.
    boxes: list
    #: The elements with a ``role`` or an ``itemprop``, in document order, each once.
    marked: list
    #: The ``itemtype`` values, in document order.
    itemtypes: list


def tree_scan(page: "Page") -> TreeScan:
    """The ``TreeScan`` of a page: the compiled scan where the package was built with a
    compiler and the tree is one an HTML parse makes, else (and inside
    ``segment.reference_walk()``) ``python_tree_scan``, which gives the same.

    The compiled scan is the one the page's tree facts made of this root in their walk
    (``page.TREE_FACTS``), else a walk of its own (``treefacts.scanned``)."""
    if _compiled is not None and not in_reference_walk():
        facts = page.get(TREE_FACTS)
        found = facts[1].scan if facts is not None and facts[0] is page.root else None
        if found is None:
            found = treefacts.scanned(page.root)
        if found is not None:
            counts, kept, marked, itemtypes = found
            meta = [el for el in kept if el.tag == "script" or el.tag == "meta"]
            boxes = [el for el in kept if el.tag == "article" or el.tag == "main"]
            return TreeScan(tuple(counts), meta, boxes, marked, itemtypes)
    return python_tree_scan(page)


def python_tree_scan(page: "Page") -> TreeScan:
    """One walk over ``SCANNED_TAGS`` and one attribute scan of the page's tree: the
    reference of the compiled scan (``_treefacts``).

    Attributes come in document order, an element's own before its
    children's, so an element's role and itemprop are next to each other.
    """
    counts = dict.fromkeys(COUNTED_TAGS, 0)
    meta, boxes = [], []
    for el in page.root.iter(*SCANNED_TAGS):
        tag = el.tag
        if tag == "script" or tag == "meta":
            meta.append(el)
        else:
            counts[tag] += 1
            if tag == "article" or tag == "main":
                boxes.append(el)
    marked, itemtypes = [], []
    last = None
    for attr in _MARK_ATTRIBUTES(page.root):
        if attr.attrname == "itemtype":
            itemtypes.append(attr)
        else:
            el = attr.getparent()
            if el is not last:
                marked.append(el)
                last = el
    return TreeScan(tuple(counts.values()), meta, boxes, marked, itemtypes)


def vector_names() -> list[str]:
    """Names of the page-type vector's entries, in order."""
    return ([f"url_{k}" for k in _URL_WORDS]
            + ["url_depth", "url_slug_hyphens", "url_digit_share", "url_query", "url_slug_len",
               "url_missing"]
            + [f"schema_{k}" for k in _SCHEMA_TYPES] + ["schema_any"]
            + ["og_article", "og_product", "og_website", "og_other"]
            + [f"generator_{g}" for g in GENERATORS] + [f"tags_{t}" for t in COUNTED_TAGS]
            + ["log_blocks", "log_words", "link_share", "prose_share", "log_prose_blocks",
               "top_block_share", "top5_share", "heading_share", "li_share", "log_dates",
               *(f"log_{k}" for k in _PHRASES), "pre_share",
               "mean_words", "tiny_share", "sentence_share"])


def page_vector(page: "Page", facts: PageFacts) -> np.ndarray:
    """The page-type classifier's input for one page."""
    url = page.url or ""
    parts = urlsplit(url)
    path = parts.path.lower()
    words = [w for w in _URL_SPLIT.split(path) if w]
    v = [float(sum(1 for w in words if rx.match(w))) for rx in _URL_RES.values()]
    steps = [p for p in path.split("/") if p]
    slug = steps[-1] if steps else ""
    v += [len(steps), slug.count("-"), sum(c.isdigit() for c in path) / max(len(path), 1),
          1.0 if parts.query else 0.0, len(slug), 0.0 if url else 1.0]
    groups = [_SCHEMA_GROUP.get(t) for t in facts.schema_types]
    v += [float(groups.count(g)) for g in _SCHEMA_TYPES] + [float(len(groups))]
    og = facts.og_type
    v += [float("article" in og), float("product" in og), float(og == "website"),
          float(bool(og) and not any(k in og for k in ("article", "product", "website")))]
    v += [float(g in facts.generator) for g in GENERATORS]
    v += [math.log1p(c) for c in facts.tag_counts]
    v += _text_shape(page)
    return np.array(v, dtype=np.float64)


def _text_shape(page: "Page") -> list[float]:
    """The shape of the page's text: block and word counts, shares, and how often the
    short lines hold dates and each kind of ``_PHRASES``.

    The figures come from one C loop over the blocks (``_text.shape``) where the
    package was built with a compiler, else from ``python_shape``, its reference;
    there the dates are looked for in the short lines that hold a digit (every date
    ``_DATE`` finds has one, and no match spans lines) and the phrases counted in one
    pass (``_text.Phrases``) instead of a ``str.count`` per phrase: the same counts.
    """
    blocks = page.blocks
    n = len(blocks) or 1
    if _text is not None and not in_reference_walk():
        figures, short, dated = _text.shape(blocks, HEADING_TAGS, SHORT_LINE, _PROSE_MIN_WORDS,
                                            _PROSE_MAX_LINKS, _TINY_WORDS)
        lines = "\n".join(short).lower()
        dates = len(_DATE.findall("\n".join(dated).lower()))
        found = iter(_PHRASE_SET.counts(lines))
        phrases = [sum(next(found) for _ in words) for words in _PHRASES.values()]
    else:
        figures, short = python_shape(blocks)
        # Counted over the short lines joined: it counts matches, and a short line rarely
        # holds two.
        lines = "\n".join(short).lower()
        dates = len(_DATE.findall(lines))
        phrases = [sum(map(lines.count, words)) for words in _PHRASES.values()]
    (total, top, top5, link_words, prose_words, prose_blocks, headings, items, pre, tiny,
     sentences) = figures
    total = total or 1
    return [
        math.log1p(len(blocks)), math.log1p(total), link_words / total, prose_words / total,
        math.log1p(prose_blocks), top / total, top5 / total,
        headings / n, items / n,
        math.log1p(dates),
        *(math.log1p(count) for count in phrases),
        pre / total, total / n, tiny / n, sentences / n,
    ]


def python_shape(blocks: list) -> tuple[tuple[int, ...], list[str]]:
    """(words, the largest block's words, the five largest blocks' words, link words, prose
    words, prose blocks, headings, list items, words in ``<pre>``, tiny blocks, blocks that
    end a sentence) and the short lines' texts: the reference of the compiled ``_text.shape``."""
    words = [b.words for b in blocks] or [0]
    ranked = sorted(words, reverse=True)
    prose = [b.words for b in blocks
             if b.words >= _PROSE_MIN_WORDS and b.link_density < _PROSE_MAX_LINKS]
    tags = [b.tag for b in blocks]
    texts = [b.text for b in blocks]
    return ((sum(words), ranked[0], sum(ranked[:5]), sum(b.link_words for b in blocks),
             sum(prose), len(prose), sum(t in HEADING_TAGS for t in tags), tags.count("li"),
             sum(b.words for b in blocks if b.tag == "pre"),
             sum(b.words <= _TINY_WORDS for b in blocks),
             sum(t.endswith((".", "!", "?")) for t in texts)),
            [t for t in texts if len(t) <= SHORT_LINE])


treefacts.configure_scan(COUNTED_TAGS, KEPT_TAGS)

#: Every phrase of ``_PHRASES`` in one set, in their order, for the compiled count.
_PHRASE_SET = _text.Phrases([p for words in _PHRASES.values() for p in words]) if _text else None
