"""Page: one parsed HTML document, its metadata and its blocks.

Parsing gives the tree parsel's ``create_root_node`` gives, as Scrapy's
``response.selector`` makes it (``parse_html``; a test holds the two equal),
so a page parsed here and a page taken from a Scrapy response have the same
tree. Only the element classes differ: plain
``etree.HTMLParser`` skips ``lxml.html``'s per-element class lookup, which
cost a tenth of the segmentation walk and which nothing here uses.
Bytes are decoded with w3lib's browser-like rules (BOM, HTTP header, meta
charset, then UTF-8), the rules Scrapy itself applies to ``response.text``;
bytes those rules read as valid UTF-8 (most pages) reach the parser as they
came (``parse_utf8``), the bytes the decoded text would have been encoded to.

Every way in ends in ``Page.from_tree``: ``from_html`` (``extract()``,
``Declutter``) parses and calls it, the Scrapy components hand it
``response.selector.root``. It is also where a page nested too deep for the
parser is re-read flat, and a page whose damaged head swallowed its body is
re-read with the body back, from the text the tree was parsed from: that
text is parsed once more, never the original twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import urlsplit

from lxml import etree
from parsel.selector import create_root_node

from .appshell import AppShell, find_app_shell
from .blocks import Block
from .segment import segment
from .language import (DEFAULT_LANGUAGE, declared_language, page_language,
                       page_stopword_counts, set_stopword_fields, stoplist)
from .limits import (APP_SHELL, DAMAGED_HEAD, DEFAULT_LIMITS, NO_TEXT, TOO_DEEP, Limits, empty_root,
                     log_reason)
from .salvage import body_from_head, closed_title, flatten, whole_document
from .sniff import decode_html, decodes_as_utf8
from .treefacts import TreeFacts, tree_facts

try:
    from ._utf8 import utf8 as _compiled_utf8
except ImportError:  # built without a compiler: ``str.encode``
    _compiled_utf8 = None

if TYPE_CHECKING:
    from scrapy.http import TextResponse

T = TypeVar("T")


def site_key(url: str | None) -> str:
    """The default site key: the URL's host, lower-cased, without ``www.``."""
    if not url:
        return ""
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def _title(facts: TreeFacts) -> str:
    """The first of ``//head/title``, ``//title`` and ``og:title`` that holds text."""
    for found in (facts.head_title, facts.title, facts.og_title):
        if found is not None:
            value = found if isinstance(found, str) else "".join(found.itertext())
            value = " ".join(value.split())
            if value:
                return value
    return ""


def parse_html(text: str, base_url: str | None = None) -> etree._Element:
    """The page's tree, as parsel's ``create_root_node`` builds it for Scrapy: the text
    stripped of surrounding whitespace and of NULs, as UTF-8 bytes, through a recovering
    ``HTMLParser`` with ``huge_tree``; ``base_url`` becomes the document's URL, as there.

    The same bytes reach the same parser (``parse_utf8``), found faster: the text is
    encoded by ``_utf8`` where the package was built with a compiler (``str.encode``'s
    bytes, the ASCII runs of wide text copied sixteen characters at a time), and the
    whitespace and NULs are cut from the bytes, not from the text. Text that cannot be
    encoded (lone surrogates) goes to parsel, which fails on it as before.
    """
    text = text or "<html/>"
    try:
        body = encode_utf8(text)
    except UnicodeEncodeError:
        return create_root_node(text, etree.HTMLParser, base_url=base_url)
    return parse_utf8(body, base_url)


def parse_utf8(body: bytes, base_url: str | None = None) -> etree._Element:
    """``parse_html(body.decode("utf-8"), base_url)``, from the bytes: ``body`` must be
    valid UTF-8 (``sniff.decodes_as_utf8`` tells a page's bytes that are), and the text
    is never made.

    parsel removes the NULs from the text (``str.replace``, a loop per character on text
    beyond Latin-1, a tenth of the parse) where here the UTF-8 bytes are searched for
    one (``memchr``). A NUL is one byte of its own value in UTF-8 and no other
    character has a zero byte, so dropping NULs before or after encoding gives the same
    bytes. Likewise the surrounding whitespace is cut from the bytes (``_strip_utf8``).

    One parser option differs from parsel's: ``collect_ids=False``. With it libxml2
    builds no table of ``id`` attributes (a twentieth of the parse); the table
    serves only XPath's ``id()`` and ``get_element_by_id``, which nothing here
    calls, and the elements, attributes and text are the same.
    """
    body = _strip_utf8(body)
    if b"\0" in body:
        body = body.replace(b"\0", b"")
    parser = etree.HTMLParser(recover=True, encoding="utf-8", huge_tree=True, collect_ids=False)
    root = etree.fromstring(body or b"<html/>", parser=parser, base_url=base_url)
    if root is None:  # parsel's answer to a document without an element
        root = etree.fromstring(b"<html/>", parser=parser, base_url=base_url)
    return root


