"""Every ``DECLUTTER_*`` setting, its default, and how one crawl's options are read.

One source of defaults, like Scrapy's ``default_settings.py``: the components,
the add-on and the README table all read ``DEFAULTS``. Options are read once per
crawler with Scrapy's typed getters (so ``-s DECLUTTER_SITE_LEARNING=false``
works), then a spider argument or attribute named ``declutter_<name>``
(``-a declutter_extractor=density``) overrides the setting, and a request's
``meta["declutter"]`` dict overrides both for that request only.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import SettingsError
from ..limits import MAX_BYTES

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: Bodies larger than this many bytes pass through unanalysed (``declutter/rejected/too_large``):
#: the core's one size cap (``limits.MAX_BYTES``), which this setting moves.
DEFAULT_MAX_SIZE = MAX_BYTES
#: Name of the SQLite file the default store keeps in the project's ``.scrapy`` data dir.
DEFAULT_STORE_FILE = "declutter.sqlite3"

#: Setting name -> default. The enabling flag first, as in Scrapy's default_settings.py.
DEFAULTS: dict[str, Any] = {
    "DECLUTTER_ENABLED": True,
    "DECLUTTER_EXTRACTOR": "default",
    "DECLUTTER_SITE_LEARNING": True,
    "DECLUTTER_STORE": None,  # None: sqlite:///<project data dir>/declutter.sqlite3
    "DECLUTTER_TEXT_FIELD": "clean_text",
    "DECLUTTER_BLOCKS_FIELD": "blocks",
    "DECLUTTER_TITLE_FIELD": None,
    "DECLUTTER_HTML_FIELD": None,
    "DECLUTTER_URL_FIELD": "url",
    "DECLUTTER_CONTENT_SELECTOR": None,
    "DECLUTTER_SITE_KEY": None,
    "DECLUTTER_MAX_SIZE": DEFAULT_MAX_SIZE,
    "DECLUTTER_THREADS": True,
}

#: Request meta key: ``False`` skips the request, a dict overrides options for it.
META_KEY = "declutter"
#: Request/response meta key where spider callbacks find the page's Result.
RESULT_META_KEY = "declutter_result"
#: Internal meta key: the item field values, computed on the worker thread.
FIELDS_META_KEY = "_declutter_fields"
#: Response flag added to every analysed response (like "zyte-api", "playwright").
RESPONSE_FLAG = "declutter"

_BOOL = {"DECLUTTER_ENABLED", "DECLUTTER_SITE_LEARNING", "DECLUTTER_THREADS"}
_INT = {"DECLUTTER_MAX_SIZE"}
_NULLS = {"", "none", "null"}


def _option(setting: str) -> str:
    """``DECLUTTER_TEXT_FIELD`` -> ``text_field``: the name used in meta and spider arguments."""
    return setting.removeprefix("DECLUTTER_").lower()


#: Options a request's ``meta["declutter"]`` dict may override.
REQUEST_OPTIONS = frozenset(
    _option(s)
    for s in DEFAULTS
    if s not in {"DECLUTTER_ENABLED", "DECLUTTER_STORE", "DECLUTTER_THREADS"}
)


def _text(value: Any) -> str | None:
    """A field name or selector; ``None``, ``""`` and ``"none"`` all mean "off"."""
    if value is None:
        return None
    value = str(value).strip()
    return None if value.lower() in _NULLS else value


@dataclass(frozen=True)
class DeclutterOptions:
    """What one crawl (or one request, after meta overrides) asks of the plugin."""

    enabled: bool = True
    extractor: str = "default"
    site_learning: bool = True
    store: str | None = None
    text_field: str | None = "clean_text"
    blocks_field: str | None = "blocks"
    title_field: str | None = None
    html_field: str | None = None
    url_field: str | None = "url"
    content_selector: str | None = None
    site_key: str | None = None
    max_size: int = DEFAULT_MAX_SIZE
    threads: bool = True

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> DeclutterOptions:
        """Read every DECLUTTER_* value with the typed getter its type needs."""
        values: dict[str, Any] = {}
        for name, default in DEFAULTS.items():
            try:
                if name in _BOOL:
                    value: Any = settings.getbool(name, default)
                elif name in _INT:
                    value = settings.getint(name, default)
                elif name == "DECLUTTER_EXTRACTOR":
                    value = _text(settings.get(name, default)) or "default"
                else:
                    value = _text(settings.get(name, default))
            except ValueError as e:
                raise SettingsError(f"{name}={settings.get(name)!r}: {e}") from e
            values[_option(name)] = value
        return cls(**values)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DeclutterOptions:
        """Settings, then ``declutter_<option>`` spider arguments/attributes on top."""
        settings = crawler.settings
        spider = getattr(crawler, "spider", None)
        overrides = {}
        if spider is not None:
            for name in DEFAULTS:
                attr = f"declutter_{_option(name)}"
                if hasattr(spider, attr):
                    overrides[name] = getattr(spider, attr)
        if overrides:
            settings = settings.copy()
            settings.frozen = False  # a private copy of the crawler's frozen settings
            settings.setdict(overrides, priority="cmdline")
        return cls.from_settings(settings)

    def override(self, changes: Mapping[str, Any]) -> DeclutterOptions:
        """These options with a request's ``meta["declutter"]`` dict applied.

        Keys are option names (``extractor``, ``text_field``...) or their
        ``DECLUTTER_*`` setting names; unknown keys raise SettingsError.
        """
        if not changes:
            return self
        clean: dict[str, Any] = {}
        for key, value in changes.items():
            option = _option(str(key)) if str(key).isupper() else str(key)
            if option not in REQUEST_OPTIONS:
                raise SettingsError(
                    f"meta[{META_KEY!r}] has unknown key {key!r}; "
                    f"valid keys: {', '.join(sorted(REQUEST_OPTIONS))}"
                )
            if option == "site_learning":
                value = _bool(value)
            elif option == "max_size":
                value = int(value)
            elif option == "extractor":
                value = _text(value) or "default"
            else:
                value = _text(value)
            clean[option] = value
        return dataclasses.replace(self, **clean)

    @property
    def fields(self) -> tuple[str, ...]:
        """The item fields this plugin writes, in order."""
        return tuple(f for f in (self.text_field, self.blocks_field, self.title_field) if f)


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in {"1", "true", "yes", "on"}:
            return True
        if lowered in {"0", "false", "no", "off", ""}:
            return False
        raise SettingsError(f"not a boolean: {value!r}")
    return bool(value)


def default_store_uri() -> str:
    """``sqlite:///`` + the project data dir's declutter.sqlite3 (created on demand)."""
    from pathlib import Path

    from scrapy.utils.project import data_path

    directory = Path(data_path("", createdir=True)).resolve()
    return f"sqlite:///{directory / DEFAULT_STORE_FILE}"
