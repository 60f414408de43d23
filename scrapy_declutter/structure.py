"""Where a block sits in the document's structure: what the Markdown output needs.

The segmentation walk (``segment.segment``) is the only pass over the tree, so
it records, beside each block's text, the structure a reader sees: heading
level, list nesting and item numbers, table cells, preformatted code and
block quotes. A ``Structure`` is made once per structural element and shared
by every block inside it, so the walk pays for structure only where the page
has some. It is a tuple of plain scalars so that a compiled walk can build the
same record.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from lxml import etree


class Structure(NamedTuple):
    """The structural context of a block (zero/False/"" where it does not apply).

    ``item``, ``pre`` and ``table`` are running numbers, unique within a page,
    of the ``<li>``, ``<pre>`` and ``<table>`` the block is in: blocks that
    share one belong to the same list item, code block or table, which is how
    the Markdown renderer knows where an item starts and what to fence or
    tabulate together.
    """

    #: 1–6 inside ``<h1>``–``<h6>``.
    heading: int = 0
    #: Open ``<ul>``/``<ol>`` (``<menu>``, ``<dir>``) around the block.
    list_depth: int = 0
    #: The innermost list is ordered (``<ol>``).
    ordered: bool = False
    item: int = 0
    #: The item's number in its list (an ``<ol>``'s ``start`` honoured).
    number: int = 0
    #: ``<blockquote>`` depth.
    quote: int = 0
    pre: int = 0
    #: Language of the code block, from a class such as ``language-python``.
    language: str = ""
    table: int = 0
    #: Row and column of the cell in its table (-1: not in a cell).
    row: int = -1
    col: int = -1
    #: The cell is a ``<th>``.
    header: bool = False
    #: The cell spans several rows or columns (the table is not a plain grid).
    span: bool = False


PLAIN = Structure()

LIST_TAGS = frozenset(("ul", "ol", "menu", "dir"))
#: Tags whose end closes counters (``StructureTracker.leave``).
COUNTED_TAGS = LIST_TAGS | {"table"}
#: Block-level tags that change a block's structure; every other tag keeps its parent's.
STRUCTURE_TAGS = frozenset(
    "h1 h2 h3 h4 h5 h6 ul ol menu dir li blockquote pre table tr td th caption".split()
)
#: Class prefixes that name a code block's language (Prism, highlight.js, Sphinx, GitHub).
_LANGUAGE_PREFIXES = ("language-", "lang-", "highlight-source-", "highlight-", "brush:")
#: Values of those prefixes that name no language (Sphinx's ``highlight-default`` ...).
_NO_LANGUAGE = frozenset("default none text plain plaintext nohighlight notranslate".split())
#: What a permalink anchor shows: Sphinx's pilcrow, the section sign, hash and link icons.
PERMALINK_SIGNS = frozenset(("", "¶", "§", "#", "🔗", "⚓", "⚓︎", "∞"))


def has_span(el: etree._Element) -> bool:
    """Whether a cell spans several rows or columns (the table is not a plain grid)."""
    return spans(el.get("colspan"), el.get("rowspan"))


def spans(*values: str | None) -> bool:
    """``has_span`` from the ``colspan`` and ``rowspan`` values (the compiled walk reads
    them without making the element)."""
    return any(v is not None and v.strip() not in ("", "1", "0") for v in values)


def list_start(el: etree._Element) -> int:
    """The number of an ``<ol>``'s first item (its ``start``, 1 when absent or not a number)."""
    return start_number(el.get("start"))


def start_number(value: str | None) -> int:
    """``list_start`` from the ``start`` value."""
    try:
        return int(value or 1)
    except ValueError:
        return 1


def code_language(el: etree._Element, path: list[etree._Element]) -> str:
    """The language a ``<pre>`` block's classes name (its own, its ``<code>`` child's,
    then its parent's and grandparent's, where Sphinx and GitHub put it); "" if none."""
    first = el[0] if len(el) and el[0].tag == "code" else None
    return classes_language(tuple(node.get("class") for node in (el, first, *path[-2:-4:-1])
                                  if node is not None))


