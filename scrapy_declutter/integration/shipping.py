"""A worker process's Result, sent to the crawl process as plain tuples and rebuilt on demand.

A callback asks for its page's Result with ``result_for(response)``. With
worker processes (``DECLUTTER_PROCESSES``) the Result is made in a worker,
so the worker sends it back beside the item fields, and the crawl process
rebuilds its Blocks only when a callback asks (``handoff.PageOutput``).

What crosses the pipe is a ``ShippedResult``: tuples of strings and numbers
that the pool's pipe carries as it carries the item fields. Each block is
its fields in the constructor's order, with its ancestors and its structure
replaced by indices into two page-wide tables, so each element's Ancestor
and each Structure is sent once. Measured on WCXB pages (8.2 ms of CPU to
analyse one): packing costs the worker 1.7 ms a page with the pipe's
pickling, reading it costs the crawl process 0.9 ms, and the Blocks, built
only on demand, 2.2 ms more. Sending the Blocks' own values cost about the
same in the worker but 3.1 ms in the crawl process, where every Ancestor and
Structure was then rebuilt through its class. The parsed tree is not sent:
the crawl process has its own, parsed from the same body, and
``Result.metadata`` is read from it when asked for.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from ..blocks import Ancestor, Block, SiteReason
from ..result import Result, SiteDecisions
from ..structure import Structure

if TYPE_CHECKING:
    from lxml import etree

_NAMES = [f.name for f in fields(Block)]
_ANCESTORS, _STRUCTURE = _NAMES.index("ancestors"), _NAMES.index("structure")
#: A block's plain fields, read in three C calls: those before its ancestors, those
#: between its ancestors and its structure, and those after, up to ``site_reason`` (the last).
_BEFORE = attrgetter(*_NAMES[:_ANCESTORS])
_BETWEEN = attrgetter(*_NAMES[_ANCESTORS + 1:_STRUCTURE])
_AFTER = attrgetter(*_NAMES[_STRUCTURE + 1:-1])
#: The Result's fields sent as they are (``blocks``, ``site_learning`` and ``root`` apart).
_RESULT = ("text", "title", "url", "site", "language", "extractor", "reason", "page_type")
_RESULT_FIELDS = attrgetter(*_RESULT)


@dataclass(frozen=True)
class ShippedResult:
    """A Result as tuples of strings and numbers, without its tree (see the module docstring)."""

    #: The Result's own fields, in ``_RESULT``'s order.
    values: tuple[Any, ...]
    #: ``SiteDecisions`` as a tuple, or None.
    decisions: tuple[Any, ...] | None
    #: The page's distinct ancestors, each (tag, id, classes).
    ancestors: list[tuple[str, str, tuple[str, ...]]]
    #: The page's distinct ``Structure`` values, as tuples.
    structures: list[tuple[Any, ...]]
    #: Per block: fields before its ancestors, its ancestors' indices, fields up to its
    #: structure, its structure's index, the fields after, its site reason as a tuple or None.
    rows: list[tuple[Any, ...]]

    @classmethod
    def of(cls, result: Result) -> ShippedResult:
        # By identity, not value: the walk makes one Ancestor per element and one Structure
        # per structural element, shared by the blocks below them, and hashing those by
        # value cost more than the rest of a row. (Each block has a path of its own.)
        index: dict[int, int] = {}
        ancestors: list[Ancestor] = []
        structures: dict[int, tuple[int, Structure]] = {}
        rows = []
        for b in result.blocks:
            path = []
            for a in b.ancestors:
                i = index.get(id(a))
                if i is None:
                    i = index[id(a)] = len(ancestors)
                    ancestors.append(a)
                path.append(i)
            shape = structures.get(id(b.structure))
            if shape is None:
                shape = structures[id(b.structure)] = (len(structures), b.structure)
            reason = b.site_reason
            rows.append((_BEFORE(b), tuple(path), _BETWEEN(b), shape[0], _AFTER(b),
                         None if reason is None else astuple(reason)))
        decisions = result.site_learning
        return cls(_RESULT_FIELDS(result), None if decisions is None else astuple(decisions),
                   [tuple(a) for a in ancestors], [tuple(s) for _, s in structures.values()],
                   rows)

    def result(self, root: etree._Element | None) -> Result:
        """The Result, on ``root`` (the same page's tree, parsed in this process)."""
        ancestors = [Ancestor._make(a) for a in self.ancestors]
        shapes = [Structure._make(s) for s in self.structures]
        blocks = [Block(*before, tuple([ancestors[i] for i in path]), *between, shapes[s], *after,
                        None if reason is None else SiteReason(*reason))
                  for before, path, between, s, after, reason in self.rows]
        decisions = None if self.decisions is None else SiteDecisions(*self.decisions)
        return Result(blocks=blocks, root=root, site_learning=decisions,
                      **dict(zip(_RESULT, self.values)))
