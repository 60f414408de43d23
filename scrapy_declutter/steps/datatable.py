"""Keep a data table that the content leads into: a standings or results page's table is its text.

A classifier scores a table's cells one by one: a cell of "26" or "Pts" has
nothing of prose, so a standings page kept its two intro lines and lost the
table they introduce. This step looks at each table whole: a grid of several
rows and columns of short cells, many of them numbers, that starts right
after content, is content too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..blocks import CONTENT, Block
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: A data grid has at least this many rows and columns.
MIN_ROWS = 5
MIN_COLUMNS = 3
#: Its cells are short (a team, a score), at least this share of them numbers.
MAX_CELL_WORDS = 12
MIN_NUMBER_SHARE = 0.3
#: Under this share of its words in links (a link grid is navigation).
MAX_LINK_DENSITY = 0.5
#: Content must come at most this many blocks before the table's first cell.
MAX_LEAD_GAP = 2
_NUMBER = re.compile(r"^[-+−–]?[\d.,:%/]*\d[\d.,:%/]*$")
#: A calendar (a blog's archive widget) is a grid of numbers under the days of the week.
_WEEKDAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday "
    "mon tue wed thu fri sat sun mo tu we th fr sa su m t w f s".split())
MIN_WEEKDAYS = 5


def is_data_grid(cells: list[Block]) -> bool:
    """Whether a table's cells form a grid of data: rows and columns enough, short cells,
    many numbers, few links, and not a calendar."""
    rows = {b.structure.row for b in cells}
    columns = max(b.structure.col for b in cells) + 1
    if len(rows) < MIN_ROWS or columns < MIN_COLUMNS:
        return False
    if any(b.words > MAX_CELL_WORDS or b.structure.heading or b.structure.pre for b in cells):
        return False
    words = sum(b.words for b in cells)
    if not words or sum(b.link_words for b in cells) > MAX_LINK_DENSITY * words:
        return False
    if sum(b.text.casefold().rstrip(".") in _WEEKDAYS for b in cells) >= MIN_WEEKDAYS:
        return False
    numbers = sum(bool(_NUMBER.match(b.text.replace(" ", ""))) for b in cells)
    return numbers >= MIN_NUMBER_SHARE * len(cells)


class DataTable(Step):
    """Label content a data grid (``is_data_grid``) whose cells the chain left out, when
    content comes right before it."""

    name = "datatable"

    def process(self, page: "Page") -> None:
        blocks = page.blocks
        i, n = 0, len(blocks)
        while i < n:
            table = blocks[i].structure.table
            if not table or blocks[i].structure.row < 0:
                i += 1
                continue
            j = i
            while j < n and blocks[j].structure.table == table and blocks[j].structure.row >= 0:
                j += 1
            cells = blocks[i:j]
            if (not any(b.is_content for b in cells)
                    and any(b.is_content for b in blocks[max(0, i - MAX_LEAD_GAP):i])
                    and is_data_grid(cells)):
                for b in cells:
                    b.set_label(CONTENT, max(b.score, 0.5), self.name)
            i = j
