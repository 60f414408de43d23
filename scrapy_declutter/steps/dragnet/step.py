"""Dragnet as a step: each block labelled by the classifier's probability of content.

A block whose probability reaches 0.5 is content. Comments count as content
in this mode: no step here drops them (Dragnet's "content + comments"
model). The model is read lazily, on the first page, into the step instance.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ...blocks import BOILERPLATE, CONTENT
from .. import Step
from .model import DragnetModel

if TYPE_CHECKING:
    from ...page import Page

#: Probability of content at or above which a block is content (the seed's 0.5 cut).
THRESHOLD = 0.5


class Dragnet(Step):
    """Label each block by the Dragnet classifier's probability of content (0.5 cut)."""

    name = "dragnet"

    def __init__(self, *, model: str | None = None, threshold: float = THRESHOLD) -> None:
        self.model = model
        self.threshold = threshold
        self._loaded: DragnetModel | None = None
        self._lock = threading.Lock()

    def classifier(self) -> DragnetModel:
        """The model, read on first use and kept on this instance."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = DragnetModel.load(self.model)
        return self._loaded

    def process(self, page: Page) -> None:
        if not page.blocks:
            return
        probs = self.classifier().predict_page(page)
        for block, p in zip(page.blocks, probs):
            label = CONTENT if p >= self.threshold else BOILERPLATE
            block.set_label(label, float(p), self.name)

    def __repr__(self) -> str:
        return f"Dragnet(model={self.model!r}, threshold={self.threshold!r})"


def dragnet_chain(*, model: str | None = None, threshold: float = THRESHOLD) -> list[Step]:
    """Extractor ``dragnet``: the trained classifier alone; ``dragnet(model="path.json")`` for another model."""
    return [Dragnet(model=model, threshold=threshold)]
