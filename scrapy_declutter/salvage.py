"""Text the parser would lose: content after ``</html>``, and pages nested too deep.

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
    changed: the copy is made only on pages that have such content.
    """
    trailing = [el for el in root.itersiblings() if isinstance(el.tag, str) and (len(el) or el.text)]
    if not trailing:
        return root
    whole = deepcopy(root)
    body = whole.find("body")
    if body is None:
        body = whole
    for el in trailing:
        part = deepcopy(el)  # copied, not rebuilt: its text may hold control characters
        part.tag, part.tail = "div", None  # lxml's API would refuse to set
        body.append(part)
    return whole
