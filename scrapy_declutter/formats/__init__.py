"""Output formats of the clean content, built from the labelled blocks alone.

* ``text`` — ``join_blocks``: the plain clean text, one paragraph a block.
* ``markdown`` — ``render_markdown``: headings, lists, tables, code and quotes
  from the structure each block carries (``structure``), with no second walk
  of the tree.
* ``chunks`` — ``split_chunks``: the clean text cut at its headings and at a
  target size, each chunk with its path of headings.

Below ``result`` (``Result.text``, ``.markdown`` and ``.chunks()`` call them)
and above ``blocks``: a format reads blocks, never a Page or a Result.
"""

from .chunks import CHUNK_WORDS, Chunk, split_chunks
from .markdown import render_markdown
from .text import join_blocks

__all__ = ["CHUNK_WORDS", "Chunk", "join_blocks", "render_markdown", "split_chunks"]
