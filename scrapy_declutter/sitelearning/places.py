"""A block's place in its page: the tag/id/class path from the root to its element.

Paths have no positions (``div[3]`` shifts with one more teaser) and are
normalised as fingerprints are. The structural template (``keyed_at``) is a
place and its text with names folded; the content container (``containers``) the
deepest named place holding most of the text the generic steps were sure of.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from ..blocks import Ancestor
from .fingerprints import HASH_MASK, fingerprint, hash_text, normalise, remembered

if TYPE_CHECKING:
    from ..blocks import Block

#: Marks the path of a block whose ancestors were cut at ``segment.MAX_ANCESTORS``: its
#: start is not the root, so it never matches a container learned from a whole path.
CUT = "~"
#: Blocks longer than this get no structural key: bylines, banners and counters are short,
#: and a site's body paragraphs would only fill its model with keys seen once.
STRUCTURE_MAX_CHARS = 300
#: Elements a container may be without an id or a class: alone, a bare ``div`` path
#: names every sibling ``div`` at that depth.
CONTAINER_TAGS = frozenset({"article", "main"})

#: A run of capitalised words right after a lower-case word: a name in "Posted on 3 May
#: by Jane Roe" or "filed under Town Council". Only after a lower-case word, so a title in
#: Title Case ("The Best Laptops For Students") keeps its words.
_NAMES = re.compile(r"(\b[a-z][\w'-]*\s+)[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_MIX = 0x9E3779B97F4A7C15  # odd 64-bit constant: mixes the path's hash into the text's


def describe(a: Ancestor) -> str:
    """``tag#id.class.class`` of one element, normalised (``div#post-0.entry``)."""
    if not a.id and not a.classes:  # most blocks' own element (p, li, td): no lookup
        return a.tag
    return _named(a)


_named = remembered(lambda a: normalise(a.selector), 4096)


class Places:
    """The paths of one page's blocks and of every element above them."""

    __slots__ = ("blocks", "_memo")

    def __init__(self, blocks: Sequence["Block"]) -> None:
        self.blocks = blocks
        self._memo: dict[int, str] = {}  # id(Ancestor) -> its element's path

    def path(self, index: int) -> str:
        """Block ``index``'s path (its own element last); starts with ``CUT`` if cut."""
        return self._path(self.blocks[index].ancestors)

    def _path(self, ancestors: tuple[Ancestor, ...]) -> str:
        """The path of the element ``ancestors`` ends with, memoised by element (a walk up
        stops at the nearest known one); a lineage cut at the root is never memoised."""
        memo = self._memo
        if not ancestors:
            return ""
        path = memo.get(id(ancestors[-1]))
        if path is not None:
            return path
        if ancestors[0].tag != "html":
            return f"{CUT}/{describe(ancestors[-1])}"
        path = memo.get(id(ancestors[-2]), "") if len(ancestors) > 1 else ""
        if path:  # the usual case: the parent's path is known
            path = memo[id(ancestors[-1])] = f"{path}/{describe(ancestors[-1])}"
            return path
        for a in ancestors:
            known = memo.get(id(a))
            path = memo[id(a)] = known if known is not None else f"{path}/{describe(a)}"
        return path

    def inside(self, index: int, container: str) -> bool | None:
        """Whether block ``index`` is in (or is) an element at ``container``; None: cannot tell."""
        path = self.path(index)
        if path.startswith(CUT):
            return None
        return path == container or path.startswith(container + "/")


def folded_hash(text: str) -> int:
    """Hash of the text with names folded too; 0 when it names nobody or is too long: its
    fingerprint then says all a structural key (the text at one place) could."""
    if len(text) > STRUCTURE_MAX_CHARS or text[1:].islower() or not _names_someone(text):
        return 0
    return _folded(text)


def names_someone(text: str) -> bool:
    """Whether ``_NAMES`` finds a name (the reference of ``_fingerprints.names_someone``)."""
    return _NAMES.search(text) is not None


def fold_names(text: str) -> str:
    """The text with each name ``<name>`` (the reference of ``_fingerprints.fold_names``)."""
    return _NAMES.sub(r"\1<name>", text)


try:
    from ._fingerprints import fold_names as _fold_names, names_someone as _names_someone
except ImportError:  # installed without a compiler
    _fold_names, _names_someone = fold_names, names_someone

_folded = remembered(lambda text: fingerprint(_fold_names(text)))


def keyed_at(path: str, folded: int) -> int:
    """The structural key of a block at ``path`` whose text's ``folded_hash`` is ``folded`` (not 0):
    its place and its text, names folded too."""
    return ((_path_hash(path) * _MIX) ^ folded) & HASH_MASK or 1


_path_hash = remembered(hash_text)


def containers(places: Places, weights: Sequence[int], *, share: float,
               min_total: int = 1) -> list[str]:
    """The places that name themselves (an id, a class, ``CONTAINER_TAGS``) whose subtree
    holds ``share`` of the ``weights``; none when they sum to under ``min_total``. Weights are
    summed per parent, then per element above: blocks share them, so each lineage is walked
    and each path looked up once."""
    total = sum(weights)
    if total < max(min_total, 1):
        return []
    per_parent: dict[int, list] = {}  # id(parent's Ancestor) -> [weight, a block's lineage]
    for i, w in enumerate(weights):
        ancestors = places.blocks[i].ancestors
        if w and len(ancestors) > 1 and ancestors[0].tag == "html":  # a cut lineage has no places
            per_parent.setdefault(id(ancestors[-2]), [0, ancestors])[0] += w
    per_element: dict[int, list] = {}  # id(Ancestor) -> [weight, its lineage]
    for w, ancestors in per_parent.values():
        for depth in range(len(ancestors) - 1):  # the block's own element is not one
            held = per_element.get(id(ancestors[depth]))
            if held is None:
                per_element[id(ancestors[depth])] = [w, ancestors[:depth + 1]]
            else:
                held[0] += w
    by_path: dict[str, int] = {}
    for w, lineage in per_element.values():
        path = places._path(lineage)
        by_path[path] = by_path.get(path, 0) + w
    out = []
    for path, chars in by_path.items():
        last = path.rsplit("/", 1)[-1]
        if chars >= share * total and ("#" in last or "." in last or last in CONTAINER_TAGS):
            out.append(path)
    return out
