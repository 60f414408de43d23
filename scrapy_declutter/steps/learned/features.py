"""The feature matrix of a page's blocks for the learned classifier: one row per block.

The seeds' shallow-text features (Boilerpipe word counts and Kohlschütter text
density, the density filter's char density, CETR's tag count, jusText's stop
words, Dragnet's id/class tokens) describe one block; what tells a short
paragraph of the article from a short teaser in a sidebar is its context. So
every row also holds:

- the same features of the blocks one and two places before and after;
- structural hints: ``<nav>``, ``<header>``, ``<footer>``, ``<aside>``,
  ``<form>`` ancestors, and whether the block lies in an ``<article>``,
  ``<main>``, ``role=main`` or ``itemprop=articleBody`` element (found by
  XPath prefix, so it works beyond the nearest ancestors a Block keeps);
- id/class tokens as learned odds (how often blocks under that token were
  content in training), summarised over the block's ancestors;
- the text share, link density and block count of the block's parent,
  grandparent and great-grandparent (where the page's text concentrates),
  their share of the page's prose, and the dates and linked headings below
  them (headline lists carry one per item);
- where the block sits against the page's content region (``region``);
- datelines (short blocks with a date or a time), HTML shown as text
  (``<noscript>`` banners), and whether the block lies in a box of reader
  comments (``comments``);
- page-level figures: block count, word count, overlap with the page title,
  and the page-type probabilities (``pagetype``), so one model learns that a
  teaser list is the content of a listing and chrome beside an article.

Each column is gathered over all the blocks at once (one comprehension or
C call per column, the text searches once per page in ``text``), then
neighbour and group features are array operations: a loop computing every
column block by block cost three times as much. The columns are written in
place into one (blocks × features) array, several per NumPy call, rather than
kept by name and stacked: that glue was a hundred NumPy calls a page. The
columns taken as they are or by one division, and the neighbours' and page's
columns, are written in one C loop each (``columns.block_rows`` and
``tail_rows``) where the package was built with a compiler.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Mapping, NamedTuple

import numpy as np

from ...blocks import Ancestor, name_tokens, subtree_prefixes
from ...segment import in_reference_walk
from .columns import MatrixLayout, block_columns, block_rows, tail_rows, under_paths
from .comments import COMMENT_WORDS, PAGE_TAGS, name_comments
from .containers import CONTENT_CONTAINERS, container_paths
from .pagetype import PAGE_TYPES
from .region import REGION_NAMES, prose_words, region_columns, subtree_sums
from .text import text_columns

try:
    from . import _chains as _compiled
except ImportError:  # built without a compiler: ``_chains`` below, the reference
    _compiled = None

if TYPE_CHECKING:
    from ...page import Page

#: Ancestor tags that are strong structural hints, one flag each.
FLAG_TAGS = (
    "nav", "header", "footer", "aside", "form", "article", "main", "section",
    "li", "table", "a", "figure", "blockquote", "button", "label", "select",
)  # fmt: skip
_FLAG_BIT = {tag: 1 << i for i, tag in enumerate(FLAG_TAGS)}
#: The mask bit of an ancestor that is a box of reader comments.
_COMMENT_BIT = 1 << len(FLAG_TAGS)
#: The block element's own tag, one-hot over these groups (the rest is "other").
TAG_GROUPS = (
    ("h1",), ("h2", "h3"), ("h4", "h5", "h6"), ("p",), ("div",), ("li",), ("td", "th"),
    ("dt", "dd"), ("pre",), ("blockquote", "figcaption"), ("span", "a", "b", "strong", "em"),
    ("section", "article", "main"), ("header", "footer", "nav", "aside"),
)  # fmt: skip
_TAG_GROUP = {tag: i for i, group in enumerate(TAG_GROUPS) for tag in group}
#: Levels above the block element whose subtree's text is summarised.
GROUP_LEVELS = (1, 2, 3)
#: Neighbour offsets whose features are copied into the row.
OFFSETS = (-2, -1, 1, 2)
#: Id/class names and combinations whose odds a shared memo keeps (a few MB at most).
ODDS_MEMO_MAX = 20_000
_UNSEEN = object()

BASE_NAMES = [
    "log_words", "log_chars", "link_density", "text_density", "char_density",
    "log_markup", "log_tags", "stopword_density", "position", "words_before",
    "words_share", "words_rel_max", "punct_end", "title_share", "title_cover",
    "depth", "odds_own_max", "odds_own_min", "odds_anc_max", "odds_anc_min",
    "odds_near_mean", "odds_anc_sum", "is_heading", "capital_start", "digit_share",
    "chrome_phrase", "is_date", "in_comment", "markup_text",
]  # fmt: skip
#: Block fields read as they are, in the order ``page_features`` reads them.
NUMBER_FIELDS = (
    "words", "text_chars", "link_density", "text_density", "char_density",
    "markup_chars", "tag_count", "stopword_density", "position", "link_words",
)  # fmt: skip
#: What ``_chains`` reads from each block's ancestors, in the order it writes them.
CHAIN_FIELDS = ("mask", "odds_own_max", "odds_own_min", "odds_anc_max", "odds_anc_min",
                "odds_near_mean", "odds_anc_sum")
CONTEXT_NAMES = ["log_words", "link_density", "text_density", "odds_anc_min",
                 "odds_anc_max", "is_heading", "punct_end", "words_rel_max"]
PAGE_NAMES = ["page_log_blocks", "page_log_words", "page_link_density", "page_has_article",
              "page_has_main", "page_has_comment"]
#: What is summed over each subtree of ``GROUP_LEVELS``.
GROUP_SUMS = ("words_share", "link_density", "log_blocks", "prose_share", "log_dates",
              "log_linked_headings")
TYPE_NAMES = [f"type_{t}" for t in PAGE_TYPES]


#: The subtree-sum columns, level by level (built once: ``page_features`` reads them per page).
GROUP_NAMES = [f"up{level}_{what}" for level in GROUP_LEVELS for what in GROUP_SUMS]


#: The column of ``in_comment`` (the base names come first): read on every page by the
#: learned step, which would otherwise rebuild the two hundred names to find it.
IN_COMMENT = BASE_NAMES.index("in_comment")


def feature_names() -> list[str]:
    """Column names of the matrix ``page_features`` returns, in order."""
    names = list(BASE_NAMES)
    names += [f"anc_{t}" for t in FLAG_TAGS]
    names += ["tag_" + "_".join(g) for g in TAG_GROUPS]
    names += list(CONTENT_CONTAINERS)
    names += GROUP_NAMES
    names += REGION_NAMES
    for off in OFFSETS:
        names += [f"{n}@{off:+d}" for n in CONTEXT_NAMES]
    names += PAGE_NAMES
    names += TYPE_NAMES
    return names


def _own_odds(a: Ancestor, odds: Mapping[str, float], memo: dict) -> tuple[tuple | None, bool]:
    """Highest and lowest token odds of one element (None when no token has odds), and
    whether one of its names names a comment box (``comments.names_comments``).

    Worked out per id or class name and combined: names (``container``,
    ``row``, ``post``) recur across sites far more than their combinations,
    so ``memo`` keeps each name's answer beside the combinations'.
    """
    own = None
    named = False
    for name in (a.id, *a.classes):
        got = memo.get(name)
        if got is None:
            vals = [odds[t] for t in name_tokens(name) if t in odds]
            got = memo[name] = ((max(vals), min(vals)) if vals else None, name_comments(name))
        pair, comment = got
        named = named or comment
        if pair is not None:
            own = pair if own is None else (max(own[0], pair[0]), min(own[1], pair[1]))
    return own, named


def _chain(ancestors, odds, cache, memo):
    """Flags and odds summary of an ancestor chain, cached by its last record's id.

    Blocks of one parent share the chain above their own element, so the
    per-block cost is one cache hit plus the block's own element: the walk
    goes up only to the nearest ancestor already summarised.
    """
    hit = cache.get(id(ancestors[-1]))
    if hit is not None:
        return hit
    j = len(ancestors) - 1
    while j > 0 and id(ancestors[j - 1]) not in cache:
        j -= 1
    if j > 0:
        mask, hi, lo, total, _, _ = cache[id(ancestors[j - 1])]
    else:
        mask, hi, lo, total = 0, 0.0, 0.0, 0.0
    for a in ancestors[j:]:
        own_hi = own_lo = 0.0
        if a.id or a.classes:
            # Memoised by (id, classes): pages and sites repeat their class names.
            key = (a.id, a.classes)
            got = memo.get(key, _UNSEEN)  # one lookup: another thread may empty the memo
            if got is _UNSEEN:
                got = memo[key] = _own_odds(a, odds, memo)
            own, named = got
            if own is not None:
                own_hi, own_lo = own
                hi, lo, total = max(hi, own_hi), min(lo, own_lo), total + own_hi + own_lo
            if named and a.tag not in PAGE_TAGS:
                mask |= _COMMENT_BIT
        mask |= _FLAG_BIT.get(a.tag, 0)
        result = (mask, hi, lo, total, own_hi, own_lo)
        cache[id(a)] = result
    return result


def chain_columns(ancestry: list, odds: Mapping[str, float], memo: dict) -> np.ndarray:
    """The ``CHAIN_FIELDS`` of each block, from its ancestors (one row per block).

    The compiled ``_chains`` where the package was built with a compiler
    (a third of the time of the rest of the features before it), else (and inside
    ``segment.reference_walk()``) the pure-Python ``_chains``; the two give the same values.
    """
    if _compiled is None or in_reference_walk():
        return _chains(ancestry, odds, memo)
    return _compiled.chains(ancestry, odds, memo, _own_odds, _FLAG_BIT, _COMMENT_BIT, PAGE_TAGS,
                            COMMENT_WORDS, name_comments)


def _chains(ancestry: list, odds: Mapping[str, float], memo: dict) -> np.ndarray:
    """``chain_columns`` in Python: the reference of the compiled walk.

    The near mean averages the block element's own odds with its parent's,
    over those that have any.
    """
    cache: dict[int, tuple] = {}
    rows = []
    for ancestors in ancestry:
        if not ancestors:
            rows.append((0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
            continue
        # Chain above the block's own element, then the element itself.
        mask, hi, lo, total, own_hi, own_lo = _chain(ancestors, odds, cache, memo)
        parent = cache.get(id(ancestors[-2])) if len(ancestors) > 1 else None
        near = own_hi + own_lo
        count = 2 if own_hi or own_lo else 0
        if parent is not None and (parent[4] or parent[5]):
            near += parent[4] + parent[5]
            count += 2
        rows.append((mask, own_hi, own_lo, hi, lo, near / count if count else 0.0, total))
    return np.array(rows, dtype=np.float64)


class _Rows(NamedTuple):
    """Where ``page_features`` writes each part of ``feature_names()``: rows of its
    (features × blocks) work array."""

    width: int
    #: ``log_words``, ``words_before``, ``words_share``, ``words_rel_max``.
    words: list[int]
    odds: list[int]
    depth: int
    heading: int
    in_comment: int
    text: list[int]
    logged: list[int]
    plain: list[int]
    flags: int
    tags: int
    containers: int
    groups: list[int]
    region: int
    context: int
    sources: list[int]
    page: int


#: The text columns in the matrix, the block numbers taken as log(1 + x), and those taken as
#: they are.
_TEXT_NAMES = ("punct_end", "title_share", "title_cover", "capital_start", "digit_share",
               "chrome_phrase", "is_date", "markup_text")
_LOGGED = {"text_chars": "log_chars", "markup_chars": "log_markup", "tag_count": "log_tags"}
_PLAIN = ("link_density", "text_density", "char_density", "stopword_density", "position")
#: The counts ``block_rows`` and ``tail_rows`` fill the matrix by.
_LAYOUT = MatrixLayout(tuple(NUMBER_FIELDS.index(name) for name in _PLAIN), len(FLAG_TAGS),
                       _COMMENT_BIT, len(TAG_GROUPS), len(CONTENT_CONTAINERS), OFFSETS)


@lru_cache(maxsize=4)
def _rows(base: tuple[str, ...], context: tuple[str, ...], page: tuple[str, ...],
          levels: tuple[int, ...]) -> _Rows:
    """The ``_Rows`` of the column lists as they stand (a test reorders them)."""
    names = feature_names()
    at = {name: k for k, name in enumerate(names)}
    return _Rows(
        len(names), [at[name] for name in ("log_words", "words_before", "words_share", "words_rel_max")],
        [at[name] for name in CHAIN_FIELDS[1:]], at["depth"], at["is_heading"],
        at["in_comment"], [at[name] for name in _TEXT_NAMES], [at[name] for name in _LOGGED.values()],
        [at[name] for name in _PLAIN], at["anc_" + FLAG_TAGS[0]], at["tag_" + "_".join(TAG_GROUPS[0])],
        at[CONTENT_CONTAINERS[0]],
        [at[f"up{level}_{what}"] for level in levels for what in GROUP_SUMS],
        at[REGION_NAMES[0]], at[f"{context[0]}@{OFFSETS[0]:+d}"], [at[name] for name in context],
        at[page[0]],
    )


def page_features(
    page: "Page",
    odds: Mapping[str, float] | None = None,
    containers: dict[str, tuple[str, ...]] | None = None,
    memo: dict | None = None,
    page_type: np.ndarray | None = None,
) -> np.ndarray:
    """The (blocks × features) float32 matrix of a page; ``odds`` maps id/class tokens to log-odds.

    ``page_type`` holds the page's probability of each of ``PAGE_TYPES``
    (``pagetype``); without it those columns are 0.

    ``containers`` (from ``container_paths``) lets training compute the
    tree-dependent part once and drop the page's tree. ``memo`` keeps the
    odds of each id/class name and combination across pages scored with the same
    ``odds`` (the learned step keeps one per model): a site's pages, and
    many sites' themes, repeat their class names. It is emptied when it
    holds ``ODDS_MEMO_MAX`` names and combinations.
    """
    blocks = page.blocks
    n = len(blocks)
    if n == 0:
        return np.zeros((0, len(feature_names())), dtype=np.float32)
    odds = odds or {}
    if containers is None:
        containers = container_paths(page)
    present = [(k, subtree_prefixes(v)) for k, v in enumerate(containers.values()) if v]
    has_article = any(k == 0 for k, _ in present)
    has_main = any(k == 1 for k, _ in present)

    if memo is None:
        memo = {}
    elif len(memo) > ODDS_MEMO_MAX:
        memo.clear()
    # Each column in one pass over the blocks (a comprehension or one C call), then NumPy:
    # a loop doing all of them per block cost three times as much. Every column is written
    # as a contiguous row of one (features × blocks) float64 array, several at a time where
    # they share an operation, and the array is transposed into float32 once at the end.
    r = _rows(tuple(BASE_NAMES), tuple(CONTEXT_NAMES), tuple(PAGE_NAMES), tuple(GROUP_LEVELS))
    # Columns of a C-ordered (blocks × features) array, written row by row of its transpose:
    # the float32 copy at the end is then one contiguous cast.
    matrix = np.empty((n, r.width))
    out = matrix.T
    gathered = block_columns(blocks, NUMBER_FIELDS, _TAG_GROUP, GROUP_LEVELS)
    numbers = dict(zip(NUMBER_FIELDS, gathered.numbers.T))
    ancestry = gathered.ancestry
    chains = chain_columns(ancestry, odds, memo)
    words = numbers["words"].copy()
    link_words = numbers["link_words"].copy()
    total = words.sum() or 1.0
    block_rows(matrix, r, gathered, chains, words, total, _LAYOUT)
    for k, prefixes in present:
        out[r.containers + k] = under_paths(blocks, prefixes)
    link_density = numbers["link_density"]
    linked_heading = ((gathered.heading > 0) & (link_density > 0.5)).astype(np.float64)
    text = text_columns([b.text for b in blocks], words, page.title)
    out[r.text] = [text[name] for name in _TEXT_NAMES]
    out[r.logged] = np.log1p([numbers[name] for name in _LOGGED])
    np.log1p(words, out=out[r.words[0]])
    prose = prose_words(words, numbers["text_chars"], text["unspaced"] > 0, link_density)
    prose_total = prose.sum() or 1.0

    # Subtrees are told apart by their root's Ancestor record: segmentation
    # makes one per element, shared by every block below it. ``sums`` holds, per level,
    # the subtree's words, link words, prose, dates and linked headings, then its blocks.
    sums = subtree_sums(gathered.level_ids, words, link_words, prose, text["is_date"], linked_heading)
    groups = np.empty((len(GROUP_LEVELS), len(GROUP_SUMS), n))
    np.divide(sums[:, 0], total, out=groups[:, 0])
    np.divide(sums[:, 1], np.maximum(sums[:, 0], 1.0), out=groups[:, 1])
    np.log1p(sums[:, 5], out=groups[:, 2])
    np.divide(sums[:, 2], prose_total, out=groups[:, 3])
    np.log1p(sums[:, 3:5], out=groups[:, 4:6])
    out[r.groups] = groups.reshape(-1, n)
    out[r.region:r.region + len(REGION_NAMES)] = region_columns(blocks, prose, gathered.depth, ancestry).T

    per_page = {
        "page_log_blocks": math.log1p(n), "page_log_words": math.log1p(total),
        "page_link_density": link_words.sum() / total,
        "page_has_article": 1.0 if has_article else 0.0, "page_has_main": 1.0 if has_main else 0.0,
        "page_has_comment": float(out[r.in_comment].any()),
    }
    tail = np.zeros(r.width - r.page)
    tail[:len(PAGE_NAMES)] = [per_page[name] for name in PAGE_NAMES]
    if page_type is not None:
        tail[len(PAGE_NAMES):] = page_type
    tail_rows(matrix, r, tail, _LAYOUT)
    return matrix.astype(np.float32)

