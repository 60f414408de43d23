"""The learned block classifier as a step: the package's default extractor.

A gradient-boosted tree ensemble, trained offline on WCXB (Murrough Foley,
2026, CC-BY-4.0) with ``scrapy-declutter train-model``, scores every block
from its shallow-text, structural, id/class-token and neighbour features
(``features``); ``decide`` turns the probabilities into
labels. The model is a plain ``.npz`` data file evaluated with NumPy, loaded
lazily on the first page and then shared by every page and thread.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ...blocks import BOILERPLATE, CONTENT
from .. import Step

if TYPE_CHECKING:
    from ...page import Page
    from .model import BlockModel


class LearnedClassifier(Step):
    """Label blocks with the shipped (or a given) tree-ensemble model.

    ``threshold``, ``smoothing`` and ``heading_floor`` default to the values
    stored in the model file, which were chosen by cross-validation with it.
    """

    name = "learned"

    def __init__(
        self,
        *,
        model: str | None = None,
        threshold: float | None = None,
        smoothing: float | None = None,
        heading_floor: float | None = None,
    ) -> None:
        self.model = model
        self.threshold = threshold
        self.smoothing = smoothing
        self.heading_floor = heading_floor

    def _model(self) -> "BlockModel":
        return _checked_model(self.model)

    def _param(self, model: "BlockModel", name: str, default: float) -> float:
        value = getattr(self, name)
        return float(model.meta.get(name, default) if value is None else value)

    def process(self, page: "Page") -> None:
        if not page.blocks:
            return
        from . import decide as d
        from .features import page_features

        model = self._model()
        probs = model.trees.probabilities(page_features(page, model.odds, memo=model.odds_memo))
        keep = d.decide(
            page.blocks, probs,
            threshold=self._param(model, "threshold", d.THRESHOLD),
            smoothing=self._param(model, "smoothing", d.SMOOTHING),
            heading_floor=self._param(model, "heading_floor", d.HEADING_FLOOR),
        )
        for block, k, p in zip(page.blocks, keep, probs):
            block.set_label(CONTENT if k else BOILERPLATE, float(p), self.name)


@lru_cache(maxsize=8)
def _checked_model(path: str | None) -> "BlockModel":
    """The model at ``path`` (None: the shipped one), checked once against this version's features."""
    from ...errors import ModelError
    from .features import feature_names
    from .model import REBUILD, cached_model

    m = cached_model(path)
    if m.feature_names != feature_names():
        raise ModelError(
            f"model {path or 'shipped'} was trained on other features than this version "
            f"computes; rebuild it with `{REBUILD}`"
        )
    return m
