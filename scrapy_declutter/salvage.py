"""Text the parser would lose: content after ``</html>``, pages nested too deep, a damaged head.

libxml2 puts what follows a stray ``</html>`` into a second ``<html>``
element beside the root; a walk of the root never sees it, though browsers
show it (18 of the 1,358 WCXB-dev pages have text there, up to 119,000
characters). ``whole_document`` gives a tree with that content appended to
the body.


libxml2 stops at a nesting depth of 2,048 and drops everything after that
point: a forum page with thousands of unclosed ``<font>`` tags would lose
its posts without a word. Browsers keep the text (Blink flattens below depth
512). ``flatten`` rebuilds such a page as one ``<p>`` per run of text
between block-level tags, with invisible elements (script, style, comments
...) removed, in one linear scan; ids, classes and nesting are lost, so
extraction on it is a best effort and the Result says so in ``reason``.

A damaged head can hold the whole page, and libxml2 then builds no body at
all (``closed_title``, ``body_from_head``): an unclosed ``<title>`` makes the rest of the page
the title's text, and an element a head cannot hold (a stray ``<mbox>``)
keeps the rest of the page inside it, in the head, where a browser would
have started the body. 9 of L3S-GN1's 621 news pages came out empty so.
"""

from __future__ import annotations

import re
from copy import deepcopy
from html import escape, unescape

from lxml import etree

from .segment import BLOCK_TAGS, SKIP_TAGS

#: Elements whose content a browser never shows (their text is dropped).
HIDDEN_TAGS = SKIP_TAGS | {"noframes", "noembed"}
_HIDDEN = re.compile(rf"<!--|<({'|'.join(sorted(HIDDEN_TAGS))})\b", re.IGNORECASE)
_BREAK = re.compile(rf"</?(?:{'|'.join(sorted(BLOCK_TAGS))}|br)\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"</?[a-zA-Z!?][^>]*>")
_TITLE = re.compile(r"<title\b[^>]*>", re.IGNORECASE)
#: Elements a document head holds. libxml2 keeps any other element met in the
#: head there, with the rest of the page inside it; a browser starts the body.
HEAD_TAGS = frozenset("base basefont bgsound link meta noscript script style template title".split())
#: Characters past which a title holding markup is taken for one that lost its
#: ``</title>`` and swallowed the page (titles run to a few dozen words).
SWALLOWING_TITLE = 1_000


def visible_markup(html: str) -> str:
    """``html`` without comments and hidden elements; an unclosed one runs to the end, as in a browser."""
    lowered = html.lower()
    out: list[str] = []
    pos = 0
    while True:
        m = _HIDDEN.search(html, pos)
        if m is None:
            out.append(html[pos:])
            break
        out.append(html[pos : m.start()])
        if m.group(0) == "<!--":
            end = lowered.find("-->", m.end())
            pos = end + 3
        else:
            end = lowered.find(f"</{m.group(1).lower()}", m.end())
            pos = lowered.find(">", end) + 1 if end >= 0 else -1
        if end < 0 or pos <= 0:
            break
    return " ".join(out)


def flatten(html: str) -> str:
    """A flat document with the text of ``html``: one paragraph per block, no nesting."""
    paragraphs = []
    for chunk in _BREAK.split(visible_markup(html)):
        text = " ".join(unescape(_TAG.sub("", chunk)).split())
        if text:
            paragraphs.append(f"<p>{escape(text, quote=False)}</p>")
    return "<html><body>" + "\n".join(paragraphs) + "</body></html>"


def whole_document(root: etree._Element) -> etree._Element:
    """``root``, or a copy of it with the content of the parser's extra ``<html>`` elements.

    The caller's tree (Scrapy's ``response.selector.root``) is never
    changed: the copy is made only on pages that have such content. It goes
    at the end of the body, or of the root when libxml2 left text or elements
    after ``</body>`` there: a browser shows those before it.
    """
    trailing = [el for el in root.itersiblings() if isinstance(el.tag, str) and (len(el) or el.text)]
    if not trailing:
        return root
    whole = deepcopy(root)
    body = whole.find("body")
    if body is None or _text_follows(body):
        body = whole
    for el in trailing:
        part = deepcopy(el)  # copied, not rebuilt: its text may hold control characters
        part.tag, part.tail = "div", None  # lxml's API would refuse to set
        body.append(part)
    return whole


def _text_follows(body: etree._Element) -> bool:
    """Whether text a browser shows follows ``body`` in its parent (libxml2 leaves it there)."""
    if (body.tail or "").strip():
        return True
    return any(isinstance(el.tag, str) and el.tag not in HIDDEN_TAGS and "".join(el.itertext()).strip()
               or (el.tail or "").strip() for el in body.itersiblings())


def closed_title(root: etree._Element, html: str) -> str | None:
    """``html`` with its title closed before the first tag after ``<title>``, when an
    unclosed title swallowed the page in ``root`` (the tree of ``html``); else None.

    The title keeps the stray text up to that tag, which is what the damage
    left of it; the page after it parses as it would have.
    """
    title = root.find("head/title")
    text = title.text if title is not None else None
    if not text or len(text) <= SWALLOWING_TITLE or not _TAG.search(text):
        return None
    opening = _TITLE.search(html)
    if opening is None:
        return None
    end = _TAG.search(html, opening.end())
    at = end.start() if end is not None else len(html)
    return f"{html[:at]}</title>{html[at:]}"


def body_from_head(root: etree._Element) -> etree._Element | None:
    """A copy of ``root`` with a body made of its head from the first element a head
    cannot hold, or None when its head holds none; the caller's tree is untouched."""
    head = root.find("head")
    if head is None:
        return None
    first = next((i for i, el in enumerate(head) if isinstance(el.tag, str) and el.tag not in HEAD_TAGS), None)
    if first is None:
        return None
    whole = deepcopy(root)
    head = whole.find("head")
    body = etree.SubElement(whole, "body")
    body.extend(head[first:])
    return whole
