"""Markdown of the content blocks: headings, lists, tables, code and quotes kept.

Built from the labelled blocks alone (their text and ``Structure``), never
from the tree, so it costs no second walk and shows exactly what the labels
kept. The output is CommonMark with GitHub's tables:

- a heading block becomes ``#`` × its level;
- list items get ``-`` or their number, nested four spaces a level (the
  indent both CommonMark and Python-Markdown read as nesting); further blocks
  of the same item are indented under it;
- a table whose cells form a plain grid (no row or column spans, one block a
  cell, at least two columns) becomes a GitHub table, its first row the
  header; any other table degrades to one line of text per row
  (``cell | cell``), or to its blocks when its cells hold paragraphs;
- the blocks of one ``<pre>`` become one fenced code block with their
  newlines, the fence naming the language a class gave;
- block quotes are prefixed with ``>`` per level;
- the page's headline (``Result.headline``) comes first as a level-1 heading,
  whether or not the text starts with it (``steps.title``): the content's own
  heading of that text is then not repeated.

Text is escaped where Markdown would read it as syntax (``*``, backquotes,
leading ``#``/``-``/``1.``, HTML-looking ``<``), so the rendered page shows
the words the page showed. Links and images are optional.
"""

from __future__ import annotations

import re
from typing import Sequence
from urllib.parse import urljoin

from ..blocks import Block
from ..structure import PLAIN
from ..steps.title import titles_match

#: Characters Markdown reads as inline syntax: backslash, backquote, asterisk, a ``]``
#: that would close a link, ``<`` that would open HTML, ``_`` at a word's edge.
_INLINE_SPECIAL = re.compile(r"([\\`*]|\](?=[(\[:])|<(?=[A-Za-z/!?])|(?<!\w)_|_(?!\w))")
#: What makes a line a heading, quote, list item or rule when it starts a paragraph.
_LEADING_MARKER = re.compile(r"^(\s*)(?:([#>+\-=])|(\d+)([.)])(?=\s|$))")
_CELL_PIPE = re.compile(r"\|")
INDENT = "    "


def _escape_marker(m: re.Match[str]) -> str:
    if m.group(2):
        return f"{m.group(1)}\\{m.group(2)}"
    return f"{m.group(1)}{m.group(3)}\\{m.group(4)}"


def escape(text: str, *, line_start: bool = False) -> str:
    """``text`` with the characters Markdown would read as syntax backslash-escaped;
    ``line_start``: the text starts a paragraph, so a leading ``#``, ``-``, ``1.`` ... too."""
    text = _INLINE_SPECIAL.sub(r"\\\1", text)
    return _LEADING_MARKER.sub(_escape_marker, text, count=1) if line_start else text


def heading_level(block: Block) -> int:
    """The level of the Markdown heading the block becomes, 0 when it becomes none: a
    heading inside a list item or a table cell stays that item's or cell's text."""
    s = block.structure
    return s.heading if s.heading and not s.list_depth and s.row < 0 else 0


def _url(href: str, base_url: str | None) -> str:
    url = urljoin(base_url, href) if base_url else href
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def _inline(block: Block, base_url: str | None, links: bool, images: bool,
            line_start: bool) -> str:
    """The block's text as Markdown inline content, with its links and images if asked;
    ``line_start``: the text begins a paragraph (see ``escape``)."""
    text = block.text
    if not (links and block.links):
        out = escape(text, line_start=line_start)
    else:
        pieces, cursor = [], 0
        for anchor, href in block.links:
            at = text.find(anchor, cursor)
            if at < 0 or href.startswith(("javascript:", "#")):
                continue
            pieces.append(escape(text[cursor:at], line_start=line_start and not cursor))
            pieces.append(f"[{escape(anchor)}]({_url(href, base_url)})")
            cursor = at + len(anchor)
        pieces.append(escape(text[cursor:]))
        out = "".join(pieces)
    if images and block.images:
        pics = " ".join(f"![{escape(alt)}]({_url(src, base_url)})" for alt, src in block.images)
        out = f"{pics}\n{out}"
    return out


def _fence(code: str, language: str) -> list[str]:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, *code.split("\n"), fence]


def _cell(block_texts: list[str]) -> str:
    return _CELL_PIPE.sub(r"\\|", " ".join(block_texts))


