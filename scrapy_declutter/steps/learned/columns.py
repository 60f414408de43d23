"""What the feature matrix reads from each block as it stands, gathered in one pass.

``features.page_features`` starts from the blocks' numbers (``NUMBER_FIELDS``),
their ancestor chains, their XPath depth, tag group and heading flag, and
the identity of their ancestors a few levels up (the subtrees whose sums
``region.subtree_sums`` takes). Gathered by comprehensions, that is a dozen
Python passes over the blocks; where the package was built with a compiler
``_columns`` makes them in one C loop writing into preallocated arrays.
``python_block_columns`` is the reference, and the fallback; the two give
the same arrays. The labels the step decides go back into the blocks the same
way: ``set_labels``, one C loop where built, else ``Block.set_label`` per block.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, NamedTuple, Sequence

import numpy as np

from ...blocks import HEADING_TAGS, Block
from ...segment import in_reference_walk

try:
    from . import _columns as _compiled
except ImportError:  # built without a compiler: ``python_block_columns``, the reference
    _compiled = None


class BlockColumns(NamedTuple):
    """The per-block inputs of the feature matrix (one entry or row per block)."""

    #: (blocks x the fields asked for), float64.
    numbers: np.ndarray
    #: Each block's ancestor chain (``Block.ancestors``).
    ancestry: list
    #: Steps in the block's XPath, float64.
    depth: np.ndarray
    #: Index of the block's tag in the groups asked for, -1 for none (intp).
    group: np.ndarray
    #: 1.0 for headings, float64.
    heading: np.ndarray
    #: (levels x blocks) ``id`` of the ancestor that many levels above the block's own
    #: element, 0 where the chain is shorter (uint64).
    level_ids: np.ndarray


def block_columns(blocks: Sequence[Block], fields: tuple[str, ...], tag_group: dict[str, int],
                  levels: tuple[int, ...]) -> BlockColumns:
    """The ``BlockColumns`` of a page's blocks: compiled where built (and outside
    ``segment.reference_walk()``), else ``python_block_columns``."""
    if _compiled is None or in_reference_walk() or not isinstance(blocks, list):
        return python_block_columns(blocks, fields, tag_group, levels)
    return BlockColumns(*_compiled.block_columns(blocks, fields, tag_group, HEADING_TAGS, levels))


def python_block_columns(blocks: Sequence[Block], fields: tuple[str, ...],
                         tag_group: dict[str, int], levels: tuple[int, ...]) -> BlockColumns:
    """``block_columns`` in Python: the reference of the compiled loop."""
    numbers = np.array(list(map(attrgetter(*fields), blocks)), dtype=np.float64)
    ancestry = [b.ancestors for b in blocks]
    tags = [b.tag for b in blocks]
    return BlockColumns(
        numbers.reshape(len(blocks), len(fields)), ancestry,
        np.array([b.xpath.count("/") for b in blocks], dtype=np.float64),
        np.array([tag_group.get(t, -1) for t in tags], dtype=np.intp),
        np.array([t in HEADING_TAGS for t in tags], dtype=np.float64),
        python_level_ids(ancestry, levels),
    )


def set_labels(blocks: Sequence[Block], labels: Sequence[str], scores: Sequence[float],
               step: str) -> None:
    """``block.set_label(label, score, step)`` for each block with its label and score.

    A page's blocks all take a label at once; a Python call of ``set_label``
    per block cost a tenth of the learned step after the features (about 300
    calls a page). ``_columns.set_labels`` makes the same writes (the first
    block of each label through ``set_label`` itself) in one C loop where the
    package was built with a compiler, outside ``segment.reference_walk()``;
    else this loop of calls runs, the reference.
    """
    if _compiled is None or in_reference_walk() or not isinstance(blocks, list):
        for block, label, score in zip(blocks, labels, scores, strict=True):
            block.set_label(label, score, step)
        return
    _compiled.set_labels(blocks, labels if isinstance(labels, list) else list(labels),
                         scores if isinstance(scores, list) else list(scores), step, Block)


def under_paths(blocks: Sequence[Block], prefixes: tuple[str, ...]) -> np.ndarray:
    """1.0 for each block whose XPath is one of some elements' or runs below one, 0.0 for
    the others: ``(block.xpath + "/").startswith(prefixes)``, with ``prefixes`` from
    ``blocks.subtree_prefixes``. One C loop over the blocks' XPaths, at their slots and
    without a string made per block, where the package was built with a compiler (and
    outside ``segment.reference_walk()``), else ``python_under_paths``."""
    if _compiled is None or in_reference_walk() or not isinstance(blocks, list):
        return python_under_paths(blocks, prefixes)
    return _compiled.under_paths(blocks, prefixes)


def python_under_paths(blocks: Sequence[Block], prefixes: tuple[str, ...]) -> np.ndarray:
    """``under_paths`` in Python: the reference of the compiled loop."""
    return np.array([(b.xpath + "/").startswith(prefixes) for b in blocks], dtype=np.float64)


def level_ids(ancestry: Sequence[Sequence[object]], levels: tuple[int, ...]) -> np.ndarray:
    """(levels × blocks) ``id`` of each block's ancestor that many levels up (0: none):
    the keys ``region.subtree_sums`` groups blocks by. One C loop where the package was
    built with a compiler (and outside ``segment.reference_walk()``), else
    ``python_level_ids``."""
    if _compiled is None or in_reference_walk() or not isinstance(ancestry, list):
        return python_level_ids(ancestry, levels)
    return _compiled.level_ids(ancestry, levels)


def python_level_ids(ancestry: Sequence[Sequence[object]], levels: tuple[int, ...]) -> np.ndarray:
    """``level_ids`` in Python: the reference of the compiled loop."""
    return np.array([[id(a[-1 - level]) if len(a) > level else 0 for a in ancestry]
                     for level in levels], dtype=np.uint64).reshape(len(levels), len(ancestry))


class MatrixLayout(NamedTuple):
    """What ``block_rows`` and ``tail_rows`` need to know of the feature matrix beyond
    where its columns lie (``features._Rows``): how many of each group there are."""

    #: Indices in ``BlockColumns.numbers`` of the fields copied as they are.
    plain_fields: tuple[int, ...]
    #: Flag bits of a chain's mask, one column each, and the bit of a comment box.
    n_flags: int
    comment_bit: int
    #: Tag groups (one-hot), content containers (zero until ``under_paths``).
    n_groups: int
    n_containers: int
    #: Neighbour offsets whose copies of the context columns follow, in order.
    offsets: tuple[int, ...]


def block_rows(matrix: np.ndarray, rows: Any, gathered: BlockColumns, chains: np.ndarray,
               words: np.ndarray, total: float, layout: MatrixLayout) -> None:
    """Write into the (blocks × features) ``matrix`` the columns its block columns and
    ancestor chains give as they are (odds, depth, tag one-hot, heading, plain numbers,
    the words' running and page shares, comment and tag flags), and zero the container
    and neighbour columns, at the places ``rows`` (``features._Rows``) names.

    A dozen NumPy calls a page, each a few microseconds on a few hundred blocks, in
    ``python_block_rows``, the reference; one C loop (``_columns.block_rows``) where
    the package was built with a compiler, outside ``segment.reference_walk()``: the
    same values to the bit (the same double operations, the running sum left to right
    as ``np.cumsum`` adds).
    """
    if _compiled is None or in_reference_walk():
        python_block_rows(matrix, rows, gathered, chains, words, total, layout)
        return
    _compiled.block_rows(matrix, chains, gathered.depth, gathered.group, gathered.heading,
                         gathered.numbers, words, total, rows, layout.plain_fields,
                         layout.n_flags, layout.comment_bit, layout.n_groups, layout.n_containers)


def python_block_rows(matrix: np.ndarray, rows: Any, gathered: BlockColumns, chains: np.ndarray,
                      words: np.ndarray, total: float, layout: MatrixLayout) -> None:
    """``block_rows`` in NumPy: the reference of the compiled loop."""
    out = matrix.T
    out[rows.containers:rows.containers + layout.n_containers] = 0.0
    out[rows.context:rows.page] = 0.0
    mask = chains[:, 0].astype(np.int64)
    out[rows.odds] = chains[:, 1:].T
    out[rows.depth] = gathered.depth
    out[rows.tags:rows.tags + layout.n_groups] = gathered.group == np.arange(layout.n_groups)[:, None]
    out[rows.heading] = gathered.heading
    out[rows.plain] = gathered.numbers.T[list(layout.plain_fields)]
    _, before, share, rel = rows.words
    np.divide(np.cumsum(words) - words, total, out=out[before])
    np.divide(words, total, out=out[share])
    np.divide(words, words.max() or 1.0, out=out[rel])
    out[rows.in_comment] = (mask & layout.comment_bit) > 0
    out[rows.flags:rows.flags + layout.n_flags] = (mask >> np.arange(layout.n_flags)[:, None]) & 1


def tail_rows(matrix: np.ndarray, rows: Any, page: np.ndarray, layout: MatrixLayout) -> None:
    """Write the neighbours' copies of the context columns (``rows.sources``; a block
    without a neighbour at an offset keeps its zeros there) and the page's own values
    (``page``, one per column from ``rows.page`` on, the same in every row): one C loop
    where built (outside ``segment.reference_walk()``), else ``python_tail_rows``."""
    if _compiled is None or in_reference_walk():
        python_tail_rows(matrix, rows, page, layout)
        return
    _compiled.tail_rows(matrix, np.array(rows.sources, dtype=np.intp), rows.context,
                        np.array(layout.offsets, dtype=np.intp), rows.page, page)


def python_tail_rows(matrix: np.ndarray, rows: Any, page: np.ndarray, layout: MatrixLayout) -> None:
    """``tail_rows`` in NumPy: the reference of the compiled loop."""
    out = matrix.T
    n = len(matrix)
    src = out[rows.sources]
    width = len(rows.sources)
    for k, off in enumerate(layout.offsets):
        at = slice(rows.context + k * width, rows.context + (k + 1) * width)
        if off < 0 and n > -off:
            out[at, -off:] = src[:, :off]
        elif off > 0 and n > off:
            out[at, :-off] = src[:, off:]
    out[rows.page:] = np.asarray(page, dtype=np.float64)[:, None]
