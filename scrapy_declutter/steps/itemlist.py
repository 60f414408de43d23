"""Keep a listing's item list that the classifier left out: on a listing, the list is the text.

A listing or category page is mostly one list: the same small subtree (a
title, a line or two, a price or a date) repeated for every item. The
classifier scores each block on its own, and an item's short lines look
like the chrome of any page, so on some listings every item scores just
under the cut and the page keeps its intro, or nothing (a jobs board came
out empty). The list gives itself away by its shape: many sibling elements
of one tag under one parent, each holding a few blocks and several words,
together holding much of the page's text. Where the page-type classifier
gives such a page a fair chance of being a listing or a collection, the
list is mostly left out, and its blocks still score fairly on average,
the list is content.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING, NamedTuple

from ..blocks import COMMENT, CONTENT, Block
from . import Step
from .learned.step import TYPE_PROBABILITIES

if TYPE_CHECKING:
    from ..page import Page

#: The page types whose content is a list of items, and the probability the page-type
#: classifier must give them together (a jobs board it calls an article at 0.68 still
#: has 0.23 of being a listing).
LIST_TYPES = ("listing", "collection")
MIN_TYPE_PROBABILITY = 0.2
#: An item list has at least this many items, each of at most this many blocks and words
#: (a record, not a section of the page) ...
MIN_ITEMS = 5
MAX_ITEM_BLOCKS = 15
MAX_ITEM_WORDS = 150
#: ... of this many words on average (a menu's items are a word or two).
MIN_MEAN_ITEM_WORDS = 6
#: The largest such list is the page's when it holds this share of the page's words,
#: ...
MIN_PAGE_SHARE = 0.3
#: ... is kept when less than this share of its words was kept, the text kept outside it
#: is under this share of its words (the page lost its list, not an archive beside its
#: articles: an Indymedia topic page kept its 959 words of stories, not the 1,417 of its
#: headline archive) and its blocks' mean probability (weighted by words) reaches this;
#: then its blocks of at least this probability are kept.
MAX_KEPT_SHARE = 0.5
MAX_KEPT_OUTSIDE = 0.5
MIN_MEAN_PROBABILITY = 0.25
MIN_BLOCK_PROBABILITY = 0.1
#: A step of a block's XPath that is one of several same-tag siblings: ``/tag[position]``
#: (a scan of the whole path in C: a page's blocks hold tens of thousands of steps).
_SIBLING = re.compile(r"/([^/\[]+)\[(\d+)\](?=/|$)")


class ItemList(NamedTuple):
    """A run of sibling elements of one tag under one parent, and the blocks of each."""

    parent: str
    tag: str
    items: list[list[Block]]

    @property
    def words(self) -> int:
        return sum(b.words for item in self.items for b in item)

    @property
    def blocks(self) -> list[Block]:
        return [b for item in self.items for b in item]


def item_lists(blocks: list[Block]) -> list[ItemList]:
    """Every run of sibling elements (same parent, same tag) that has the shape of an item
    list: ``MIN_ITEMS`` items or more with words, each of few blocks and words, several
    words an item on average."""
    found: dict[tuple[str, str], dict[str, list[Block]]] = defaultdict(lambda: defaultdict(list))
    for b in blocks:
        if b.words:
            xpath = b.xpath
            for step in _SIBLING.finditer(xpath):
                found[xpath[:step.start()], step[1]][step[2]].append(b)
    lists = []
    for (parent, tag), by_position in found.items():
        if len(by_position) < MIN_ITEMS:
            continue
        items = list(by_position.values())
        words = [sum(b.words for b in item) for item in items]
        if (max(map(len, items)) <= MAX_ITEM_BLOCKS and max(words) <= MAX_ITEM_WORDS
                and sum(words) >= MIN_MEAN_ITEM_WORDS * len(items)):
            lists.append(ItemList(parent, tag, items))
    return lists


def listing_probability(page: "Page") -> float:
    """How likely the page-type classifier finds the page a listing or a collection
    (0 when the chain has none)."""
    types = page.get(TYPE_PROBABILITIES) or {}
    return sum(types.get(t, 0.0) for t in LIST_TYPES)


class MainList(Step):
    """Label content the blocks of a page's main item list (the largest ``item_lists``
    one, holding ``MIN_PAGE_SHARE`` of its words) when the page may be a listing, the
    chain left most of the list out and kept little else, and the list's blocks score
    ``MIN_MEAN_PROBABILITY`` on average."""

    name = "itemlist"

    def process(self, page: "Page") -> None:
        if listing_probability(page) < MIN_TYPE_PROBABILITY:
            return
        lists = item_lists(page.blocks)
        if not lists:
            return
        main = max(lists, key=lambda found: found.words)
        words = main.words
        if words < MIN_PAGE_SHARE * sum(b.words for b in page.blocks):
            return
        blocks = main.blocks
        kept = sum(b.words for b in blocks if b.is_content)
        if kept >= MAX_KEPT_SHARE * words:
            return
        if sum(b.words for b in page.blocks if b.is_content) - kept >= MAX_KEPT_OUTSIDE * words:
            return
        if sum(b.words * b.score for b in blocks) < MIN_MEAN_PROBABILITY * words:
            return
        for b in blocks:
            if not b.is_content and b.label != COMMENT and not b.hidden and b.score >= MIN_BLOCK_PROBABILITY:
                b.set_label(CONTENT, b.score, self.name)
