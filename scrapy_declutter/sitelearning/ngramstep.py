"""Seed 000's second filter, the extractor part ``ngram``: the site's n-gram classifier alone.

Every block still content goes to its site's classifier (``step.SITE_MODEL``),
which keeps or discards it; ``density+ngram`` is seed 000's pipeline, and the
site step that ends it under ``Declutter`` trains the classifier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..blocks import BOILERPLATE, CONTENT
from ..steps import Step
from .ngram import KEEP
from .step import SITE_MODEL

if TYPE_CHECKING:
    from ..page import Page

#: The step's name, on the blocks it labels and in the extractor registry.
NAME = "ngram"
#: Blocks of each class the classifier must have seen before it decides anything.
MIN_EXAMPLES = 1


class NGramStep(Step):
    """Keep or discard every block still labelled content, by its site's classifier."""

    name = NAME

    def __init__(self, *, min_examples: int = MIN_EXAMPLES) -> None:
        self.min_examples = min_examples

    def process(self, page: "Page") -> None:
        model = page.get(SITE_MODEL)
        if model is None or not model.classifier.ready(self.min_examples):
            return
        clf = model.classifier
        for b in page.blocks:
            if b.is_content:
                verdict = clf.classify(b.text)
                b.set_label(CONTENT if verdict.category == KEEP else BOILERPLATE,
                            verdict.p_keep, self.name)


def ngram_chain(*, min_examples: int = MIN_EXAMPLES) -> list[Step]:
    """Part ``ngram``: seed 000's per-site n-gram filter (``density+ngram`` is its pipeline)."""
    return [NGramStep(min_examples=min_examples)]