@lru_cache(maxsize=4096)
def classes_language(classes: tuple[str | None, ...]) -> str:
    """``code_language`` from those elements' ``class`` values, in that order (the compiled
    walk reads them without making the elements). Remembered: a site's code blocks repeat
    their classes."""
    for value in classes:
        for token in (value or "").lower().split():
            if not token.startswith(_LANGUAGE_PREFIXES):  # most tokens: one call, not five
                continue
            for prefix in _LANGUAGE_PREFIXES:
                if token.startswith(prefix):
                    language = token[len(prefix):]
                    if language and language not in _NO_LANGUAGE:
                        return language
    return ""


def is_permalink(el: etree._Element) -> bool:
    """Whether an ``<a>`` is a permalink sign beside a heading rather than text.

    Sphinx writes ``<a class="headerlink" href="#id">¶</a>`` into every
    heading; other generators use an ``aria-hidden`` icon anchor or a bare
    ``#``. Such an anchor points into the page (the caller checks that ``href``
    starts with ``#``) and shows no words: dropping it keeps "¶" out of headings.
    The compiled walk answers the two attribute tests itself (``_segment_rules.pxi``):
    a change here goes there too, and ``test_walk`` holds the two equal.
    """
    if el.get("aria-hidden") == "true" or "headerlink" in (el.get("class") or ""):
        return True
    return "".join(el.itertext()).strip() in PERMALINK_SIGNS


class StructureTracker:
    """The walk's structural state: running numbers and the open lists' and tables' counters."""

    __slots__ = ("serial", "lists", "tables")

    def __init__(self) -> None:
        self.serial = 0
        #: Per open list: [items so far, number of the first item].
        self.lists: list[list[int]] = []
        #: Per open table: [current row, current column].
        self.tables: list[list[int]] = []

    def enter(self, el: etree._Element, tag: str, parent: Structure,
              path: list[etree._Element]) -> Structure:
        """The structure inside ``el`` (a tag of ``STRUCTURE_TAGS``), given its parent's."""
        if tag in LIST_TAGS:
            ordered = tag == "ol"
            self.lists.append([0, list_start(el) if ordered else 1])
            return parent._replace(list_depth=parent.list_depth + 1, ordered=ordered)
        if tag == "li":
            self.serial += 1
            if self.lists:
                counts = self.lists[-1]
                counts[0] += 1
                number = counts[1] + counts[0] - 1
            else:  # a stray <li>: an item of an implied list
                number = 1
            return parent._replace(item=self.serial, number=number,
                                   list_depth=parent.list_depth or 1)
        if tag in ("td", "th"):
            if not self.tables:
                return parent
            cell = self.tables[-1]
            cell[0] = max(cell[0], 0)  # a cell outside any <tr> opens the first row
            cell[1] += 1
            return parent._replace(row=cell[0], col=cell[1], header=tag == "th", span=has_span(el))
        if tag == "tr":
            if not self.tables:
                return parent
            cell = self.tables[-1]
            cell[0] += 1
            cell[1] = -1
            return parent._replace(row=cell[0], col=-1, header=False, span=False)
        if tag == "table":
            self.serial += 1
            self.tables.append([-1, -1])
            return parent._replace(table=self.serial, row=-1, col=-1, header=False, span=False)
        if tag == "pre":
            self.serial += 1
            return parent._replace(pre=self.serial, language=code_language(el, path))
        if tag == "blockquote":
            return parent._replace(quote=parent.quote + 1)
        if tag == "caption":
            return parent._replace(row=-1, col=-1, header=False, span=False)
        return parent._replace(heading=int(tag[1]))  # h1–h6

    def leave(self, tag: str) -> None:
        """Close the counters ``enter`` opened for ``tag``."""
        if tag in LIST_TAGS:
            if self.lists:
                self.lists.pop()
        elif tag == "table" and self.tables:
            self.tables.pop()
