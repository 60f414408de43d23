"""Keep the rest of a product's specification list or table when the classifier kept part of it.

A specification list is a column of short items ("Scale: 648 mm", "22 medium
jumbo frets"): each item alone has little of prose, so the classifier keeps
the longer ones and drops their neighbours, and the text reads as a list
with holes. A list or table is one thing: where a good share of its words
is kept, the rest of it is the item's too, except the entries that are
links (a "see also" line, a navigation entry in the same list).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Hashable

from ..blocks import BOILERPLATE, CONTENT, Block
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: A list or table of at least this many blocks, ...
MIN_BLOCKS = 3
#: ... of whose words at least this share is kept, is kept whole, ...
MIN_KEPT_SHARE = 0.3
#: ... but for its blocks with more than this share of their words in links.
MAX_LINK_DENSITY = 0.3
#: The page types whose lists are kept whole (a product page's lists are its specifications).
PAGE_TYPES = frozenset({"product"})


def container(block: Block) -> Hashable | None:
    """The table (its running number) or the innermost list (its path) the block lies in."""
    s = block.structure
    if s.table and s.row >= 0:
        return ("table", s.table)
    if s.list_depth:
        steps = block.xpath.split("/")
        for i in range(len(steps) - 1, 0, -1):
            if steps[i].partition("[")[0] == "li":
                return ("list", "/".join(steps[:i]))
    return None


class SpecLists(Step):
    """Label content the boilerplate, unlinked blocks of a product page's list or table of which
    ``MIN_KEPT_SHARE`` of the words or more are kept."""

    name = "specs"

    def process(self, page: "Page") -> None:
        if page.page_type not in PAGE_TYPES:
            return
        groups: dict[Hashable, list[Block]] = defaultdict(list)
        for b in page.blocks:
            key = container(b)
            if key is not None:
                groups[key].append(b)
        for blocks in groups.values():
            if len(blocks) < MIN_BLOCKS:
                continue
            words = sum(b.words for b in blocks)
            kept = sum(b.words for b in blocks if b.is_content)
            if not kept or kept == words or kept < MIN_KEPT_SHARE * words:
                continue
            for b in blocks:
                if b.label == BOILERPLATE and b.link_density <= MAX_LINK_DENSITY:
                    b.set_label(CONTENT, max(b.score, 0.5), self.name)
