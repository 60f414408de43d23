"""The site step: what a site taught, applied to one of its pages (the last step of a chain).

``Declutter`` puts the site's model in the page's ``SITE_MODEL``; the step
relabels the blocks by ``learner``'s rules and puts the page's lesson in
``SITE_LESSON``. A page without a model passes through unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..page import Slot
from ..steps import Step
from .learner import PageLesson, SiteLearner
from .model import SiteModel
from .pagekeys import PAGE_KEYS
from .supervision import marker_labels, selector_labels

if TYPE_CHECKING:
    from ..page import Page

#: The model of the page's site the site step applies (``Declutter`` puts it
#: there before the chain runs); empty: no site learning for this page.
SITE_MODEL: Slot[SiteModel] = Slot("site model")
#: What the site step decided on the page and what the page teaches its site.
SITE_LESSON: Slot[PageLesson] = Slot("site lesson")


class SiteStep(Step):
    """Label a page's blocks with its site's model (``SITE_MODEL``); ``content_selector`` (CSS
    or XPath) or ``markers`` (``<!-- content -->`` comments) give the user's labels."""

    name = "site"

    def __init__(self, *, learner: SiteLearner | None = None, content_selector: str | None = None,
                 markers: bool = False) -> None:
        self.learner = learner or SiteLearner()
        self.content_selector = content_selector
        self.markers = markers

    def process(self, page: "Page") -> None:
        model = page.get(SITE_MODEL)
        if model is None or not page.blocks:
            return
        keys = self.learner.keys(page)
        page.put(PAGE_KEYS, keys)
        page.put(SITE_LESSON, self.learner.apply(page, model, self.supervision(page), keys))

    def __repr__(self) -> str:
        return f"SiteStep(content_selector={self.content_selector!r}, markers={self.markers!r})"

    def supervision(self, page: "Page") -> list[bool] | None:
        """The user's label for every block, or None when the page offers none."""
        labels = None
        if self.content_selector:
            labels = selector_labels(page, self.content_selector)
        if labels is None and self.markers:
            labels = marker_labels(page)
        return labels
