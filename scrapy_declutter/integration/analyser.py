"""The one place the Scrapy components call the extraction core.

The components hand it a response's parsed tree (or an item's raw HTML) and
the options in force; it returns a Result. It is Scrapy-free, so it can run on
a worker thread, and it serialises access to the stateful core with a lock:
site learning reads and writes one site model per page, and the GIL would
serialise the pure-Python work anyway.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..api import result_of
from ..errors import DeclutterError
from ..limits import Limits
from ..page import Page
from ..result import Result
from ..sniff import redecoded
from .allocator import TRIM_EVERY, Trimmer, malloc_trim

if TYPE_CHECKING:
    from lxml import etree

    from .settings import DeclutterOptions

logger = logging.getLogger(__name__)


class Analyser:
    """Turns a page into a Result with the options of one request.

    One core object per (extractor, site learning, content selector)
    combination a crawl actually uses, all sharing one store connection. A
    ``site_key`` option (``DECLUTTER_SITE_KEY``, per request) names the page's site
before the core sees it. With ``trim`` (``DECLUTTER_TRIM_MEMORY``) it gives the
memory the C allocator keeps back to the OS every ``allocator.TRIM_EVERY``
pages it analyses, on the thread that analyses them.
    """

    def __init__(self, store: str | None, log: Any = None, trim: bool = False) -> None:
        self.store_uri = store
        self.trimmer = Trimmer(TRIM_EVERY, malloc_trim() if trim else None)
        self.log = log  # a logger for what each site's model learned (the spider's)
        self._store: Any = None
        self._store_failed = False
        self._cores: dict[tuple, Any] = {}
        self._lock = threading.Lock()

    @staticmethod
    def page_of_response(
        body: bytes,
        content_type: str | None,
        root: Callable[[], etree._Element],
        text: Callable[[], str],
        url: str | None,
        options: DeclutterOptions,
        *,
        utf8: bool = False,
    ) -> Page:
        """A page from a response, reusing the tree Scrapy parses for ``response.selector``.

        The body is checked first, as ``Page.from_html`` does (blank, binary
        behind an HTML content type, over ``DECLUTTER_MAX_SIZE``): such a page
        is passed through with a reason and never parsed. A header that lies
        about the charset garbles Scrapy's tree, so then the repaired text is
        checked and parsed instead of it. A tree the parser cut short (nested
        too deep) is re-read flat from its text by ``Page.from_tree``, the one
        parse more it needs. ``root`` and ``text`` are callables so that only
        what is needed gets parsed or decoded: with ``utf8`` (the text is the body
        read as UTF-8, ``sniff.text_is_utf8``) there is no charset to repair, and
        the text is made only for such a re-read.
        """
        limits = _limits(options)
        refused = Page.refused(body, url, content_type=content_type, limits=limits)
        if refused is not None:
            return refused
        if utf8:
            return Page.from_tree(root(), url, source=text, limits=limits)
        decoded = text()
        repaired = redecoded(body, content_type, decoded)
        if repaired is not None:
            return Page.from_html(repaired, url, limits=limits)
        return Page.from_tree(root(), url, source=decoded, limits=limits)

    def analyse_html(self, html: str | bytes, url: str | None, options: DeclutterOptions) -> Result:
        """A page from raw HTML, e.g. an item's HTML field."""
        return self.analyse(Page.from_html(html, url, limits=_limits(options)), options)

    def analyse(self, page: Page, options: DeclutterOptions) -> Result:
        """Analyse a page at once: labelled with what its site's model knows, then teaching it.

        The core's site key (``DECLUTTER_SITE_KEY``, per request) names the page's site.
        """
        if page.reason and not page.blocks:  # passed through: nothing to learn from
            return result_of(page, options.chain)
        with self._lock:
            self.trimmer.page()
            return self.core(options).extract_page(page)

    def core(self, options: DeclutterOptions) -> Any:
        """The core for these options, built on first use (its model loaded, the store opened)."""
        from ..sitelearning.declutter import Declutter  # NumPy: imported with the first page

        key = (options.chain, options.site_learning, options.content_selector,
               options.site_key)
        core = self._cores.get(key)
        if core is None:
            site_learning = options.site_learning and self._open_store()
            core = Declutter(
                extractor=options.chain,
                store=self._store if site_learning else "memory:",
                site_learning=site_learning,
                site_key=options.site_key,
                content_selector=options.content_selector,
                log=self.log,
            )
            self._cores[key] = core
        return core

    def _open_store(self) -> bool:
        """Open the shared store once; on failure warn once and go on without site learning."""
        if self._store is None and not self._store_failed:
            from ..sitelearning.stores import open_store

            try:
                self._store = open_store(self.store_uri or "memory:")
            except (DeclutterError, OSError) as e:
                self._store_failed = True
                logger.warning("scrapy_declutter cannot open the site store %s (%s): the crawl "
                               "goes on with generic extraction, without site learning",
                               self.store_uri, e)
        return self._store is not None

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


def _limits(options: DeclutterOptions) -> Limits:
    """The core's caps, with ``DECLUTTER_MAX_SIZE`` as the one size cap."""
    return Limits(max_bytes=options.max_size)
