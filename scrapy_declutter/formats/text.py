"""The plain clean text: what the metric scores and ``clean_text`` holds.

One paragraph per content block, separated by a blank line; the blocks of one
``<pre>`` stay one paragraph, joined by their newlines. ``paragraphs`` gives
the paragraphs with the block each starts at, so that the retrieval chunks
(``chunks``) are cut from exactly this text and join back into it.
"""

from __future__ import annotations

from typing import Sequence

from ..blocks import Block

#: What separates two paragraphs of the clean text.
PARAGRAPH_BREAK = "\n\n"


def paragraphs(blocks: Sequence[Block], starts: list[int] | None = None) -> list[str]:
    """The paragraphs of ``blocks``' text; with ``starts``, the index in ``blocks`` of
    each paragraph's first block is appended to it (the chunks read them; the text,
    built for every page, pays for no index)."""
    out: list[str] = []
    last_pre = 0
    for i, b in enumerate(blocks):
        pre = b.structure.pre
        if pre and pre == last_pre:
            out[-1] = f"{out[-1]}\n{b.preformatted}"
        else:
            out.append(b.preformatted or b.text)
            if starts is not None:
                starts.append(i)
        last_pre = pre
    return out


def join_blocks(blocks: Sequence[Block]) -> str:
    """Clean text: one block per paragraph, paragraphs (and headings) separated by a
    blank line; code keeps its lines, and the blocks of one ``<pre>`` stay together."""
    return PARAGRAPH_BREAK.join(paragraphs(blocks))
