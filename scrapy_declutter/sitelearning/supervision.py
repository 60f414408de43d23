"""User-given labels: a content selector (CSS or XPath) or the seed's comment markers.

Per block, whether the user calls it content; None when the page offers nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from lxml import etree
from parsel.csstranslator import HTMLTranslator

from ..blocks import subtree_prefixes

if TYPE_CHECKING:
    from ..page import Page

#: The seed's markers: ``<!-- content -->`` ... ``<!-- /content -->``.
START_MARKER = "content"
END_MARKER = "/content"


@lru_cache(maxsize=64)
def selector_xpath(selector: str) -> str:
    """XPath for a selector: XPath as is (starts with ``/`` or ``(``), CSS translated."""
    s = selector.strip()
    if s.startswith(("/", "(", "./")):
        return s
    return HTMLTranslator().css_to_xpath(s)


def selector_labels(page: "Page", selector: str) -> list[bool] | None:
    """Per block: inside an element the selector matches. None when it matches nothing."""
    try:
        found = page.root.xpath(selector_xpath(selector))
    except (etree.XPathError, ValueError) as exc:
        raise ValueError(f"bad content selector {selector!r}: {exc}") from None
    elements = [el for el in found if isinstance(el, etree._Element)]
    if not elements:
        return None
    tree = page.root.getroottree()
    prefixes = subtree_prefixes(tree.getpath(el) for el in elements)
    return [(b.xpath + "/").startswith(prefixes) for b in page.blocks]


def marker_labels(page: "Page") -> list[bool] | None:
    """Per block: its element lies between the markers; None without a start marker."""
    inside = False
    seen_marker = False
    tree = page.root.getroottree()
    content: set[str] = set()
    for node in page.root.iter():
        if isinstance(node, etree._Comment):
            text = (node.text or "").strip()
            if text == START_MARKER:
                inside = seen_marker = True
            elif text == END_MARKER:
                inside = False
        elif inside and isinstance(node.tag, str):
            content.add(tree.getpath(node))
    if not seen_marker:
        return None
    return [b.xpath in content for b in page.blocks]
