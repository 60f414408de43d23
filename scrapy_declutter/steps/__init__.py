"""Steps: one algorithm each, reading a Page and writing block labels.

A step is a small object with keyword-only parameters fixed in ``__init__``
and one method, ``process(page)``, which labels the page's blocks in place
(Boilerpipe's ``BoilerpipeFilter.process``, without its "changed" flag: a
chain runs every step whatever the one before did). Per-page state lives on
the Page, in typed slots (``page.get(slot)``: the Boilerpipe view, the site
model), never on the step, so one chain can be shared by threads and by
every page of a crawl.

One module or subpackage per algorithm, with its features and model reader
beside it: ``density`` (seed 000), ``justext`` (seed 003), ``tree`` (seed
004), ``title`` (the headline rule), ``datatable``, ``teasers``, ``itemlist`` and
``thread`` (rules that look at a page whole: a data table, a headline river, a
listing's item list, a reply thread), ``overlays``, ``specs``, ``rails`` and
``productdata`` (rules for product pages: overlay boxes, specification lists,
recommendation rails, the structured description), ``boilerpipe/`` (seed
002), ``dragnet/`` (seed 001, with CETR), ``learned/`` (the default
classifier), and ``embedded``, which ``api.result_of`` runs after every
extractor: on an app shell it adds the blocks of the text the page embeds. Steps import ``page`` and what lies below it, never
``registry`` (which names them) or site learning (whose ``SiteStep`` is a
Step too).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..page import Page


class Step(ABC):
    """One named algorithm in an extractor's chain."""

    #: The name recorded on every block this step labels.
    name: str = "step"

    @abstractmethod
    def process(self, page: "Page") -> None:
        """Label (some of) the page's blocks."""

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"
