"""Segmentation: the one walk of the parsed tree that makes a page's Blocks.

A block-level tag or a run of two or more ``<br>`` starts a new block, inline
tags stay inside it (the jusText seed's segmentation). Every feature of a
block is computed during this walk (Boilerpipe's
``TextBlock._init_densities``), along with the structure Markdown needs
(``structure``), so nothing else walks the tree again.

The walk is iterative, not recursive: a page nested 100,000 levels deep must
not exhaust Python's stack.

Two walks make the same Blocks: ``python_segment`` here, the reference, and
its compiled twin ``_segment`` (Cython over lxml's public C API, the tree
walked without the GIL), several times faster. ``segment`` is the one switch
between them: the compiled walk when it was built, else this one, with one
logged warning at import. ``reference_walk()`` makes ``segment`` take the
reference, so a check can compare the two through everything built on the
blocks (features, labels).
"""

from __future__ import annotations

import logging
import os
from bisect import bisect_right
from contextlib import contextmanager
from contextvars import ContextVar
from importlib import import_module
from itertools import accumulate
from types import ModuleType
from typing import Any, Iterator

from lxml import etree

from .blocks import Ancestor, Block, style_hides
from .structure import COUNTED_TAGS, PLAIN, STRUCTURE_TAGS, Structure, StructureTracker, is_permalink

#: Tags whose content a browser lays out as a box of its own.
BLOCK_TAGS = frozenset(
    """
    address article aside blockquote body caption center col colgroup dd details
    dialog dir div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6
    header hgroup hr html legend li main menu nav ol optgroup option p pre section
    select summary table tbody td textarea tfoot th thead title tr ul
    """.split()
)
#: Tags that are a box of their own when they hold text (``holds_text``), inline otherwise.
#:
#: A crawler runs no scripts, so it sees what a browser with scripts off
#: shows: ``<noscript>``'s fallback, which stands in for a scripted part of
#: the page (a notice that JavaScript is off, a tracking pixel, a copy of
#: the article), never words of the text around it. Text written straight
#: into it (often escaped markup, as a browser that ran scripts saves it:
#: ``<div class="mainBox"><noscript>&lt;div class="alertBox"&gt;...``) is
#: so a block with tag ``noscript``, which the learned step's
#: ``without_noscript`` sees; it used to be words of the enclosing ``div``'s
#: block, which that rule could not tell apart (Readability's yahoo-4 page
#: kept it: precision 0.14). A ``<noscript>`` without text (an image's
#: fallback for a lazy loader, a ``<style>``) stays inline: as a box it
#: would split the line around it ("4.6 | 3308 reviews") and take the
#: images it holds, and the one beside it, from the block they belong to.
TEXT_BOX_TAGS = frozenset({"noscript"})
#: Tags whose content is never visible text (``noframes``/``noembed`` hold raw
#: markup that lxml keeps as text). ``noscript`` is not one of them: what a
#: browser with scripts off shows is what a crawler sees, and some sites
#: (Discourse, Flarum forums) put their whole content there.
SKIP_TAGS = frozenset(
    "script style template svg iframe head object embed math noframes noembed".split()
)
#: How many of the nearest ancestors a block keeps (bounds memory on deep pages).
MAX_ANCESTORS = 16
#: Kohlschütter's line width for text density (Boilerpipe wraps at 80 columns).
WRAP_WIDTH = 80

def wrapped_lines(words: list[str], width: int = WRAP_WIDTH) -> tuple[int, int]:
    """Kohlschütter's wrapping: (words in full lines, number of lines) at ``width`` columns.

    As Boilerpipe does, the last, partial line is left out of the density when
    the text wraps, because its length says nothing about the block.

    Greedy wrapping breaks before word ``k`` of a line that starts at word
    ``s`` once ``k``'s end passes the width, so with prefix sums of word
    lengths each line end is one ``bisect``: the loop runs per line, not per
    word. (``_make_block`` skips the call for blocks that fit on one line.)
    """
    n = len(words)
    # Prefix sums of (word length + 1), all in C.
    ends = [0, *accumulate(map((1).__add__, map(len, words)))]
    start, lines = 0, 0
    while True:
        nxt = bisect_right(ends, ends[start] + width + 1, start + 2)
        if nxt > n:
            break
        start, lines = nxt - 1, lines + 1
    return (n, 1) if lines == 0 else (start, lines)


