"""``Declutter``: extraction that learns each site as it goes.

Per page: load the site's model, run the chain (the generic steps, then the site
step), learn from the page, and write the site's increments (its delta) when due.
Models of recent sites stay in memory up to ``max_cache_bytes``
(``SiteModel.estimated_bytes``); deltas go to the store after ``flush_every``
pages of a site, when it leaves memory and on ``close()`` (``writes``), so
processes sharing a store add up their counts. When the store cannot be reached,
pages of sites not in memory get generic extraction until it answers again.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from ..api import result_of
from ..errors import StoreUnavailableError
from ..page import Page
from ..registry import Extractor, build_extractor
from ..result import Result, SiteDecisions
from ..sitekey import site_key_function
from .learner import PageLesson, SiteLearner
from .model import SiteModel
from .ngramstep import NGramStep
from .step import SITE_LESSON, SITE_MODEL, SiteStep
from .stores import SiteStore, open_store
from .writes import StoreWrites

logger = logging.getLogger(__name__)

#: Pages of one site between two writes of its increments to the store.
FLUSH_EVERY = 16
#: Estimated bytes of site models kept in memory (least recently used sites are queued
#: for writing and dropped past it; docs/site-learning.md).
MAX_CACHE_BYTES = 64 * 1024 * 1024
#: Seconds before an unreachable store is tried again.
RETRY_AFTER = 10.0


@dataclass
class _SiteState:
    model: SiteModel  # what this process knows: the stored model plus its own increments
    #: Its increments since the last write; None while the site is fresh (no stored model):
    #: its first write is the whole model, of which a delta would be a second copy.
    delta: SiteModel | None
    unsaved: int = 0
    nbytes: int = 0  # estimated memory of model and delta

    @property
    def learners(self) -> tuple[SiteModel, ...]:
        """The models a page's lesson goes to."""
        return (self.model,) if self.delta is None else (self.model, self.delta)


def _decisions(model: SiteModel, lesson: PageLesson) -> SiteDecisions:
    """What site learning did on a page, with the model as it was when it labelled the page."""
    return SiteDecisions(model.pages, lesson.template, lesson.voted, lesson.supervised,
                         lesson.settled)