def encode_utf8(text: str) -> bytes:
    """``text.encode("utf-8")``: the compiled ``_utf8`` where it is built (None from it
    means a surrogate, and ``str.encode`` raises its error)."""
    if _compiled_utf8 is not None:
        body = _compiled_utf8(text)
        if body is not None:
            return body
    return text.encode("utf-8")


#: Bytes at either end of a body in which ``_strip_utf8`` looks for its whitespace; a body
#: blank through one of them is decoded whole (rare: one copy).
_STRIP_WINDOW = 256


def _strip_utf8(body: bytes) -> bytes:
    """``body.decode("utf-8").strip().encode("utf-8")`` for valid UTF-8 ``body``.

    Half of the pages end in a newline, and ``str.strip`` then copies the whole
    text, looking at every character again for the narrowest kind that holds the
    copy. Here only the ends are decoded, the whitespace counted there
    (``str.strip``'s rule, ``str.isspace``: NBSP, U+3000 and the ASCII separators
    included), and its UTF-8 length cut from the bytes, a plain memory copy. A
    character cut by a window's edge is dropped by ``"ignore"``; that matters only
    where the window before it is blank, and a blank window decodes the whole body.
    """
    head = body[:_STRIP_WINDOW].decode("utf-8", "ignore")
    tail = body[-_STRIP_WINDOW:].decode("utf-8", "ignore")
    kept_head, kept_tail = head.lstrip(), tail.rstrip()
    if len(body) > _STRIP_WINDOW and not (kept_head and kept_tail):
        return body.decode("utf-8").strip().encode("utf-8")
    if not kept_head:  # blank, and shorter than a window
        return b""
    lead = len(head) - len(kept_head)
    trail = len(tail) - len(kept_tail)
    if not lead and not trail:
        return body
    start = len(head[:lead].encode("utf-8"))
    end = len(body) - len(tail[len(tail) - trail:].encode("utf-8"))
    return body[start:end]