def _ancestor(el: etree._Element) -> Ancestor:
    cls = el.get("class") or ""
    return Ancestor(el.tag, el.get("id") or "", tuple(cls.split()))


def holds_text(el: etree._Element) -> bool:
    """Whether text other than whitespace lies inside ``el`` (not in its tail), outside
    ``SKIP_TAGS`` and comments: whether a tag of ``TEXT_BOX_TAGS`` is a box.

    Asked once per such element, before its content is walked; it stops at
    the first text, so a ``<noscript>`` holding a whole forum's posts costs
    one text node. Iterative, as the walk is.
    """
    text = el.text
    if text and not text.isspace():
        return True
    walker = etree.iterwalk(el, events=("start", "comment", "pi"))
    for event, node in walker:
        if node is el:
            continue
        tail = node.tail
        if tail and not tail.isspace():
            return True
        if event == "start":
            if node.tag in SKIP_TAGS:
                walker.skip_subtree()
                continue
            text = node.text
            if text and not text.isspace():
                return True
    return False


def segment(root: etree._Element) -> list[Block]:
    """Split a parsed page into Blocks in document order, in one walk of the tree.

    The compiled walk when it is built and the caller is not inside
    ``reference_walk()``; ``python_segment`` otherwise, and for the trees the
    compiled walk leaves to it (those an HTML parse never makes).
    """
    if COMPILED is not None and not _REFERENCE.get():
        blocks = COMPILED.segment(root)
        if blocks is not None:
            return blocks
    return python_segment(root)


@contextmanager
def reference_walk() -> Iterator[None]:
    """Inside this block (this thread or task only), ``segment`` takes the pure-Python walk,
    and the compiled parts of the learned step that ask ``in_reference_walk`` take their
    pure-Python references: a check compares the whole compiled path with Python's."""
    token = _REFERENCE.set(True)
    try:
        yield
    finally:
        _REFERENCE.reset(token)


def in_reference_walk() -> bool:
    """Whether the caller runs inside ``reference_walk()``."""
    return _REFERENCE.get()