class Declutter:
    """Stateful extraction: ``extract()`` with per-site learning.

    ``site_key``: a callable, or ``"host"`` (the default), ``"domain"``, ``"fixed:NAME"``
    or an import path (``sitekey``). ``content_selector`` or ``markers=True`` label the
    pages they match; ``learn=False`` reads the store's models without updating them. A page
    is labelled with what its site taught before it, then learned: nothing is held."""

    def __init__(self, extractor: str = "default", store: "str | SiteStore" = "memory:",
                 site_learning: bool = True,
                 site_key: "Callable[[str | None], str] | str | None" = None,
                 content_selector: str | None = None, *, markers: bool = False,
                 learn: bool = True, flush_every: int = FLUSH_EVERY,
                 learner: SiteLearner | None = None, retry_after: float = RETRY_AFTER,
                 log: "logging.Logger | logging.LoggerAdapter[Any] | None" = None,
                 max_cache_bytes: int = MAX_CACHE_BYTES) -> None:
        self.extractor = extractor
        chain = build_extractor(extractor)
        self.site_learning = site_learning
        self.site_key = site_key_function(site_key) if isinstance(site_key, str) else site_key
        self.learn = learn
        self.flush_every = max(1, flush_every)
        self.max_cache_bytes = max_cache_bytes
        # Seed 000's n-gram filter votes in its own step; the site step on supervised sites only.
        vote = not any(isinstance(s, NGramStep) for s in chain.steps)
        supervised = bool(content_selector or markers)
        self.learner = learner or SiteLearner(vote=vote, train=not vote or supervised)
        self.generic = chain
        self.site_step = SiteStep(learner=self.learner, content_selector=content_selector,
                                  markers=markers)
        if site_learning:
            chain = Extractor(extractor, [*chain.steps, self.site_step])
        self.chain = chain
        self.log = log or logger  # the spider's, in a crawl
        self.store = open_store(store) if site_learning else None
        self._sites: OrderedDict[str, _SiteState] = OrderedDict()
        self._cached_bytes = 0
        self.writes = (StoreWrites(self.store, retry_after=retry_after)
                       if self.store is not None else None)

    def extract(self, html: str | bytes, url: str | None = None, *,
                content_type: str | None = None) -> Result:
        """Parse a page and extract it with (and into) its site's model."""
        return self.extract_page(Page.from_html(html, url, content_type=content_type))

    def extract_page(self, page: Page) -> Result:
        """Extract an already parsed page (the Scrapy middleware's entry point)."""
        state = self._page_state(page)
        page.put(SITE_MODEL, state.model if state is not None else None)
        self.chain.run(page)
        lesson = page.get(SITE_LESSON)
        if state is None or lesson is None:
            return result_of(page, self.extractor)
        result = result_of(page, self.extractor, site_learning=_decisions(state.model, lesson))
        if self.learn and not state.model.seen_url(page.url):
            self.learner.learn(state.learners, lesson, page.url)
            self._learned(state)
        return result

    def model(self, site: str) -> SiteModel | None:
        """The model this object uses for ``site`` (loaded from the store if needed)."""
        state = self._state(site)
        return state.model if state else None

    def flush(self) -> None:
        """Write every site's pending increments to the store."""
        if self.writes is None:
            return
        for state in self._sites.values():
            self._enqueue(state)
        self.writes.flush()

    def close(self) -> None:
        """Write what is pending and close the store."""
        if self.store is None:
            return
        self.flush()
        self.store.close()
        self.store = None
        self._sites.clear()

    def __enter__(self) -> "Declutter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _page_state(self, page: Page) -> _SiteState | None:
        """The state of the page's site, which ``site_key`` names when given (``page.site``'s
        one writer after parsing); None without site learning for it."""
        if self.site_key is not None:
            page.site = self.site_key(page.url) or ""
        return self._state(page.site) if self.site_learning and page.site else None

    def _state(self, site: str) -> _SiteState | None:
        state = self._sites.get(site)
        if state is not None:
            self._sites.move_to_end(site)
            return state
        writes = self.writes  # None exactly when there is no store
        if writes is None or not writes.available():
            return None
        answered, model = self._read(site)
        if not answered:
            return None
        state = _SiteState(model or SiteModel(site=site),
                           None if model is None else SiteModel(site=site))
        self._sites[site] = state
        self._measure(state)
        self._evict()
        return state

    def _read(self, site: str) -> tuple[bool, SiteModel | None]:
        """(whether the store answered, the site's stored model), read once the site's queued
        increments have landed."""
        writes = self.writes
        assert writes is not None  # a store's reads go through its writer
        writes.before_load(site)  # back before its increments were written: they land first
        try:
            model = self.store.load(site)
        except StoreUnavailableError as exc:
            writes.went_down(exc)
            return False, None
        writes.answered()
        return True, model

    def _learned(self, state: _SiteState) -> None:
        """After a page was learned: queue, write and evict as due."""
        state.unsaved += 1
        self._measure(state)
        if state.unsaved >= self.flush_every:
            self._enqueue(state)
        self._evict()
        if self.writes is not None and self.writes.learned(self.flush_every):
            self.writes.write()

    def _evict(self) -> None:
        """Queue and drop the least recently used sites until the rest fit the budget."""
        while self._cached_bytes > self.max_cache_bytes and len(self._sites) > 1:
            _, old = self._sites.popitem(last=False)  # never the newest: the page's own site
            self._enqueue(old)
            self._cached_bytes -= old.nbytes

    def _measure(self, state: _SiteState) -> None:
        nbytes = state.model.estimated_bytes() + (state.delta.estimated_bytes()
                                                  if state.delta is not None else 0)
        self._cached_bytes += nbytes - state.nbytes
        state.nbytes = nbytes

    def _enqueue(self, state: _SiteState) -> None:
        """Move a site's increments to the write queue (the model keeps them); a fresh site's
        are its whole model, whose copy replaces what the store holds."""
        if not state.unsaved or self.writes is None:
            return
        fresh = state.delta is None
        # A copy of a fresh model, which goes on learning until the batch is written.
        self.writes.add(SiteModel.from_bytes(state.model.to_bytes()) if fresh else state.delta,
                        replaces=fresh)
        state.delta, state.unsaved = SiteModel(site=state.model.site), 0
        self._measure(state)
