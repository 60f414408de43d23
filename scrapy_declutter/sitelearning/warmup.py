"""The warm-up: a site's first pages, held and labelled together so that their order does not matter.

``Declutter.submit`` holds a site's first ``pages`` pages with their lessons; at
release every lesson is learned (counts are sums, so in any order) and each page
labelled with the model learned from all. At most ``max_held`` pages are held:
past it the oldest warm-up is released early.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..page import Page
    from ..result import Result
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


class WarmUps:
    """The pages held per site, oldest warm-up first, and the sites whose warm-up ended."""

    def __init__(self, pages: int, max_held: int = MAX_HELD_PAGES) -> None:
        self.pages = max(0, pages)
        self.max_held = max(1, max_held)
        self._held: dict[str, list[HeldPage]] = {}
        self._done: set[str] = set()

    def wants(self, site: str, pages_known: int) -> bool:
        """Whether a page of ``site`` is held: its warm-up has not ended and its model is young
        (a re-crawled site has no warm-up)."""
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