def python_segment(root: etree._Element) -> list[Block]:
    """The reference walk: Blocks in document order, in one pass over the tree.

    lxml's ``iterwalk`` drives the walk from C; ``path`` holds the open
    elements, and their Ancestor records are made only when a block needs
    them. The block being built lives in local variables (``parts`` ...):
    this loop runs once per element of every crawled page.

    Block XPaths are the ones lxml's ``getpath`` writes, built instead from
    counts the walk keeps: ``nth`` holds each open element's position among
    its parent's children of the same tag, ``kids`` each open element's
    counts of its children's tags. A step gets its ``[n]`` when the parent
    has more than one child of that tag, which is known only once the parent
    closes, so the paths are written after the walk. ``getpath`` rebuilt
    each path from the root, counting siblings with ``snprintf`` at every
    level: a sixth of the walk's time.
    """
    tree = root.getroottree()
    blocks: list[Block] = []
    path: list[etree._Element] = []
    lineage: dict[etree._Element, tuple[Ancestor, ...]] = {}
    # Per element on a block's path, in the order met: its parent, its position
    # among same-tag siblings, the parent's tag counts. Parallel lists rather
    # than a tuple each: fewer objects for the garbage collector to walk.
    step_els: list[etree._Element] = []
    step_parents: list[Any] = []
    step_positions: list[int] = []
    step_counts: list[dict[str, int]] = []
    block_els: list[etree._Element] = []
    kids: list[dict[str, int]] = [{}]
    nth: list[int] = []
    # Open block-level elements with their depth in ``path`` and the structure
    # inside them: text always belongs to the innermost one.
    open_blocks: list[tuple[etree._Element, int, Structure]] = [(root, 1, PLAIN)]
    block_el, block_depth, structure = root, 1, PLAIN
    tracker = StructureTracker()
    parts: list[str] = []
    link_parts: list[str] = []
    # The block's links and images, made on the first one (most blocks have none).
    links: list[tuple[str, str]] | None = None
    images: list[tuple[str, str]] | None = None
    # The outermost open link: its href, the ``parts`` it writes into and where its text starts.
    link_href: str | None = None
    link_into: list[str] | None = None
    link_from = 0
    permalink: etree._Element | None = None  # the last permalink anchor met: its sign is no text
    has_text = False  # whether ``parts`` holds more than whitespace
    markup = tags = link_depth = br_run = 0

    def emit() -> None:
        raw = "".join(parts)
        words = raw.split()
        ancestors = lineage.get(block_el)
        if ancestors is None:  # blocks split by <br><br> or nested blocks share their element's
            # Extend the lineage of the nearest ancestor that has one (usually
            # the parent, shared by sibling blocks) instead of rebuilding it.
            j = block_depth - 1
            while j > 0 and path[j - 1] not in lineage:
                j -= 1
            ancestors = lineage[path[j - 1]] if j > 0 else ()
            for k in range(j, block_depth):
                el = path[k]
                ancestors = (*ancestors[1 - MAX_ANCESTORS :], _ancestor(el))
                lineage[el] = ancestors
                step_els.append(el)
                step_parents.append(path[k - 1] if k else None)
                step_positions.append(nth[k])
                step_counts.append(kids[k])
        block_els.append(block_el)
        block = _make_block(len(blocks), words, link_parts, block_el, markup, tags, ancestors)
        if structure is not PLAIN:
            block.structure = structure
            if structure.pre:
                block.preformatted = raw.strip("\n").rstrip()
        if links:
            block.links = tuple(links)
        if images:
            block.images = tuple(images)
        if block_el.get("hidden") is not None or style_hides(block_el.get("style")):
            block.hidden = True
        blocks.append(block)

    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if event == "start":
            tag = el.tag
            if tag in BLOCK_TAGS or (tag in TEXT_BOX_TAGS and holds_text(el)):
                path.append(el)
                if has_text:
                    emit()
                    images = None  # images of a block with no text go to the block inside it
                if tag in STRUCTURE_TAGS:
                    structure = tracker.enter(el, tag, structure, path)
                open_blocks.append((el, len(path), structure))
                parts, link_parts, links, has_text = [], [], None, False
                block_el, block_depth = el, len(path)
                markup = tags = br_run = 0
            elif tag in SKIP_TAGS:
                walker.skip_subtree()
                continue
            elif tag == "br":
                if structure.pre:  # a line break inside code, never a block boundary
                    parts.append("\n")
                    continue
                br_run += 1
                if br_run < 2:
                    parts.append(" ")
                else:
                    if has_text:
                        emit()
                    parts, link_parts, links, images, has_text = [], [], None, None, False
                    markup = tags = br_run = 0
                continue
            else:
                path.append(el)
                if tag == "a":
                    link_depth += 1
                    if link_depth == 1:
                        link_href = el.get("href")
                        if link_href and link_href[0] == "#" and is_permalink(el):
                            # Counted as markup like any link, but its sign is no text.
                            walker.skip_subtree()
                            link_href, permalink = None, el
                        link_into, link_from = parts, len(parts)
                elif tag == "img":
                    src = el.get("src") or el.get("data-src")
                    if src and not src.startswith("data:"):
                        if images is None:
                            images = []
                        images.append((el.get("alt") or "", src))
            counts = kids[-1]
            counts[tag] = n = counts.get(tag, 0) + 1
            nth.append(n)
            kids.append({})
            values = el.values()
            markup += 2 * len(tag) + 1
            if values:
                markup += len("".join(values)) + len("".join(el.keys())) + 4 * len(values)
            tags += 1
            text = None if el is permalink else el.text
        elif event == "end":
            tag = el.tag
            text = el.tail
            if tag in BLOCK_TAGS or (tag in TEXT_BOX_TAGS and open_blocks[-1][0] is el):
                if len(open_blocks) > 1:
                    if has_text:
                        emit()
                    parts, link_parts, links, images, has_text = [], [], None, None, False
                    open_blocks.pop()
                    block_el, block_depth, structure = open_blocks[-1]
                    markup = tags = br_run = 0
                    if tag in COUNTED_TAGS:
                        tracker.leave(tag)
            elif tag == "a":
                link_depth -= 1
                if link_depth == 0 and link_href and link_into is parts:
                    anchor = " ".join("".join(parts[link_from:]).split())
                    if anchor:
                        if links is None:
                            links = []
                        links.append((anchor, link_href))
            if tag not in SKIP_TAGS and tag != "br":  # those never went onto ``path``
                path.pop()
                nth.pop()
                kids.pop()
        else:  # comment or processing instruction: only its tail is page text
            text = el.tail
        if text:
            if not text.isspace():
                has_text = True
                br_run = 0
            parts.append(text)
            if link_depth:
                link_parts.append(text)
    if has_text:
        emit()
    xpaths: dict[etree._Element, str] = {}
    steps = zip(step_els, step_parents, step_positions, step_counts)
    for el, parent, position, counts in steps:  # parents come before children
        tag = el.tag
        if parent is None:
            xpaths[el] = tree.getpath(el)
        elif position == 1 and counts[tag] == 1:
            xpaths[el] = f"{xpaths[parent]}/{tag}"
        else:
            xpaths[el] = f"{xpaths[parent]}/{tag}[{position}]"
    n = len(blocks)
    for b, el in zip(blocks, block_els):
        b.position = b.index / n
        b.xpath = xpaths[el]
    return blocks


