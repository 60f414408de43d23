"""Boilerpipe's TextDocument, as a view over a Page's Blocks.

Boilerpipe fuses blocks (``TextBlock.mergeNext``) and removes them from the
document (``BoilerplateBlockFilter``). Doing that to ``page.blocks`` would
destroy what every other step and the block-labels output need: one label per
original Block. So the Boilerpipe steps work on a separate list of
:class:`TextUnit` groups, kept in the page's slot ``VIEW``:

* a unit starts as one Block and grows when fusion merges its neighbour in;
  its features (words, anchor words, wrapped-line counts, block offsets, tag
  level) are summed exactly as ``mergeNext`` sums them;
* every member Block of a unit carries the unit's label, so a fused group
  shows up in the labels output as a run of Blocks with one decision;
* removal drops the unit from the view only; its Blocks stay in
  ``page.blocks``, labelled boilerplate;
* Boilerpipe's text labels (TITLE, INDICATES_END_OF_TEXT, MIGHT_BE_CONTENT)
  are *markers* on the unit, not labels: they never change a Block's label.

Java's filters return whether they changed the document; no chain here
loops on that flag (``Extractor.run`` runs every step, as Java's ``|`` does),
so the ports return nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from ...blocks import BOILERPLATE, CONTENT, Block
from ...page import Page, Slot

#: Boilerpipe's DefaultLabels that the ported filters use, as unit markers.
TITLE = "TITLE"
INDICATES_END_OF_TEXT = "INDICATES_END_OF_TEXT"
MIGHT_BE_CONTENT = "MIGHT_BE_CONTENT"


@dataclass(eq=False)
class TextUnit:
    """One Boilerpipe TextBlock: one Block, or a run of Blocks fusion merged."""

    members: list[Block]
    words: int
    link_words: int
    words_in_wrapped_lines: int
    wrapped_lines: int
    offset_start: int
    offset_end: int
    tag_level: int
    markers: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, block: Block) -> TextUnit:
        """The unit for a single Block, with Boilerpipe's counts taken from its features."""
        return cls(
            members=[block],
            words=block.words,
            link_words=block.link_words,
            words_in_wrapped_lines=round(block.text_density * block.wrapped_lines),
            wrapped_lines=max(1, block.wrapped_lines),
            offset_start=block.index,
            offset_end=block.index,
            tag_level=tag_level(block.xpath),
        )

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.members)

    @property
    def text_density(self) -> float:
        """Words per wrapped line (Kohlschütter), recomputed after every merge as Java does."""
        return self.words_in_wrapped_lines / self.wrapped_lines

    @property
    def link_density(self) -> float:
        return self.link_words / self.words if self.words else 0.0

    @property
    def is_content(self) -> bool:
        # Members share one label; ``any`` only matters if a foreign step
        # relabelled a single member in between.
        return any(b.is_content for b in self.members)

    def set_content(self, content: bool, step: str) -> None:
        """Label every member (``setIsContent``)."""
        label, score = (CONTENT, 1.0) if content else (BOILERPLATE, 0.0)
        for b in self.members:
            b.set_label(label, score, step)

    def merge_next(self, other: TextUnit, step: str) -> None:
        """Java ``mergeNext``: sum the counts, OR the content flags, unite the markers.

        Every member Block then carries the fused group's label.
        """
        content = self.is_content or other.is_content
        self.members.extend(other.members)
        self.words += other.words
        self.link_words += other.link_words
        self.words_in_wrapped_lines += other.words_in_wrapped_lines
        self.wrapped_lines += other.wrapped_lines
        self.offset_start = min(self.offset_start, other.offset_start)
        self.offset_end = max(self.offset_end, other.offset_end)
        self.tag_level = min(self.tag_level, other.tag_level)
        self.markers |= other.markers
        for b in self.members:
            if b.is_content != content:
                b.set_label(CONTENT if content else BOILERPLATE, float(content), step)


#: Boilerpipe's EMPTY_START / EMPTY_END: the neighbour of the first and last block
#: (no words, densities 0). Read-only: no step ever labels or merges it.
EMPTY = TextUnit([], 0, 0, 0, 1, -1, -1, 0)


@dataclass(eq=False)
class TextDocument:
    """The Boilerpipe view of one page: its title and the units still in play."""

    title: str
    units: list[TextUnit]

    def groups(self) -> list[list[int]]:
        """Block indexes of each remaining unit, for reports and tests."""
        return [[b.index for b in u.members] for u in self.units]


#: Where a page keeps its Boilerpipe view between the steps of a chain.
VIEW: Slot[TextDocument] = Slot("Boilerpipe view")


def document(page: Page) -> TextDocument:
    """The page's Boilerpipe view, built on first use from ``page.blocks``."""
    doc = page.get(VIEW)
    if doc is None:
        doc = TextDocument(page.title, [TextUnit.of(b) for b in page.blocks])
        page.put(VIEW, doc)
    return doc


def tag_level(xpath: str) -> int:
    """Depth of a block's element in the tree (Boilerpipe's ``tagLevel``), from its path."""
    return xpath.count("/")


def neighbours(units: list[TextUnit]) -> Iterator[tuple[TextUnit, TextUnit, TextUnit]]:
    """(previous, current, next) over the units, with the empty unit beyond each edge.

    The one prev/cur/next loop that BoilerPy3 copies into three classifiers.
    """
    n = len(units)
    for i, cur in enumerate(units):
        yield (units[i - 1] if i else EMPTY), cur, (units[i + 1] if i + 1 < n else EMPTY)
