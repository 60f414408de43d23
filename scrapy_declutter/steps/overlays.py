"""Leave out the text of a box that opens over a product page: its policy or form is not the item's.

A shop page ships the boxes it may open over the item in its markup from the
start, hidden by the stylesheet until a click: the privacy policy behind a
footer link, a "report this listing" form, a newsletter sign-up. Their text
is prose, so a classifier that reads blocks keeps it, and a privacy policy
outweighs the item's own description many times over. The box names itself:
a ``<dialog>``, or an id or class token ``modal`` or ``dialog``. Its text is
left out where the page keeps text outside it, unless its names say it
shows the item's own details (``product-details-modal``: the description
opened full-screen).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..blocks import BOILERPLATE, Ancestor, Block, class_tokens
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: An element is an overlay box when its tag is ``dialog`` or its names hold one of these.
OVERLAY_TOKENS = frozenset({"modal", "dialog"})
#: ... unless its names also say it shows the item: then its text is the item's.
ITEM_TOKENS = frozenset({"product", "details", "description", "specifications", "specs", "spec",
                         "info", "information"})
#: The rule applies only where at least this many content words stay outside the boxes.
MIN_OUTSIDE_WORDS = 20
#: The page types whose overlays are left out (a product page's are its shop's chrome).
PAGE_TYPES = frozenset({"product"})
_UNSEEN = object()


def in_overlay(block: Block, memo: dict[Ancestor, bool | None] | None = None) -> bool:
    """Whether the block lies in an overlay box (its outermost one) that does not show the
    item; ``memo`` keeps each element's verdict for the page's other blocks."""
    memo = {} if memo is None else memo
    for a in block.ancestors:
        verdict = memo.get(a, _UNSEEN)
        if verdict is _UNSEEN:
            tokens = class_tokens(a.id, a.classes)
            overlay = a.tag == "dialog" or bool(OVERLAY_TOKENS & tokens)
            verdict = memo[a] = (not ITEM_TOKENS & tokens) if overlay else None
        if verdict is not None:
            return verdict
    return False


class Overlays(Step):
    """Label boilerplate the content blocks of a product page's overlay boxes (``in_overlay``)
    when ``MIN_OUTSIDE_WORDS`` content words or more lie outside them."""

    name = "overlays"

    def process(self, page: "Page") -> None:
        if page.page_type not in PAGE_TYPES:
            return
        memo: dict[Ancestor, bool | None] = {}
        inside = [b for b in page.blocks if b.is_content and in_overlay(b, memo)]
        if not inside:
            return
        outside = sum(b.words for b in page.blocks if b.is_content) - sum(b.words for b in inside)
        if outside < MIN_OUTSIDE_WORDS:
            return
        for b in inside:
            b.set_label(BOILERPLATE, min(b.score, 0.5), self.name)
