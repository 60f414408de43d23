"""The tree filter of seed 004 (Viveros-Jiménez et al., 2018): Boilerpipe's precision mode.

On the blocks an upstream extractor kept as content:

1. find each block's *paragraph node*: the innermost element on its path
   whose tag is a paragraph tag (div, table, ul, ol, p, section, article,
   h1–h6, header, body);
2. take that node's ``depth``-th ancestor (1 = parent, 2 = grandparent, the
   paper's best setting);
3. group the blocks by that ancestor and keep the group with the most text
   (characters, the paper's measure); every other content block becomes
   boilerplate.

Elements are identified by the block's absolute XPath (``Block.xpath``):
the path of an ancestor is a prefix of it, so no tree walk is needed and the
lxml tree is never touched. Run it after any extractor:
``boilerpipe-article+tree`` or ``justext+tree(depth=1)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..blocks import BOILERPLATE, Block
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: The paper's paragraph tags.
PARAGRAPH_TAGS = frozenset(
    "div table ul ol p section article h1 h2 h3 h4 h5 h6 header body".split()
)
#: Which ancestor of the paragraph node groups blocks: 2, the grandparent, scored best.
DEFAULT_DEPTH = 2


def _tag(step: str) -> str:
    """``div[3]`` → ``div``; lxml writes ``*[n]`` for names it cannot spell, never a paragraph tag."""
    return step.split("[", 1)[0].lower()


def group_key(block: Block, depth: int = DEFAULT_DEPTH) -> str:
    """XPath of the ``depth``-th ancestor of the block's paragraph node.

    Without a paragraph tag on the path the block's own element stands in.
    The key never climbs above the root element.
    """
    steps = block.xpath.strip("/").split("/")
    para = len(steps) - 1
    while para >= 0 and _tag(steps[para]) not in PARAGRAPH_TAGS:
        para -= 1
    if para < 0:
        para = len(steps) - 1
    keep = max(1, para + 1 - depth)
    return "/" + "/".join(steps[:keep])


class TreeFilter(Step):
    """Keep only the content blocks under the single tree node that holds the most content text."""

    name = "tree"

    def __init__(self, *, depth: int = DEFAULT_DEPTH) -> None:
        if depth < 0:
            raise ValueError(f"tree filter depth must be 0 or more, not {depth}")
        self.depth = depth

    def groups(self, page: "Page") -> dict[str, list[Block]]:
        """Content blocks by the ancestor that groups them, in document order."""
        out: dict[str, list[Block]] = {}
        for b in page.blocks:
            if b.is_content:
                out.setdefault(group_key(b, self.depth), []).append(b)
        return out

    def process(self, page: "Page") -> bool:
        groups = self.groups(page)
        if len(groups) < 2:
            return False
        # max() keeps the first of equal groups: ties go to the earlier one.
        best = max(groups.values(), key=lambda g: sum(b.text_chars for b in g))
        changed = False
        for group in groups.values():
            if group is not best:
                for b in group:
                    changed |= b.set_label(BOILERPLATE, 0.0, self.name)
        return changed


def tree_chain(*, depth: int = DEFAULT_DEPTH) -> list[Step]:
    """Extractor part ``tree`` / ``tree(depth=N)``: append after another extractor."""
    return [TreeFilter(depth=depth)]
