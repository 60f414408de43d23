"""Retrieval chunks: the clean text cut at its headings and at a target size.

A search index or a language model's retrieval store wants pieces of a page
that each say one thing and know where they sit. The chunks are cut from the
clean text itself (``text.paragraphs``), so joined with the paragraph break
they give ``Result.text`` back exactly, and each carries the path of headings
it sits under.

- A chunk starts at every heading the Markdown output shows as one
  (``markdown.heading_level``), so the two formats cut a page at the same
  places. A heading whose section holds nothing before its first subsection
  stays in the subsection's chunk: no chunk is a lone heading followed by a
  deeper one.
- Within a section, paragraphs are added while the chunk stays within
  ``words``; the next one starts a chunk under the same headings.
- A unit is never cut: a paragraph, a code block (one ``<pre>``), a list
  item (the innermost, with its paragraphs, code and tables), a table row
  (with the lists in its cells). A chunk is over ``words`` only when it
  holds one unit (with the headings that lead it) that is over on its own.
- ``headings`` is the path of headings above the chunk, outermost first,
  ending with the chunk's own leading heading: the page's headline first when
  the text starts with it (``title(in_text=true)``, ``DECLUTTER_TITLE_IN_TEXT``),
  as every later heading is below it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..blocks import Block
from .markdown import heading_level
from .text import PARAGRAPH_BREAK, paragraphs

#: Target size of a chunk in words (``DECLUTTER_CHUNK_WORDS``): a few paragraphs, under the
#: 512 tokens most embedding models read (300 English words are about 400 tokens).
CHUNK_WORDS = 300


@dataclass(frozen=True)
class Chunk:
    """A run of whole units of the clean text, with the headings it sits under."""

    #: Headings above the chunk, outermost first, its own leading heading last.
    headings: tuple[str, ...]
    text: str
    #: Words of ``text`` (whitespace-separated).
    words: int
    #: The content blocks the chunk's text comes from, in order.
    blocks: tuple[Block, ...]

    def as_dict(self) -> dict[str, Any]:
        """The chunk in plain JSON types, as it lands on items: headings, text, words."""
        return {"headings": list(self.headings), "text": self.text, "words": self.words}


@dataclass
class _Unit:
    """Paragraphs that are never cut apart: one paragraph, list item or table row."""

    texts: list[str]
    blocks: list[Block]
    words: int
    #: The Markdown heading level when the unit is a heading, else 0.
    level: int

    @property
    def heading(self) -> str:
        return self.texts[0]


def _together(a: Block, b: Block) -> bool:
    """Whether consecutive blocks lie in one list item or one table row (so a table inside
    an item stays in the item, and a list inside a cell in its row)."""
    sa, sb = a.structure, b.structure
    return bool(sa.item and sa.item == sb.item) or (
        sa.table > 0 and sa.row >= 0 and sa.table == sb.table and sa.row == sb.row)


def _units(blocks: Sequence[Block]) -> list[_Unit]:
    starts: list[int] = []
    texts = paragraphs(blocks, starts)
    ends = [*starts[1:], len(blocks)]
    units: list[_Unit] = []
    for start, end, text in zip(starts, ends, texts):
        words = len(text.split())
        if units and _together(units[-1].blocks[-1], blocks[start]):
            unit = units[-1]
            unit.texts.append(text)
            unit.blocks.extend(blocks[start:end])
            unit.words += words
        else:
            units.append(_Unit([text], list(blocks[start:end]), words, heading_level(blocks[start])))
    return units


class _Builder:
    """The chunks so far, the open one, and the headings in force."""

    def __init__(self, words: int) -> None:
        self.limit = words
        self.chunks: list[Chunk] = []
        self.path: list[tuple[int, str]] = []
        self.units: list[_Unit] = []
        #: Words of the open chunk.
        self.size = 0
        #: The open chunk holds only headings (its leading run) so far.
        self.only_headings = True
        self.headings: tuple[str, ...] = ()

    def close(self) -> None:
        if self.units:
            texts = [t for u in self.units for t in u.texts]
            self.chunks.append(Chunk(self.headings, PARAGRAPH_BREAK.join(texts), self.size,
                                     tuple(b for u in self.units for b in u.blocks)))
        self.units, self.size, self.only_headings = [], 0, True
        self.headings = tuple(text for _, text in self.path)

    def heading(self, unit: _Unit) -> None:
        # A heading opens a chunk, unless the open one holds only headings it is below.
        if not (self.units and self.only_headings and unit.level > self.path[-1][0]):
            self.close()
        while self.path and self.path[-1][0] >= unit.level:
            self.path.pop()
        self.path.append((unit.level, unit.heading))
        self.headings = tuple(text for _, text in self.path)
        self.add(unit)

    def body(self, unit: _Unit) -> None:
        if not self.only_headings and self.size + unit.words > self.limit:
            self.close()
        self.add(unit)
        self.only_headings = False

    def add(self, unit: _Unit) -> None:
        self.units.append(unit)
        self.size += unit.words


def split_chunks(blocks: Sequence[Block], words: int = CHUNK_WORDS) -> list[Chunk]:
    """The chunks of the clean text of ``blocks`` (the content blocks, in reading order),
    each within ``words`` unless it is one unit over that on its own (see the module
    docstring); ``words=0`` gives one unit a chunk."""
    if words < 0:
        raise ValueError(f"a chunk's size must be 0 words or more, not {words}")
    builder = _Builder(words)
    for unit in _units(blocks):
        if unit.level:
            builder.heading(unit)
        else:
            builder.body(unit)
    builder.close()
    return builder.chunks
