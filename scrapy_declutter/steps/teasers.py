"""Drop a headline river: teasers of other stories, each a linked headline over "CITY: first sentence…".

A news page may set its article among lists of other stories, each a linked
headline and the first sentence of that story with its dateline. Every
teaser reads like the opening of an article, because it is one, so a
classifier that scores blocks keeps them. The pairs give them away: a block
that is all link, then a summary that opens with a dateline. Where a page
has several such pairs, they are teasers, not its text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..blocks import BOILERPLATE
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: A dateline: a place in capitals (with a region and an agency, if given) and a colon or dash.
DATELINE = re.compile(r"^[A-Z][A-Z.'’-]+(?: [A-Z][A-Z.'’-]+)*(?:, [A-Z][\w.]+(?: [A-Z][\w.]+)*)?"
                      r"(?: \([A-Za-z ]+\))? ?[:—–-] ")
#: A teaser's headline is nearly all link, and short.
MIN_HEADLINE_LINK_DENSITY = 0.9
MAX_HEADLINE_WORDS = 25
#: Fewer pairs than this on a page may be the article's own (a "read more" box).
MIN_TEASERS = 3
#: The page types where teasers are not the content, as they are on a listing ("" when the
#: chain has no page-type classifier).
ARTICLE_TYPES = frozenset({"article", ""})


class Teasers(Step):
    """Label boilerplate the teaser pairs (linked headline, datelined summary) of an article
    page that has at least ``MIN_TEASERS`` of them."""

    name = "teasers"

    def process(self, page: "Page") -> None:
        if page.page_type not in ARTICLE_TYPES:
            return
        blocks = page.blocks
        pairs = [(head, summary) for head, summary in zip(blocks, blocks[1:])
                 if head.link_density >= MIN_HEADLINE_LINK_DENSITY
                 and 0 < head.words <= MAX_HEADLINE_WORDS
                 and summary.link_density < MIN_HEADLINE_LINK_DENSITY
                 and DATELINE.match(summary.text)]
        if len(pairs) < MIN_TEASERS:
            return
        for pair in pairs:
            for b in pair:
                if b.is_content:
                    b.set_label(BOILERPLATE, min(b.score, 0.5), self.name)