def _make_block(
    index: int,
    words: list[str],
    link_parts: list[str],
    el: etree._Element,
    markup: int,
    tags: int,
    ancestors: tuple[Ancestor, ...],
) -> Block:
    text = " ".join(words)
    n_words = len(words)
    link_words = min(len(" ".join(link_parts).split()), n_words) if link_parts else 0
    link_chars = len(" ".join("".join(link_parts).split())) if link_parts else 0
    text_chars = len(text)
    # A text no wider than a line is one line: most blocks need no wrapping at all.
    in_lines, lines = (n_words, 1) if text_chars <= WRAP_WIDTH else wrapped_lines(words)
    tag = el.tag
    # Positional, in field order: this runs once per block of every page.
    return Block(
        index, text, tag if isinstance(tag, str) else "html", "", ancestors,
        n_words, link_words, text_chars, markup, tags,
        link_words / n_words if n_words else 0.0,  # link_density
        in_lines / lines,  # text_density
        (text_chars + 1) / (text_chars + markup + 1),  # char_density
        lines, link_chars,
    )


#: Set in the environment of the crawl's worker processes (``integration.workers``), whose
#: crawl process has already said that the walk runs in pure Python.
FALLBACK_SAID = "SCRAPY_DECLUTTER_FALLBACK_SAID"


def _load_compiled() -> ModuleType | None:
    """The compiled walk, set up with this module's tags; None, said once, when it cannot load.

    Any failure to load a binary module (not built for want of a compiler,
    built for another Python, refused by the lxml installed) leaves the
    package working on the reference walk, only slower.
    """
    try:
        # By name: the import graph (import-linter, grimp) sees only .py modules and would
        # take a compiled one for the package itself; test_walk checks the .pyx's imports.
        _segment = import_module(f"{__package__}._segment")
    except Exception as exc:  # noqa: BLE001 - see the docstring
        if os.environ.get(FALLBACK_SAID):  # a worker process: the crawl process said it
            return None
        logger.warning("scrapy_declutter: the compiled segmentation walk is not available (%s: %s); "
                       "segmenting in pure Python, several times slower. Install with a C compiler "
                       "(or from a wheel) to build it.", type(exc).__name__, exc)
        return None
    _segment.configure(BLOCK_TAGS, SKIP_TAGS, TEXT_BOX_TAGS, MAX_ANCESTORS, WRAP_WIDTH)
    return _segment


logger = logging.getLogger(__name__)
_REFERENCE: ContextVar[bool] = ContextVar("scrapy_declutter_reference_walk", default=False)
#: The compiled walk (``scrapy_declutter._segment``), or None when the package runs on Python alone.
COMPILED = _load_compiled()
