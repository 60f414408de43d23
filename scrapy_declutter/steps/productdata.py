"""Add a product's description from its structured data when the kept text lacks it.

Shops describe the item for search engines in JSON-LD (schema.org ``Product``
with its ``description``), and often show the same text in a box that opens
on a click or is drawn by a script, where the classifier misses it or the
page has none. When a product page's kept text holds little of that
description, the description is added as content after the page's own
blocks, as the ``embedded`` step adds an app shell's text.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import TYPE_CHECKING

from ..appshell import data_blocks, json_objects, read_json
from ..blocks import CONTENT
from . import Step
from .learned.text import WORD

if TYPE_CHECKING:
    from lxml import etree

    from ..page import Page

#: schema.org types whose ``description`` is the item's.
PRODUCT_TYPES = frozenset({"Product", "ProductGroup"})
#: A description of fewer words is a tagline, not the item's text.
MIN_WORDS = 10
#: The description is added when the kept text holds less than this share of its words.
MAX_COVERED = 0.3
#: The page types whose description is added.
PAGE_TYPES = frozenset({"product"})


def _is_product(obj: dict) -> bool:
    kinds = obj.get("@type")
    for kind in kinds if isinstance(kinds, list) else [kinds]:
        # "Product", "schema:Product", "https://schema.org/Product"
        if isinstance(kind, str) and re.split(r"[/:#]", kind)[-1] in PRODUCT_TYPES:
            return True
    return False


def product_description(root: "etree._Element") -> tuple[str, "etree._Element | None"]:
    """The first JSON-LD ``Product`` description of ``MIN_WORDS`` words or more, with the
    script that holds it; ("", None) when the page has none."""
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        for obj in json_objects(read_json(script.text or "")):
            text = obj.get("description")
            if _is_product(obj) and isinstance(text, str):
                text = html.unescape(text)
                if len(WORD.findall(text)) >= MIN_WORDS:
                    return text, script
    return "", None


class ProductData(Step):
    """On a product page whose kept text holds under ``MAX_COVERED`` of its JSON-LD
    description's words, add the description's blocks as content."""

    name = "productdata"

    def process(self, page: "Page") -> None:
        if page.page_type not in PAGE_TYPES or page.root is None:
            return
        text, script = product_description(page.root)
        if script is None:
            return
        words = Counter(WORD.findall(text.lower()))
        kept = Counter(w for b in page.blocks if b.is_content for w in WORD.findall(b.text.lower()))
        if sum((words & kept).values()) >= MAX_COVERED * sum(words.values()):
            return
        start = len(page.blocks)
        for i, b in enumerate(data_blocks(text, "", script)):
            b.index = start + i
            b.set_label(CONTENT, 1.0, self.name)
            page.blocks.append(b)
