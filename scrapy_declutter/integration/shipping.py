"""A worker process's Result as plain tuples (sent as JSON), rebuilt in the crawl process on demand.

With worker processes (``DECLUTTER_PROCESSES``) a page's Result is made in
a worker, which packs it (``output.PageOutput.of(..., pack=True)``); the
crawl process rebuilds its Blocks only when a callback reads
``response.declutter``. Each block is its fields in the constructor's
order, with its ancestors and its structure replaced by indices into two
page-wide tables of distinct values, so each (tag, id, classes) and each
Structure is sent once. The parsed tree is not sent: the crawl process has
its own, parsed from the same body, and ``Result.metadata`` is read from it
when asked for.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import orjson

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
_RESULT = ("text", "title", "url", "site", "language", "extractor", "reason", "page_type",
           "page_type_probability")
_RESULT_FIELDS = attrgetter(*_RESULT)


def _tuples(values: list[Any]) -> tuple[Any, ...]:
    """A row's plain fields, each list (a tuple of pairs before JSON) a tuple of tuples again."""
    return tuple(tuple(map(tuple, v)) if isinstance(v, list) else v for v in values)


class _Index(dict):  # type: ignore[type-arg]
    """Value -> its number in order of first sight: looked up from C (``map``), with Python
    run only for a value not seen before, a few hundred times a page against thousands."""

    def __missing__(self, key: Any) -> int:
        number = self[key] = len(self)
        return number


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
        ancestors, structures = _Index(), _Index()
        ancestor, structure = ancestors.__getitem__, structures.__getitem__
        rows = []
        for b in result.blocks:
            reason = b.site_reason
            rows.append((_BEFORE(b), tuple(map(ancestor, b.ancestors)), _BETWEEN(b),
                         structure(b.structure), _AFTER(b),
                         None if reason is None else astuple(reason)))
        decisions = result.site_learning
        return cls(_RESULT_FIELDS(result), None if decisions is None else astuple(decisions),
                   [tuple(a) for a in ancestors], [tuple(s) for s in structures], rows)

    def pack(self) -> bytes:
        """These tuples as JSON bytes: what a worker sends, decoded only if a callback asks."""
        # orjson, not json: a worker packs every page of a crawl.
        return orjson.dumps([self.values, self.decisions, self.ancestors, self.structures,
                             self.rows])

    @classmethod
    def unpack(cls, data: bytes) -> ShippedResult:
        """``pack`` undone: JSON's lists back into the tuples the fields hold (a block's
        only list-valued fields, ``trail``, ``links`` and ``images``, are tuples of pairs)."""
        values, decisions, ancestors, structures, rows = orjson.loads(data)
        return cls(tuple(values), None if decisions is None else tuple(decisions),
                   [(tag, id_, tuple(classes)) for tag, id_, classes in ancestors],
                   [tuple(s) for s in structures],
                   [(_tuples(before), tuple(path), _tuples(between), s, _tuples(after),
                     None if reason is None else tuple(reason))
                    for before, path, between, s, after, reason in rows])

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
