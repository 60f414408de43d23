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

``skip_wrappers`` (off by default, not in the paper): many current pages wrap
every paragraph in its own ``div > div > p``, which makes each paragraph's
grandparent a different wrapper, so the literal rule keeps one paragraph of
the article. With the option, climbing to an ancestor passes over elements
that have a single element child, so ``depth`` counts branching nodes. This
needs the lxml elements, resolved once per content block from its XPath.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lxml import etree

from ..blocks import BOILERPLATE, Block
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: The paper's paragraph tags.
PARAGRAPH_TAGS = frozenset(
    ["div", "table", "ul", "ol", "p", "section", "article", "h1", "h2", "h3", "h4", "h5", "h6", "header", "body"]
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


def _only_child_parent(el: etree._Element) -> bool:
    """Whether ``el`` is a wrapper: exactly one element child and a parent above it."""
    return el.getparent() is not None and sum(isinstance(c.tag, str) for c in el) == 1


def wrapper_group_key(block: Block, tree: etree._ElementTree, depth: int = DEFAULT_DEPTH) -> str:
    """Like :func:`group_key`, but single-child wrappers do not count as ancestor levels."""
    found = tree.xpath(block.xpath)
    if not found:  # the tree changed under us: fall back to the literal rule
        return group_key(block, depth)
    node = found[0]
    para = node
    while para is not None and not (isinstance(para.tag, str) and para.tag.lower() in PARAGRAPH_TAGS):
        para = para.getparent()
    node = para if para is not None else node
    for _ in range(depth):
        parent = node.getparent()
        if parent is None:
            break
        node = parent
        while _only_child_parent(node):
            node = node.getparent()
    return tree.getpath(node)


class TreeFilter(Step):
    """Keep only the content blocks under the single tree node that holds the most content text."""

    name = "tree"

    def __init__(self, *, depth: int = DEFAULT_DEPTH, skip_wrappers: bool = False) -> None:
        if depth < 0:
            raise ValueError(f"tree filter depth must be 0 or more, not {depth}")
        self.depth = depth
        self.skip_wrappers = skip_wrappers

    def groups(self, page: Page) -> dict[str, list[Block]]:
        """Content blocks by the ancestor that groups them, in document order."""
        out: dict[str, list[Block]] = {}
        tree = page.root.getroottree() if self.skip_wrappers else None
        for b in page.blocks:
            if b.is_content:
                key = wrapper_group_key(b, tree, self.depth) if tree else group_key(b, self.depth)
                out.setdefault(key, []).append(b)
        return out

    def process(self, page: Page) -> None:
        groups = self.groups(page)
        if len(groups) < 2:
            return
        # max() keeps the first of equal groups: ties go to the earlier one.
        best = max(groups.values(), key=lambda g: sum(b.text_chars for b in g))
        for group in groups.values():
            if group is not best:
                for b in group:
                    b.set_label(BOILERPLATE, 0.0, self.name)


def tree_chain(*, depth: int = DEFAULT_DEPTH, skip_wrappers: bool = False) -> list[Step]:
    """Extractor part ``tree`` / ``tree(depth=N, skip_wrappers=true)``: append after another extractor."""
    return [TreeFilter(depth=depth, skip_wrappers=skip_wrappers)]
