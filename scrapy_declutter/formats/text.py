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


def paragraphs(blocks: Sequence[Block]) -> list[tuple[int, str]]:
    """(index in ``blocks`` of its first block, text) of each paragraph of ``blocks``' text."""
    out: list[tuple[int, str]] = []
    last_pre = 0
    for i, b in enumerate(blocks):
        pre = b.structure.pre
        if pre and pre == last_pre:
            start, text = out[-1]
            out[-1] = (start, f"{text}\n{b.preformatted}")
        else:
            out.append((i, b.preformatted or b.text))
        last_pre = pre
    return out


def join_blocks(blocks: Sequence[Block]) -> str:
    """Clean text: one block per paragraph, paragraphs (and headings) separated by a
    blank line; code keeps its lines, and the blocks of one ``<pre>`` stay together."""
    return PARAGRAPH_BREAK.join(text for _, text in paragraphs(blocks))
