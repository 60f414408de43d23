"""The page's content and chrome containers, by XPath: the ``in_*`` columns of the features.

A block inside an ``<article>``, a ``<main>``, an element with ``role=main`` or
``itemprop=articleBody`` is likely the page's text, one inside a ``role=navigation``
(or another chrome role) likely not. ``container_paths`` finds those elements once per
page from the tree (or from the ``pagetype.TreeScan`` the learned step makes for the
page-type facts too), and ``features.page_features`` tells which blocks lie under them
by XPath prefix, which works beyond the nearest ancestors a Block keeps and after
training has dropped the tree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lxml import etree

if TYPE_CHECKING:
    from ...page import Page
    from .pagetype import TreeScan

#: Containers that mark the main content when a page has them, matched by XPath prefix.
CONTENT_CONTAINERS = ("in_article", "in_main", "in_article_body", "in_chrome_role")
CHROME_ROLES = frozenset("navigation banner contentinfo complementary menu menubar search".split())
BODY_PROPS = frozenset("articleBody text description reviewBody".split())
#: At most this many containers of one kind are looked at (pages with 500 <article> teasers).
MAX_CONTAINERS = 50
#: Elements with a ``role`` or ``itemprop``, in document order. Selecting the attributes
#: and stepping up is twice as fast in libxml2 as testing ``[@role or @itemprop]`` on
#: every element.
_ROLE_OR_ITEMPROP = etree.XPath("//@role/.. | //@itemprop/..")


def container_paths(page: "Page", scan: TreeScan | None = None) -> dict[str, tuple[str, ...]]:
    """XPaths of the page's content and chrome containers (one attribute scan, one tag scan,
    or ``scan`` when the caller made one for ``PageFacts`` too)."""
    tree = page.root.getroottree()
    found: dict[str, list] = {name: [] for name in CONTENT_CONTAINERS}
    try:
        for el in scan.boxes if scan else page.root.iter("article", "main"):
            tag = el.tag
            if tag == "article" or tag == "main":
                found["in_article" if tag == "article" else "in_main"].append(el)
        for el in scan.marked if scan else _ROLE_OR_ITEMPROP(page.root):
            role, prop = el.get("role"), el.get("itemprop")
            if role == "main":
                found["in_main"].append(el)
            elif role in CHROME_ROLES:
                found["in_chrome_role"].append(el)
            if prop in BODY_PROPS:
                found["in_article_body"].append(el)
    except Exception:  # noqa: BLE001 - a malformed tree must not stop extraction
        pass
    return {name: tuple(tree.getpath(el) for el in els[:MAX_CONTAINERS])
            for name, els in found.items()}
