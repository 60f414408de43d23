"""The seed's boilerplate n-gram classifier as a step (seed 000's second filter).

After the density filter, every block still labelled content goes to the
site's character n-gram classifier (keep / discard LMs, see
``sitelearning.ngram``); ``discard`` relabels it boilerplate. The classifier
is the site model ``Declutter`` puts in ``page.notes["site_model"]``; with no
model, or one not yet trained on both classes, the step changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..blocks import BOILERPLATE, CONTENT
from . import Step

if TYPE_CHECKING:
    from ..page import Page

#: Blocks of each class the classifier must have seen before it decides anything.
MIN_EXAMPLES = 1
SITE_MODEL_NOTE = "site_model"


class NGramStep(Step):
    """Keep or discard each content block by the site's n-gram classifier."""

    name = "ngram"

    def __init__(self, *, min_examples: int = MIN_EXAMPLES) -> None:
        self.min_examples = min_examples

    def process(self, page: "Page") -> bool:
        model = page.notes.get(SITE_MODEL_NOTE)
        clf = getattr(model, "classifier", None)
        if clf is None or not clf.ready(self.min_examples):
            return False
        changed = False
        for b in page.blocks:
            if b.is_content:
                verdict = clf.classify(b.text)
                label = CONTENT if verdict.category == "keep" else BOILERPLATE
                changed |= b.set_label(label, verdict.p_keep, self.name)
        return changed


def ngram_chain(**params: int) -> list[Step]:
    """Step ``ngram``: the per-site n-gram classifier (``density+ngram`` is the seed's pipeline)."""
    return [NGramStep(**params)]
