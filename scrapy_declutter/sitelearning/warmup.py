"""The warm-up: a site's first pages, held and labelled together so that their order does not matter.

Learning as it goes, page N is labelled with what pages 1..N-1 taught, so
the same crawl gave different text when responses arrived in another order.
During a site's warm-up ``Declutter`` runs each page's generic steps, takes
its lesson with the model as it was when the warm-up began (``SiteStep.lesson``,
which leaves the generic labels as they are), and holds the page without
learning from it. When the site has ``pages`` pages held, or the caller
releases it (end of input, spider idle or close), every held lesson is
learned, in any order (the model's counts are sums), and the site step
labels each held page with the model learned from all of them. Pages after
the warm-up use the model as it stands, as before.

Held pages keep their blocks and trees in memory, so the number held across
all sites is bounded (``max_held``): past it, the site whose warm-up began
first is released early with what its pages taught so far, at the price of
order independence for that site only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..api import result_of

if TYPE_CHECKING:
    from ..page import Page
    from ..result import Result, SiteDecisions
    from .learner import PageLesson

#: Pages held across all sites (a held page keeps its parsed tree: 1-5 MB).
MAX_HELD_PAGES = 64


@dataclass(frozen=True)
class Released:
    """A page's final Result, with the key it was submitted under."""

    key: Any
    result: Result


@dataclass
class HeldPage:
    """A page in its site's warm-up, labelled by the generic steps, and what it teaches."""

    key: Any
    page: Page
    lesson: PageLesson

    def result(self, extractor: str, site_learning: SiteDecisions | None = None) -> Result:
        """The page's Result as its labels stand."""
        return result_of(self.page, extractor, site_learning=site_learning)


class WarmUps:
    """The pages held per site, oldest warm-up first, and the sites whose warm-up ended."""

    def __init__(self, pages: int, max_held: int = MAX_HELD_PAGES) -> None:
        self.pages = max(0, pages)
        self.max_held = max(1, max_held)
        self._held: dict[str, list[HeldPage]] = {}
        self._done: set[str] = set()

    def wants(self, site: str, pages_known: int) -> bool:
        """Whether a page of ``site`` is held: its warm-up has not ended and its model is young.

        A site whose model already counts ``pages`` pages (a re-crawl) has no warm-up.
        """
        if not self.pages or site in self._done:
            return False
        return site in self._held or pages_known < self.pages

    def hold(self, site: str, held: HeldPage) -> list[str]:
        """Hold a page; return the sites to release now (this one when full, the oldest past the bound)."""
        self._held.setdefault(site, []).append(held)
        due = [site] if len(self._held[site]) >= self.pages else []
        total = sum(len(pages) for pages in self._held.values())
        for other, pages in self._held.items():
            if total <= self.max_held:
                break
            if other not in due:
                due.append(other)
                total -= len(pages)
        return due

    def take(self, site: str) -> list[HeldPage]:
        """End the site's warm-up: its held pages, in arrival order."""
        self._done.add(site)
        return self._held.pop(site, [])

    def sites(self) -> list[str]:
        """Sites with pages held."""
        return list(self._held)

    def __len__(self) -> int:
        return sum(len(pages) for pages in self._held.values())
