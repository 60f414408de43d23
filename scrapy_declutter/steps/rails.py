"""Leave out a product page's recommendation rails: rows of priced cards for other items.

Below the item, a shop lists others ("Often viewed with", "Similar items"):
a row of cards of one shape, each a short name and a price. Each card reads
like the item's own name and price, and a classifier that scores blocks keeps
some of them. Together they give themselves away: sibling elements of the
same tag and classes, three or more, each with a price and few words kept.
On a listing such a row is the page's content; on a product page it is a
rail beside the item.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from ..blocks import BOILERPLATE, Block
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: A price: a currency sign or code next to a number, either side.
PRICE = re.compile(r"(?:[$€£¥₹]|\b(?:USD|EUR|GBP|AUD|CAD)\b)\s?\d"
                   r"|\d(?:[.,]\d\d)?\s?(?:[$€£]|\b(?:USD|EUR|GBP|zł|kr|Kč)\b)")
#: A rail has at least this many priced cards, ...
MIN_CARDS = 3
#: ... at least this share of the sibling elements of that shape, ...
MIN_PRICED_SHARE = 0.5
#: ... each with at most this many words kept (a name and a price, not a description).
MAX_CARD_WORDS = 25
#: The rails are left out only where at least this many content words remain.
MIN_REMAINING_WORDS = 20
#: The page types whose rails are left out (on a listing the cards are the content).
PAGE_TYPES = frozenset({"product"})


def rail_blocks(blocks: list[Block]) -> set[int]:
    """Indices of the blocks in a rail's cards: sibling elements of one tag and classes, at
    least ``MIN_CARDS`` (and ``MIN_PRICED_SHARE`` of them) holding a price and at most
    ``MAX_CARD_WORDS`` content words."""
    # (parent path, tag, classes) -> the sibling's step in the path -> its blocks
    shapes: dict[tuple, dict[str, list[Block]]] = defaultdict(lambda: defaultdict(list))
    for b in blocks:
        steps = b.xpath.split("/")
        # ancestors end with the block's own element; the cards are the elements above it
        for k in range(2, len(b.ancestors) + 1):
            a = b.ancestors[-k]
            shapes[("/".join(steps[:-k]), a.tag, a.classes)][steps[-k]].append(b)
    found: set[int] = set()
    for cards in shapes.values():
        if len(cards) < MIN_CARDS:
            continue
        priced = [card for card in cards.values()
                  if sum(b.words for b in card if b.is_content) <= MAX_CARD_WORDS
                  and any(PRICE.search(b.text) for b in card)]
        if len(priced) >= MIN_CARDS and len(priced) >= MIN_PRICED_SHARE * len(cards):
            found.update(b.index for card in priced for b in card)
    return found


class Rails(Step):
    """Label boilerplate the content blocks of a product page's rails (``rail_blocks``) when
    ``MIN_REMAINING_WORDS`` content words or more remain."""

    name = "rails"

    def process(self, page: "Page") -> None:
        if page.page_type not in PAGE_TYPES:
            return
        found = rail_blocks(page.blocks)
        drop = [b for b in page.blocks if b.is_content and b.index in found]
        if not drop:
            return
        if sum(b.words for b in page.blocks if b.is_content) - sum(b.words for b in drop) \
                < MIN_REMAINING_WORDS:
            return
        for b in drop:
            b.set_label(BOILERPLATE, min(b.score, 0.5), self.name)
