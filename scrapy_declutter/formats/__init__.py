"""Output formats of the clean content, built from the labelled blocks alone.

* ``markdown`` — ``render_markdown``: headings, lists, tables, code and quotes
  from the structure each block carries (``structure``), with no second walk
  of the tree.

Below ``result`` (``Result.markdown`` calls it) and above ``blocks``: a format
reads blocks, never a Page or a Result.
"""

from .markdown import render_markdown

__all__ = ["render_markdown"]