def _table_chunks(run: list[Block], render) -> list[tuple[Block, list[str]]]:
    """A run of one table's blocks as a GitHub table, or degraded to text rows.

    Returns (block, lines) chunks, the block being the one whose list and
    quote context the chunk takes; ``render`` renders one block on its own.
    """
    grid: dict[int, dict[int, list[Block]]] = {}
    for b in run:
        s = b.structure
        grid.setdefault(s.row, {}).setdefault(s.col, []).append(b)
    simple_cells = [len(cell) == 1 and not cell[0].structure.pre
                    and cell[0].structure.list_depth == run[0].structure.list_depth
                    for row in grid.values() for cell in row.values()]
    if all(simple_cells) and not any(b.structure.span for b in run) and max(map(len, grid.values())) >= 2:
        width = max(max(row) for row in grid.values()) + 1
        lines = []
        for i, r in enumerate(sorted(grid)):
            row = grid[r]
            texts = [_cell([render(row[c][0], inline=True)]) if c in row else "" for c in range(width)]
            lines.append("| " + " | ".join(texts) + " |")
            if i == 0:
                lines.append("|" + "|".join(" --- " for _ in range(width)) + "|")
        return [(run[0], lines)]
    chunks: list[tuple[Block, list[str]]] = []
    for r in sorted(grid):
        row = grid[r]
        cells = [row[c] for c in sorted(row)]
        if all(len(cell) == 1 and not cell[0].structure.pre
               and cell[0].structure.list_depth == run[0].structure.list_depth for cell in cells):
            chunks.append((cells[0][0], [" | ".join(render(cell[0], inline=True) for cell in cells)]))
        else:
            chunks.extend((b, render(b)) for cell in cells for b in cell)
    return chunks


class _Renderer:
    def __init__(self, base_url: str | None, links: bool, images: bool) -> None:
        self.base_url, self.links, self.images = base_url, links, images

    def block(self, b: Block, inline: bool = False):
        """One block as Markdown lines, or (``inline``) as one line for a table row."""
        level = heading_level(b)
        text = _inline(b, self.base_url, self.links, self.images, not (inline or level))
        if inline:
            return text.replace("\n", " ")
        if level:
            return [f"{'#' * level} {text}"]
        return text.split("\n")

    def chunks(self, blocks: Sequence[Block]) -> list[tuple[Block, list[str]]]:
        """Content blocks grouped into Markdown chunks (code blocks and tables whole)."""
        out: list[tuple[Block, list[str]]] = []
        i, n = 0, len(blocks)
        while i < n:
            b = blocks[i]
            s = b.structure
            j = i + 1
            if s.pre:
                while j < n and blocks[j].structure.pre == s.pre:
                    j += 1
                code = "\n".join(x.preformatted or x.text for x in blocks[i:j])
                out.append((b, _fence(code, s.language)))
            elif s.table and s.row >= 0:
                while j < n and blocks[j].structure.table == s.table and blocks[j].structure.row >= 0:
                    j += 1
                out.extend(_table_chunks(list(blocks[i:j]), self.block))
            else:
                out.append((b, self.block(b)))
            i = j
        return out


def _prefix(b: Block, lines: list[str], new_item: bool) -> list[str]:
    """Indent a chunk for its list item and prefix it for its block quote."""
    s = b.structure
    if s.list_depth:
        outer = INDENT * (s.list_depth - 1)
        if new_item:
            marker = f"{s.number}. " if s.ordered else "- "
            lines = [outer + marker + lines[0]] + [outer + INDENT + ln if ln else ln for ln in lines[1:]]
        else:
            lines = [outer + INDENT + ln if ln else ln for ln in lines]
    if s.quote:
        mark = ">" * s.quote
        lines = [f"{mark} {ln}" if ln else mark for ln in lines]
    return lines


def _without_title(content: list[Block], title: str) -> list[Block]:
    """``content`` without its first heading when that heading is ``title``, which the
    Markdown puts first of all."""
    for i, b in enumerate(content):
        if heading_level(b):
            return content[:i] + content[i + 1:] if titles_match(b.text, title) else content
    return content


def render_markdown(blocks: Sequence[Block], *, title: str = "", base_url: str | None = None,
                    links: bool = False, images: bool = False) -> str:
    """Markdown of the content blocks among ``blocks`` (see the module docstring), starting
    with ``title`` as a level-1 heading when one is given.

    ``links``/``images`` add the blocks' links and images, their URLs resolved
    against ``base_url``.
    """
    content = [b for b in blocks if b.is_content]
    if title:
        content = _without_title(content, title)
    renderer = _Renderer(base_url, links, images)
    parts: list[str] = [f"# {escape(title)}"] if title else []
    last_item = 0
    last: Block | None = None
    for b, lines in renderer.chunks(content):
        s = b.structure
        new_item = bool(s.list_depth) and s.item != last_item
        lines = _prefix(b, lines, new_item)
        if parts:
            ls = last.structure if last is not None else PLAIN
            if new_item and ls.list_depth and parts[-1].count("\n") == 0:
                sep = "\n"  # a tight list: one item a line
            elif s.quote and ls.quote:
                sep = "\n" + ">" * min(s.quote, ls.quote) + "\n"
            else:
                sep = "\n\n"
            parts.append(sep)
        parts.append("\n".join(lines))
        last_item = s.item if s.list_depth else 0
        last = b
    return "".join(parts).strip("\n") + ("\n" if parts else "")
