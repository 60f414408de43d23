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
    """The stateful, site-learning core, when this checkout has it (issue 4)."""
    try:
        from .. import Declutter  # type: ignore[attr-defined]
    except ImportError:
        return None
    return Declutter


class Analyser:
    """Turns a page into a Result with the options of one request.

    One core object per (extractor, site learning, site key, content selector)
    combination a crawl actually uses, all sharing one store.
    """

    def __init__(self, store: str | None) -> None:
        self.store = store
        self._cores: dict[tuple, Any] = {}
        self._lock = threading.Lock()

    def analyse_root(
        self, root: "etree._Element", url: str | None, options: "DeclutterOptions"
    ) -> Result:
        """A page from a tree already parsed (``response.selector.root``); the tree is not mutated."""
        return self._run(Page.from_root(root, url), options)

    def analyse_html(self, html: str | bytes, url: str | None, options: "DeclutterOptions") -> Result:
        """A page from raw HTML, e.g. an item's HTML field."""
        return self._run(Page.from_html(html, url), options)

    def _run(self, page: Page, options: "DeclutterOptions") -> Result:
        if options.site_key:
            page.site = options.site_key
        with self._lock:
            core = self._core(options)
            if core is None:  # stateless fallback: no site learning in this checkout
                build_extractor(options.extractor).run(page)
                return result_of(page, options.extractor)
            return core.extract_page(page)

    def _core(self, options: "DeclutterOptions") -> Any:
        cls = _declutter_class()
        if cls is None:
            return None
        key = (options.extractor, options.site_learning, options.site_key, options.content_selector)
        core = self._cores.get(key)
        if core is None:
            core = cls(
                extractor=options.extractor,
                store=self.store or "memory:",
                site_learning=options.site_learning,
                site_key=options.site_key,
                content_selector=options.content_selector,
            )
            self._cores[key] = core
        return core

    def close(self) -> None:
        """Flush and close every core (and so the store)."""
        with self._lock:
            cores, self._cores = list(self._cores.values()), {}
        for core in cores:
            core.close()
