"""The one place the Scrapy components call the extraction core.

The components hand it a response's parsed tree (or an item's raw HTML) and
the options in force; it returns a Result. It is Scrapy-free, so it can run on
a worker thread, and it serialises access to the stateful core with a lock:
site learning reads and writes one site model per page, and the GIL would
serialise the pure-Python work anyway.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..api import result_of
from ..extractors import build_extractor
from ..page import Page
from ..result import Result

if TYPE_CHECKING:
    from lxml import etree

    from .settings import DeclutterOptions


def _declutter_class() -> Any:
    """The stateful, site-learning core (None in a build without it: stateless extraction)."""
    try:
        from ..sitelearning.declutter import Declutter
    except ImportError:
        return None
    return Declutter


class Analyser:
    """Turns a page into a Result with the options of one request.

    One core object per (extractor, site learning, content selector)
    combination a crawl actually uses, all sharing one store connection. A
    fixed ``site_key`` option is applied to the page before the core sees it.
    """

    def __init__(self, store: str | None) -> None:
        self.store_uri = store
        self._store: Any = None
        self._cores: dict[tuple, Any] = {}
        self._lock = threading.Lock()

    def analyse_root(
        self, root: etree._Element, url: str | None, options: DeclutterOptions
    ) -> Result:
        """A page from a tree already parsed (``response.selector.root``); the tree is not mutated."""
        return self._run(Page.from_root(root, url), options)

    def analyse_html(self, html: str | bytes, url: str | None, options: DeclutterOptions) -> Result:
        """A page from raw HTML, e.g. an item's HTML field."""
        return self._run(Page.from_html(html, url), options)

    def _run(self, page: Page, options: DeclutterOptions) -> Result:
        if options.site_key:
            page.site = options.site_key
        with self._lock:
            core = self._core(options)
            if core is None:  # stateless fallback: no site learning in this checkout
                build_extractor(options.extractor).run(page)
                return result_of(page, options.extractor)
            return core.extract_page(page)

    def _core(self, options: DeclutterOptions) -> Any:
        cls = _declutter_class()
        if cls is None:
            return None
        key = (options.extractor, options.site_learning, options.content_selector)
        core = self._cores.get(key)
        if core is None:
            if options.site_learning and self._store is None:
                from ..sitelearning.stores import open_store

                self._store = open_store(self.store_uri or "memory:")
            core = cls(
                extractor=options.extractor,
                store=self._store if options.site_learning else "memory:",
                site_learning=options.site_learning,
                content_selector=options.content_selector,
            )
            self._cores[key] = core
        return core

    def close(self) -> None:
        """Write every core's pending site-model increments, then close the shared store."""
        with self._lock:
            cores, self._cores = list(self._cores.values()), {}
            store, self._store = self._store, None
        try:
            for core in cores:
                if core.store is not None:
                    core.flush()
        finally:
            if store is not None:
                store.close()
