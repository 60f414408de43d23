"""The set-up check that stops a crawl at start: the store, site learning, the kept duplicate
index, the reports' folder.

``CrawlState`` runs it once, when the first component is built; what it
raises becomes the one error logged when the spider opens (see ``state``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DeclutterError
from .settings import DeclutterOptions, SettingsError, default_store_uri

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: scrapy-playwright's download handler, which ``DECLUTTER_RENDER_SHELLS`` sends shells to.
PLAYWRIGHT_HANDLER = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"


def checked_store(options: DeclutterOptions) -> str | None:
    """The store URI to use, with its scheme and backend checked; SettingsError if wrong.

    An unknown scheme or a backend whose package is missing (``redis``)
    stops the crawl. What can go wrong later is not a set-up error and
    is not probed here: a Redis server that is down (site learning waits
    for it), a SQLite path that cannot be opened (the crawl goes on
    without site learning, with one warning) or a corrupt SQLite file
    (set aside and replaced).
    """
    store = options.store
    if store is None and options.site_learning:
        store = default_store_uri()
    try:
        from ..sitelearning import open_store  # NumPy and the n-gram models
        from ..sitelearning.stores import REDIS_SCHEMES, scheme
    except ImportError as e:
        raise SettingsError(f"site learning cannot be loaded: {type(e).__name__}: {e}; "
                            "reinstall scrapy-declutter with its dependencies") from None
    if store is not None and not store.lower().startswith("sqlite:"):
        try:
            open_store(store).close()  # memory: or a Redis client, which connects lazily
        except (DeclutterError, OSError) as e:
            raise SettingsError(f"DECLUTTER_STORE={store!r} cannot be opened: {e}") from None
    if options.duplicate_field and options.keep_duplicate_index \
            and scheme(store) not in REDIS_SCHEMES:
        raise SettingsError(f"DECLUTTER_KEEP_DUPLICATE_INDEX=True needs a Redis store "
                            f"(DECLUTTER_STORE=redis://...): with {store or 'memory:'!r} the "
                            "near-duplicate index lives in the crawl process and ends with it")
    if options.inspect_dir:
        try:
            Path(options.inspect_dir).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SettingsError(f"DECLUTTER_INSPECT_DIR={options.inspect_dir!r} cannot be "
                                f"created: {e}") from None
    return store


def checked_rendering(options: DeclutterOptions, settings: BaseSettings) -> None:
    """``DECLUTTER_RENDER_SHELLS`` needs scrapy-playwright installed and handling http(s)."""
    if not options.render_shells:
        return
    try:
        import scrapy_playwright  # noqa: F401
    except ImportError as e:
        raise SettingsError(f"DECLUTTER_RENDER_SHELLS=True needs scrapy-playwright ({e}); "
                            "pip install scrapy-playwright, then set its DOWNLOAD_HANDLERS") from None
    handlers = settings.getdict("DOWNLOAD_HANDLERS")
    missing = [scheme for scheme in ("http", "https")
               if _path(handlers.get(scheme)) != PLAYWRIGHT_HANDLER]
    if missing:
        raise SettingsError(f"DECLUTTER_RENDER_SHELLS=True needs scrapy-playwright's download "
                            f"handler for {' and '.join(missing)}: DOWNLOAD_HANDLERS = "
                            f'{{"http": "{PLAYWRIGHT_HANDLER}", "https": "{PLAYWRIGHT_HANDLER}"}}')


def _path(handler: object) -> str:
    """A handler setting's import path, whether given as a path or a class."""
    if isinstance(handler, type):
        return f"{handler.__module__}.{handler.__qualname__}"
    return str(handler or "")
