"""Dragnet's three feature families over a page's blocks (seed 001).

- **Shallow text** (Kohlschütter et al.): word count, link density, text
  density, text/markup char density, stop-word density of the block and of its
  neighbours, since a content block's neighbours are usually content too.
- **id/class tokens**: programmers name their CSS classes and ids for what
  the box holds (``comment``, ``nav``, ``footer``). Each token carries a
  log-odds of content vs boilerplate learned from data; a block sums the odds
  of the tokens on its element and its ancestors, positive and negative parts
  apart (the seed's "id/class density"), plus the sum over the nearest few
  elements, where the telling names usually are.
- **CETR** (``cetr.py``): smoothed tag ratio, its smoothed derivative, and
  whether k-means puts the block outside the cluster nearest the origin.

The features that need no learned table are computed once per page
(``base_features``), so cross-validation can re-learn token odds per fold
without re-parsing anything. Shared by the ``dragnet`` step and its training
code; nothing here learns.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from ...blocks import Ancestor, Block, name_tokens
from .cetr import cetr_features

#: Elements, counted from the block's own, whose tokens form the "near" sum.
NEAR_ANCESTORS = 3
#: Tokens shorter than this carry no meaning (``a``, ``x``).
MIN_TOKEN_LENGTH = 2

SHALLOW_FEATURES = (
    "log_words", "link_density", "text_density", "char_density", "stopword_density",
    "prev_log_words", "prev_link_density", "prev_text_density",
    "next_log_words", "next_link_density", "next_text_density",
    "is_heading", "position",
)  # fmt: skip
CETR_FEATURES = ("cetr_log_ratio", "cetr_log_derivative", "cetr_content")
TOKEN_FEATURES = ("ic_positive", "ic_negative", "ic_near")
BASE_FEATURES = SHALLOW_FEATURES + CETR_FEATURES
FEATURE_NAMES = BASE_FEATURES + TOKEN_FEATURES

#: Runs of letters: the version-1 model's vocabulary cuts ``name_tokens``' tokens at digits.
_LETTERS = re.compile(r"[a-z]+")


def element_tokens(ancestor: Ancestor) -> set[str]:
    """Tokens of one element: its tag as ``<tag>``, each id/class name whole, and its word parts.

    ``post-content__body`` yields itself, ``post``, ``content`` and ``body``, so
    a learned ``content`` carries over to site-specific compounds. The word
    parts are ``blocks.name_tokens`` cut at digits, one-letter pieces dropped
    (``h2title`` gives ``title``): the vocabulary the shipped model's token
    odds were learned on. Retraining on plain ``name_tokens`` would drop the
    cut, with a new model version.
    """
    out = {f"<{ancestor.tag.lower()}>"}
    for name in (ancestor.id, *ancestor.classes):
        name = name.lower()
        if len(name) < MIN_TOKEN_LENGTH:
            continue
        out.add(name)
        for token in name_tokens(name):
            if token.isalpha():
                out.add(token)
            else:
                out.update(p for p in _LETTERS.findall(token) if len(p) >= MIN_TOKEN_LENGTH)
    return out


def block_tokens(
    block: Block, near: int = NEAR_ANCESTORS, memo: dict[int, frozenset[str]] | None = None
) -> tuple[frozenset[str], frozenset[str]]:
    """(tokens of the block's element and all kept ancestors, tokens of the nearest ``near``).

    ``memo`` caches each element's tokens by object identity: the blocks of a
    page share their Ancestor objects, so one page tokenises each element once.
    """
    memo = {} if memo is None else memo
    all_tokens: set[str] = set()
    near_tokens: set[str] = set()
    count = len(block.ancestors)
    for i, ancestor in enumerate(block.ancestors):
        toks = memo.get(id(ancestor))
        if toks is None:
            toks = memo[id(ancestor)] = frozenset(element_tokens(ancestor))
        all_tokens |= toks
        if i >= count - near:
            near_tokens |= toks
    return frozenset(all_tokens), frozenset(near_tokens)


def page_tokens(blocks: Sequence[Block]) -> list[tuple[frozenset[str], frozenset[str]]]:
    """``block_tokens`` of every block of a page; blocks with the same ancestors share the result."""
    memo: dict[int, frozenset[str]] = {}
    by_path: dict[tuple[int, ...], tuple[frozenset[str], frozenset[str]]] = {}
    out = []
    for b in blocks:
        key = tuple(map(id, b.ancestors))
        found = by_path.get(key)
        if found is None:
            found = by_path[key] = block_tokens(b, memo=memo)
        out.append(found)
    return out


#: What ``shallow_features`` reads from each block, in the order it writes them.
_OWN = ("log_words", "link_density", "text_density", "char_density", "stopword_density",
        "is_heading", "position")
#: Features also taken from the block before and the block after.
_NEIGHBOUR = ("log_words", "link_density", "text_density")


def _stack(columns: Mapping[str, np.ndarray], names: Sequence[str], n: int) -> np.ndarray:
    """The named columns side by side in ``names`` order, so no column rides on its position."""
    return np.column_stack([columns[name] for name in names]).reshape(n, len(names))


def shallow_features(blocks: Sequence[Block]) -> np.ndarray:
    """The Kohlschütter features of each block and its neighbours (zeros past the page edges)."""
    n = len(blocks)
    own = np.array(
        [
            (math.log1p(b.words), b.link_density, b.text_density, b.char_density,
             b.stopword_density, float(b.is_heading), b.position)
            for b in blocks
        ],
        dtype=float,
    ).reshape(n, len(_OWN))
    col = {name: own[:, k] for k, name in enumerate(_OWN)}
    edge = np.zeros(min(n, 1))
    for name in _NEIGHBOUR:
        col[f"prev_{name}"] = np.concatenate([edge, col[name][:-1]])
        col[f"next_{name}"] = np.concatenate([col[name][1:], edge])
    return _stack(col, SHALLOW_FEATURES, n)


def cetr_block_features(blocks: Sequence[Block]) -> np.ndarray:
    """log(1 + smoothed tag ratio), log(1 + smoothed derivative), and the k-means content flag."""
    cetr = cetr_features([b.text_chars for b in blocks], [b.tag_count for b in blocks])
    col = {
        "cetr_log_ratio": np.log1p(cetr.smoothed),
        "cetr_log_derivative": np.log1p(cetr.derivative),
        "cetr_content": cetr.content.astype(float),
    }
    return _stack(col, CETR_FEATURES, len(blocks))


def base_features(blocks: Sequence[Block]) -> np.ndarray:
    """Every feature that needs no learned table, in ``BASE_FEATURES`` order."""
    return np.hstack([shallow_features(blocks), cetr_block_features(blocks)])


def token_features(
    token_sets: Sequence[tuple[frozenset[str], frozenset[str]]], odds: Mapping[str, float]
) -> np.ndarray:
    """Per block: sum of positive odds, sum of negative odds (all tokens), sum of odds near the block.

    Summed with ``math.fsum``, which rounds the exact sum once: a frozenset of
    strings iterates in an order set by ``PYTHONHASHSEED``, and a plain float
    sum in that order made the scores differ in their last bits from one
    process to the next (collecting the values and one fsum per sum costs about
    what the plain sums did; sorting the tokens first costs a third more).
    """
    n = len(token_sets)
    pos_sums, neg_sums, near_sums = np.zeros(n), np.zeros(n), np.zeros(n)
    for i, (all_tokens, near_tokens) in enumerate(token_sets):
        pos: list[float] = []
        neg: list[float] = []
        near: list[float] = []
        for t in all_tokens:
            v = odds.get(t)
            if v is None:
                continue
            (pos if v > 0 else neg).append(v)
            if t in near_tokens:
                near.append(v)
        pos_sums[i], neg_sums[i], near_sums[i] = math.fsum(pos), math.fsum(neg), math.fsum(near)
    col = {"ic_positive": pos_sums, "ic_negative": neg_sums, "ic_near": near_sums}
    return _stack(col, TOKEN_FEATURES, n)


def page_features(blocks: Sequence[Block], odds: Mapping[str, float]) -> np.ndarray:
    """The full feature matrix of one page, in ``FEATURE_NAMES`` order."""
    return np.hstack([base_features(blocks), token_features(page_tokens(blocks), odds)])
