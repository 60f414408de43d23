"""The learned block classifier as a step: the package's default extractor.

Four small models, trained offline on six public data sets with
``scrapy-declutter train-model`` (see the README's "Default (learned)"),
run in turn on a page:

1. the page-type classifier reads page-level facts (``pagetype``) and gives
   the probability of each WCXB type; the most probable one becomes
   ``page.page_type``;
2. the block classifier scores every block from its text, structure,
   id/class-token, region and neighbour features plus those probabilities
   (``features``);
3. the second stage scores every block again from the same features and
   what the first said around it (``context``: its neighbours' and its
   ancestors' subtrees' probabilities); ``decide`` keeps the blocks at or
   above the cut, which is chosen per page type and per ``favor``;
4. among the blocks left out that sit in a box of reader comments, the
   comment model tells a comment's text (label ``comment``) from the
   thread's chrome (``comments``).

The model is a plain ``.npz`` data file evaluated with NumPy, loaded lazily
on the first page and then shared by every page and thread.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ...blocks import BOILERPLATE, COMMENT, CONTENT
from ...errors import UnknownExtractorError
from ...page import Slot
from .. import Step

if TYPE_CHECKING:
    from ...page import Page
    from .model import BlockModel
    from .pagetype import PageFacts

#: P(comment text) at or above which a block in a comment box is a comment.
COMMENT_THRESHOLD = 0.5
#: The page-type classifier's probability of each type (``pagetype.PAGE_TYPES``), for the
#: steps after this one that weigh more than the most probable type (``itemlist``).
TYPE_PROBABILITIES: Slot[dict[str, float]] = Slot("page-type probabilities")


class LearnedClassifier(Step):
    """Label blocks with the shipped (or a given) model.

    ``favor`` picks the model's cuts: ``"precision"`` leaves out more of what
    might be boilerplate, ``"recall"`` keeps more of what might be content;
    None takes the model's default (``"balanced"`` for the shipped one, the
    setting that measured best, see the README). ``include_comments`` keeps
    reader comments in the text (label ``content``); by default they are left
    out with the label ``comment``. Forum posts are content either way: on a
    forum page they are what the page is for. ``threshold`` overrides the
    cut for every page type. ``fallback=True`` cuts a page again lower when
    its cut collapses (``decide.collapsed``), ``False`` never; by default it does on
    the page types of ``decide.FALLBACK_TYPES`` (all but articles), and never with a
    ``threshold``: one cut, as asked. ``adapt`` is how far the cut moves towards
    the page's own split (``decide.page_cut``; ``decide.ADAPT`` by default, 0 for
    the per-type cut alone); with a ``threshold`` it does not move. ``min_chars``: a page
    (of ``decide.SMALL_PAGE`` words or more) that keeps fewer characters than this keeps
    none, as it has no main text (``decide.MIN_CHARS`` by default, 0 never).
    """

    name = "learned"

    def __init__(
        self,
        *,
        model: str | None = None,
        favor: str | None = None,
        include_comments: bool = False,
        threshold: float | None = None,
        smoothing: float | None = None,
        heading_floor: float | None = None,
        fallback: bool | None = None,
        adapt: float | None = None,
        min_chars: float | None = None,
    ) -> None:
        from .model import FAVORS

        if favor is not None and favor not in FAVORS:
            raise UnknownExtractorError(
                f"favor must be one of {', '.join(FAVORS)}, not {favor!r}")
        self.model = model
        self.favor = favor
        self.include_comments = bool(include_comments)
        self.threshold = threshold
        self.smoothing = smoothing
        self.heading_floor = heading_floor
        self.fallback = fallback
        self.adapt = adapt
        self.min_chars = min_chars

    def _model(self) -> "BlockModel":
        return _checked_model(self.model)

    def _param(self, model: "BlockModel", name: str, default: float) -> float:
        value = getattr(self, name)
        return float(model.meta.get(name, default) if value is None else value)

    def process(self, page: "Page") -> None:
        if not page.blocks:
            return
        from . import decide as d
        from .columns import set_labels
        from .features import IN_COMMENT
        from .pagetype import PAGE_TYPES

        model = self._model()
        types, X, probs = score_page(model, page)
        if types is not None:
            page.page_type = PAGE_TYPES[int(np.argmax(types))]
            page.page_type_probability = float(types.max())
            page.put(TYPE_PROBABILITIES, dict(zip(PAGE_TYPES, types.tolist())))
        favor = self.favor or model.meta.get("favor", "balanced")
        threshold = model.cut(favor, types) if self.threshold is None else self.threshold
        page_type = page.page_type if types is not None else ""
        fallback = None
        offset, adapt = 0.0, 0.0
        if self.threshold is None:
            # The favour's offset from the balanced cut (0 when balanced): the collapse
            # fallback and the page's own cut move with it as the cut does.
            offset = threshold - model.cut("balanced", types)
            adapt = self._param(model, "adapt", d.ADAPT)
            if page_type in d.FALLBACK_TYPES if self.fallback is None else self.fallback:
                fallback = offset
        keep = d.decide(
            page.blocks, probs, threshold=threshold,
            smoothing=self._param(model, "smoothing", d.SMOOTHING),
            heading_floor=self._param(model, "heading_floor", d.HEADING_FLOOR),
            fallback=fallback, page_type=page_type, adapt=adapt, favor_offset=offset,
            min_chars=self._param(model, "min_chars", d.MIN_CHARS),
        )
        # Python bools and floats (``tolist``): one conversion per page, not one per block.
        labels = [CONTENT if k else BOILERPLATE for k in keep.tolist()]
        if model.comments is not None:
            in_box = X[:, IN_COMMENT] > 0
            rows = np.flatnonzero(in_box & ~keep)
            if len(rows):
                said = model.comments.probabilities(X[rows]) >= COMMENT_THRESHOLD
                for i in rows[said]:
                    labels[i] = CONTENT if self.include_comments else COMMENT
        set_labels(page.blocks, labels, probs.tolist(), self.name)


class PageScores(NamedTuple):
    """What the model says about a page before any decision."""

    #: P(each page type), None when the model has no page-type classifier.
    types: np.ndarray | None
    #: The block feature matrix (blocks × ``features.feature_names()``).
    features: np.ndarray
    #: P(content) of each block.
    content: np.ndarray


def score_page(model: "BlockModel", page: "Page", *, facts: "PageFacts | None" = None,
               containers: dict[str, tuple[str, ...]] | None = None) -> PageScores:
    """Page-type probabilities, block features and P(content) of a page's blocks.

    ``facts`` and ``containers`` are read from the page's tree when not
    given (training computes them once, before it drops the tree).
    """
    from .containers import container_paths
    from .context import context_features
    from .features import page_features
    from .pagetype import PageFacts, page_vector, tree_scan

    scan = None
    if containers is None or (facts is None and model.page_types):
        try:  # one walk of the tree for both readers
            scan = tree_scan(page)
        except Exception:  # noqa: BLE001 - each reader then walks (and fails) on its own
            pass
    types = None
    if model.page_types:
        types = model.type_probabilities(page_vector(page, facts or PageFacts.of(page, scan)))
    if containers is None:
        containers = container_paths(page, scan)
    X = page_features(page, model.odds, containers, memo=model.odds_memo, page_type=types)
    probs = model.trees.probabilities(X)
    if model.second is not None:
        probs = model.second.probabilities(np.hstack([X, context_features(page.blocks, probs)]))
    return PageScores(types, X, probs)


@lru_cache(maxsize=8)
def _checked_model(path: str | None) -> "BlockModel":
    """The model at ``path`` (None: the shipped one), checked once against this version's features."""
    from ...errors import ModelError
    from .context import context_names
    from .features import feature_names
    from .model import REBUILD, cached_model
    from .pagetype import vector_names

    m = cached_model(path)
    if m.feature_names != feature_names() or (
            m.page_types and m.meta.get("type_vector_names") != vector_names()) or (
            m.second is not None and m.meta.get("context_names") != context_names()):
        raise ModelError(
            f"model {path or 'shipped'} was trained on other features than this version "
            f"computes; rebuild it with `{REBUILD}`"
        )
    return m