class Slot(Generic[T]):
    """A typed place on a Page for the per-page state of one part above it.

    The part that owns the state declares its slot with the state's type
    (``VIEW: Slot[TextDocument] = Slot("Boilerpipe view")`` in
    ``steps.boilerpipe.document``, ``SITE_MODEL: Slot[SiteModel]`` in
    ``sitelearning.step``), and ``page.get(slot)`` gives that type back. So
    the Page holds the Boilerpipe view or the site model without importing
    the parts that define them (parts import only downwards), and a reader
    gets a declared type, not a dict entry to duck-type.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"


#: The ``TreeFacts`` of the page's tree, with the root they were read from: the steps read
#: the og:title and the scan made for them (``treefacts.configure_scan``) there instead of
#: walking the tree once more, late, when it has left the caches.
TREE_FACTS: Slot[tuple[etree._Element, TreeFacts]] = Slot("tree facts")
#: The app shell the page's tree is (``appshell``), until the ``embedded`` step applies it.
APP_SHELL_FOUND: Slot[AppShell] = Slot("app shell")


@dataclass(eq=False)
class Page:
    """A parsed page. ``root`` is shared with the caller and never mutated here.

    Steps keep per-page state in the page's slots (``get``/``put``), never on
    themselves, so one chain serves every page and thread of a crawl.
    """

    root: etree._Element
    url: str | None = None
    site: str = ""
    title: str = ""
    language: str = DEFAULT_LANGUAGE
    blocks: list[Block] = field(default_factory=list)
    #: Why the page was passed through or only partly analysed ("" when it was
    #: analysed normally); see ``limits`` for the caps and the reasons.
    reason: str = ""
    #: The kind of page, one of ``steps.learned.pagetype.PAGE_TYPES`` (article, forum,
    #: product ...), when an extractor that classifies pages ran; "" otherwise.
    page_type: str = ""
    #: The page-type classifier's probability of ``page_type`` (0.0 without one).
    page_type_probability: float = 0.0
    _slots: dict[Slot[Any], Any] = field(default_factory=dict, init=False, repr=False)

    def __setattr__(self, name: str, value: Any) -> None:
        """A page given another tree lets the facts of the old one go (``TREE_FACTS``):
        they hold elements of it, which would keep it alive (training lets a page's tree go
        by replacing ``root``), and describe it, not the new one."""
        if name == "root" and self.__dict__.get("root", value) is not value:
            self.__dict__.get("_slots", {}).pop(TREE_FACTS, None)
        object.__setattr__(self, name, value)

    def get(self, slot: Slot[T]) -> T | None:
        """What the part owning ``slot`` put on this page, or None."""
        return self._slots.get(slot)

    def put(self, slot: Slot[T], value: T | None) -> None:
        """Keep a part's state for this page in its slot."""
        self._slots[slot] = value

    @classmethod
    def from_tree(
        cls,
        root: etree._Element,
        url: str | None = None,
        *,
        source: str | Callable[[], str] | None = None,
        limits: Limits | None = None,
    ) -> "Page":
        """Build a Page over a parsed tree: segment it and compute block features.

        A tree over a cap (``limits``) gets no blocks and a ``reason``. A tree
        the parser cut short (too deep) is re-read flat from ``source``, the
        text it was parsed from (a callable is called only then), so its text
        is not lost; without a source it is segmented as far as it goes. A
        tree without a body whose head swallowed the page is re-read with the
        body back (``_body_reopened``).
        """
        limits = limits or DEFAULT_LIMITS
        if source is not None and root.find("body") is None:
            reopened = cls._body_reopened(root, url, source, limits)
            if reopened is not None:
                return reopened
        page = cls._segmented(root, url, limits)
        if source is None or not page.reason.startswith(TOO_DEEP):
            return page
        text = source() if callable(source) else source
        flat = cls._segmented(parse_html(flatten(text)), url, limits)
        flat.title, flat.language = page.title, page.language
        if not flat.reason or flat.reason == NO_TEXT:
            flat.reason = f"{page.reason}; text re-read without nesting"
        return flat

    @classmethod
    def _body_reopened(
        cls, root: etree._Element, url: str | None, source: str | Callable[[], str], limits: Limits
    ) -> "Page | None":
        """The Page of a body-less tree whose damaged head held the page (``salvage``),
        re-read with a body; None when the head held nothing of the page."""
        text = source() if callable(source) else source
        closed = closed_title(root, text)
        if closed is None:
            reopened = body_from_head(root)
            damage = "an element a head cannot hold kept the page in the head"
        else:
            reopened = parse_html(closed)
            if reopened.find("body") is None:
                reopened = body_from_head(reopened) or reopened
            damage = "an unclosed <title> held the page"
        if reopened is None:
            return None
        page = cls._segmented(reopened, url, limits)
        if page.blocks and not page.reason:
            page.reason = f"{DAMAGED_HEAD}: {damage}; text re-read with a body"
            log_reason(url, page.reason)
        return page

    @classmethod
    def _segmented(cls, root: etree._Element, url: str | None, limits: Limits) -> "Page":
        """The Page of one tree, its blocks and their features, with the reason the caps give."""
        declared = declared_language(root)
        facts = tree_facts(root)
        page = cls(root=root, url=url, site=site_key(url), title=_title(facts),
                   language=declared or DEFAULT_LANGUAGE)
        page.put(TREE_FACTS, (root, facts))
        page.reason = limits.check_tree(root, elements=facts.elements, widest=facts.widest)
        if page.reason and not page.reason.startswith(TOO_DEEP):
            log_reason(url, page.reason)
            return page
        page.root = root = whole_document(root)
        page.blocks = segment(root)
        shell = None if page.reason else find_app_shell(root, page.blocks)
        if shell is not None:
            page.reason = APP_SHELL
            page.put(APP_SHELL_FOUND, shell)
        if not page.blocks and not page.reason:
            page.reason = NO_TEXT
        log_reason(url, page.reason)
        # Declared, else guessed from the blocks' stop words, else English:
        # stop-word features in the wrong language mislead every step. Counted
        # here, once, for every step that reads them (jusText included).
        # Chained per block (a word at a time in C), not a generator step per word.
        words = chain.from_iterable(b.text.split() for b in page.blocks)
        page.language = page_language(declared, words)
        stops = stoplist(page.language)
        if stops:
            counts = page_stopword_counts([b.text for b in page.blocks], stops)
            set_stopword_fields(page.blocks, counts)
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
        refused = cls.refused(html, url, content_type=content_type, limits=limits)
        if refused is not None:
            return refused
        if isinstance(html, bytes) and decodes_as_utf8(html, content_type):
            body = html
            return cls.from_tree(parse_utf8(body), url, source=lambda: body.decode("utf-8"),
                                 limits=limits)
        text = decode_html(html, content_type) if isinstance(html, bytes) else html
        return cls.from_tree(parse_html(text), url, source=text, limits=limits)

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
    def from_response(cls, response: "TextResponse", *, limits: Limits | None = None) -> "Page":
        """Reuse the tree Scrapy parses for ``response.selector`` (the components do
        this with a body check first: ``integration.analyser``)."""
        return cls.from_tree(response.selector.root, response.url,
                             source=lambda: response.text, limits=limits)

    @property
    def content_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.is_content]
