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
    ``MAX_CARD_WORDS`` content words.

    Only the priced blocks' ancestors are candidate cards (a page has a few dozen
    prices), so the blocks are walked again only under a parent with enough of them.
    """
    priced = [b for b in blocks if PRICE.search(b.text)]
    # (parent's path, tag, classes) -> the paths' last steps of the priced cards under it
    shapes: dict[tuple, set[str]] = defaultdict(set)
    for b in priced:
        path = b.xpath
        for a in reversed(b.ancestors[:-1]):  # the elements above the block's own, nearest first
            path = path[:path.rfind("/")]
            cut = path.rfind("/")
            shapes[(path[:cut], a.tag, a.classes)].add(path[cut + 1:])
    has_price = {b.index for b in priced}
    found: set[int] = set()
    for (parent, tag, classes), steps in shapes.items():
        if len(steps) >= MIN_CARDS:
            found.update(_rail(blocks, parent + "/", tag, classes, has_price))
    return found


def _rail(blocks: list[Block], prefix: str, tag: str, classes: tuple[str, ...],
          has_price: set[int]) -> list[int]:
    """The blocks of the priced cards under ``prefix`` (elements of ``tag`` and ``classes``
    that hold a block below their own element), when they make a rail."""
    cards: dict[str, list[Block]] = defaultdict(list)
    for b in blocks:
        if b.xpath.startswith(prefix):
            step, _, below = b.xpath[len(prefix):].partition("/")
            up = below.count("/") + 2  # the card's place in the block's ancestors, from the end
            if below and up <= len(b.ancestors):
                a = b.ancestors[-up]
                if a.tag == tag and a.classes == classes:
                    cards[step].append(b)
    priced = [card for card in cards.values()
              if sum(b.words for b in card if b.is_content) <= MAX_CARD_WORDS
              and any(b.index in has_price for b in card)]
    if len(priced) < MIN_CARDS or len(priced) < MIN_PRICED_SHARE * len(cards):
        return []
    return [b.index for card in priced for b in card]


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
