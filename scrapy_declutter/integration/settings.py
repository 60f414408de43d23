"""Every ``DECLUTTER_*`` setting: its default, how its value is read, and where it may be given.

``DeclutterOptions`` is the one table. Each field is one setting
(``text_field`` is ``DECLUTTER_TEXT_FIELD``): its default, the converter that
turns a value into the field's type, and whether a request's
``meta["declutter"]`` may override it. Everything else derives from the
fields: ``DEFAULTS``, ``SETTINGS``, ``REQUEST_OPTIONS``, the spider arguments
(``-a declutter_extractor=density``) and the meta keys, so a default is
written once and a value is converted the same way wherever it comes from.
Values from the command line arrive as strings (``-s DECLUTTER_THREADS=false``),
from ``settings.py`` or meta as Python values: every converter takes both.

Options are read once per crawler, when its components are built, and every
value is checked then: ``DeclutterOptions.from_crawler`` raises one
``SettingsError`` listing every problem (a bad value, with what the setting
accepts; an unknown ``DECLUTTER_*`` name, with the valid ones), which
``state.CrawlState`` turns into one error at spider start.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import SettingsError
from ..formats.chunks import CHUNK_WORDS
from ..limits import MAX_BYTES
from ..nearduplicates import DEFAULT_THRESHOLD as DEFAULT_DUPLICATE_THRESHOLD
from ..nearduplicates import MAX_PAGES as DEFAULT_DUPLICATE_MAX_PAGES
from ..report.files import DEFAULT_INSPECT_SAMPLE
from ..registry import with_headline_rule
from ..result import Result
from ..steps.title import IN_TEXT as TITLE_IN_TEXT
from .converters import (
    boolean,
    count,
    css_or_xpath,
    duplicate_field,
    extractor_name,
    metadata_fields,
    optional_text,
    output_format,
    processes,
    rate,
    similarity_threshold,
    site_key,
    size,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

#: Bodies larger than this many bytes pass through unparsed (``declutter/rejected/too_large``):
#: the core's one size cap (``limits.MAX_BYTES``), which this setting moves.
DEFAULT_MAX_SIZE = MAX_BYTES
#: Worker processes for the analysis (``workers``): "auto" is one on a machine with a
#: second core, none on one core (docs/results.md has the crawls that chose it).
DEFAULT_PROCESSES = "auto"
#: Option naming an item field -> what a Result puts in it, in plain JSON types
#: (``items`` writes them). A new kind of field is one entry here and its
#: ``*_field`` option below. Here, not in ``items``, so that settings need not
#: import the module that reads the options (an import cycle).
FIELD_KINDS: dict[str, Callable[[Result], Any]] = {
    "text_field": lambda result: result.text,
    "markdown_field": lambda result: result.markdown,
    "blocks_field": Result.labels,
    "title_field": lambda result: result.title,
}
#: ``DECLUTTER_FORMAT`` -> the field kinds it fills; the other kinds above are always filled.
FORMATS: dict[str, tuple[str, ...]] = {
    "text": ("text_field",),
    "markdown": ("markdown_field",),
    "both": ("text_field", "markdown_field"),
}
_FORMAT_KINDS = frozenset(kind for kinds in FORMATS.values() for kind in kinds)


def metadata_value(name: str, result: Result) -> Any:
    """One ``Metadata`` attribute of the Result in plain JSON types (``authors`` as a list).

    Reading ``result.metadata`` computes it (extruct over the tree) on first
    use: this runs where the field values are built, on the worker thread.
    """
    value = getattr(result.metadata, name)
    return list(value) if isinstance(value, tuple) else value

PREFIX = "DECLUTTER_"
#: Request meta key: ``False`` skips the request, a dict overrides options for it.
META_KEY = "declutter"
#: Spider arguments and attributes named ``declutter_<option>`` override the settings.
SPIDER_ARGUMENT_PREFIX = "declutter_"
#: Response flag added to every analysed response (like "zyte-api", "playwright").
RESPONSE_FLAG = "declutter"


@dataclass(frozen=True)
class Setting:
    """How one option is read, and whether ``meta["declutter"]`` may set it for one request."""

    convert: Callable[[Any], Any]
    per_request: bool


def option(default: Any, convert: Callable[[Any], Any], *, per_request: bool = True) -> Any:
    """One row of the table: a dataclass field carrying its converter."""
    return field(default=default, metadata={"setting": Setting(convert, per_request)})


@dataclass(frozen=True)
class DeclutterOptions:
    """What one crawl (or one request, after meta overrides) asks of the plugin.

    ``format`` says which of ``text_field`` and ``markdown_field`` are
    filled: ``markdown`` fills only ``markdown_field`` (``"markdown"``), not
    ``clean_text``, because a field's name should say what it holds: a
    pipeline that counts words or searches ``clean_text`` would otherwise get
    ``#``, ``|`` and fences after a change of one setting, and a feed with
    both formats needs two names anyway. ``metadata_fields`` pairs
    ``Metadata`` attributes with the item fields they go to (the same name
    unless a dict renames them).

    ``blocks_field`` is off by default: a block list is about four times the
    size of the clean text (every block's text, tag, xpath and scores), so
    items, feeds and Scrapy's DEBUG log of every scraped item would be mostly
    labels. A compact form would not help: labels without the block's text
    and position say nothing, and with them it is larger than the text. The
    inspection report (``inspect_dir``) is the tool for looking at
    decisions; ask for the list with ``DECLUTTER_BLOCKS_FIELD = "blocks"``.
    """

    enabled: bool = option(True, boolean, per_request=False)
    extractor: str = option("default", extractor_name)
    # Whether the text starts with the page's headline (``steps.title``); ``chain`` applies it.
    title_in_text: bool = option(TITLE_IN_TEXT, boolean)
    site_learning: bool = option(True, boolean)
    store: str | None = option(None, optional_text, per_request=False)
    format: str = option("text", output_format)
    text_field: str | None = option("clean_text", optional_text)
    markdown_field: str | None = option("markdown", optional_text)
    metadata_fields: tuple[tuple[str, str], ...] = option((), metadata_fields)
    blocks_field: str | None = option(None, optional_text)
    # Whether ``response.declutter`` holds the Result: a worker then sends every page's back.
    callback_results: bool = option(False, boolean)
    title_field: str | None = option(None, optional_text)
    chunks_field: str | None = option(None, optional_text)
    chunk_words: int = option(CHUNK_WORDS, count)
    # Per crawl: one near-duplicate index, opened at start when a field asks for it.
    duplicate_field: str | None = option(None, duplicate_field, per_request=False)
    duplicate_threshold: float = option(DEFAULT_DUPLICATE_THRESHOLD, similarity_threshold,
                                        per_request=False)
    duplicate_max_pages: int = option(DEFAULT_DUPLICATE_MAX_PAGES, count, per_request=False)
    keep_duplicate_index: bool = option(False, boolean, per_request=False)
    # Read by the pipeline, which sees items, not requests: per crawl only.
    html_field: str | None = option(None, optional_text, per_request=False)
    url_field: str | None = option("url", optional_text, per_request=False)
    content_selector: str | None = option(None, css_or_xpath)
    site_key: str = option("host", site_key)
    max_size: int = option(DEFAULT_MAX_SIZE, size)
    threads: bool = option(True, boolean, per_request=False)
    processes: int = option(DEFAULT_PROCESSES, processes, per_request=False)
    trim_memory: bool = option(True, boolean, per_request=False)
    # Per crawl: scrapy-playwright is configured for the whole crawl, or not.
    render_shells: bool = option(False, boolean, per_request=False)
    inspect_dir: str | None = option(None, optional_text, per_request=False)
    inspect_sample: float = option(DEFAULT_INSPECT_SAMPLE, rate, per_request=False)
    #: The crawl's options, on options a request's meta changed: their item fields stay on
    #: that request's items, so a renamed field adds a column and removes none.
    crawl: DeclutterOptions | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # "auto", the default, is resolved here too: options built directly, not read from
        # settings, then hold a number of processes like every crawl's.
        if isinstance(self.processes, str):
            object.__setattr__(self, "processes", processes(self.processes))

    @property
    def chain(self) -> str:
        """The extractor spec the pages are analysed with: ``extractor`` under the
        headline rule ``title_in_text`` asks for."""
        return with_headline_rule(self.extractor, self.title_in_text)

    @classmethod
    def from_settings(
        cls, settings: BaseSettings, overrides: Mapping[str, Any] | None = None
    ) -> DeclutterOptions:
        """Every option from the settings, spider ``overrides`` (by option name) on top, all checked.

        Raises one SettingsError that lists every bad value and every unknown
        ``DECLUTTER_*`` name.
        """
        overrides = overrides or {}
        raw = {name: settings[setting_name(name)] for name in OPTIONS
               if setting_name(name) in settings}
        raw.update(overrides)
        problems = [_unknown(key, SETTINGS) for key in settings
                    if isinstance(key, str) and key.startswith(PREFIX) and key not in SETTINGS]
        return cls._converted(raw, problems, describe=lambda name: (
            SPIDER_ARGUMENT_PREFIX + name if name in overrides else setting_name(name)))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DeclutterOptions:
        """Settings, then ``declutter_<option>`` spider arguments or attributes on top."""
        spider = getattr(crawler, "spider", None)
        overrides: dict[str, Any] = {}
        problems: list[str] = []
        for attr in dir(spider) if spider is not None else ():
            if not attr.startswith(SPIDER_ARGUMENT_PREFIX):
                continue
            name = attr.removeprefix(SPIDER_ARGUMENT_PREFIX)
            if name in OPTIONS:
                overrides[name] = getattr(spider, attr)
            else:
                problems.append(_unknown(attr, [SPIDER_ARGUMENT_PREFIX + o for o in OPTIONS],
                                         what="spider argument"))
        try:
            options = cls.from_settings(crawler.settings, overrides)
        except SettingsError as e:
            problems.extend(e.args)
        if problems:
            raise SettingsError(*problems)
        return options

    def override(self, changes: Mapping[str, Any]) -> DeclutterOptions:
        """These options with a request's ``meta["declutter"]`` dict applied.

        Keys are option names (``extractor``, ``text_field``...) or their
        ``DECLUTTER_*`` setting names; a key that is unknown or not settable
        per request, or a bad value, raises SettingsError.
        """
        if not changes:
            return self
        raw: dict[str, Any] = {}
        problems: list[str] = []
        for key in changes:
            name = str(key).removeprefix(PREFIX).lower() if str(key).isupper() else str(key)
            if name in REQUEST_OPTIONS:
                raw[name] = changes[key]
            else:
                problems.append(_unknown(key, sorted(REQUEST_OPTIONS), what=f"meta[{META_KEY!r}] key"))
        options = self._converted(raw, problems, base=self, describe=lambda n: n)
        return dataclasses.replace(options, crawl=self.crawl or self)

    @classmethod
    def _converted(cls, raw: Mapping[str, Any], problems: list[str], *,
                   describe: Callable[[str], str],
                   base: DeclutterOptions | None = None) -> DeclutterOptions:
        values: dict[str, Any] = {}
        for name, value in raw.items():
            try:
                values[name] = OPTIONS[name].convert(value)
            except ValueError as e:
                problems.append(f"{describe(name)}={value!r} {e}")
        if problems:
            raise SettingsError(*problems)
        if base is not None:
            options = dataclasses.replace(base, **values)
        else:
            defaults = {name: OPTIONS[name].convert(DEFAULTS[setting_name(name)])
                        for name in OPTIONS if name not in values}
            options = cls(**defaults, **values)
        clash = options.field_clash()
        if clash:
            raise SettingsError(clash)
        return options

    def item_fields(self) -> dict[str, Callable[[Result], Any]]:
        """Item field -> what a Result puts there, for every field these options fill.

        Options a request's meta changed fill the crawl's fields too, first.
        """
        own = {name: value for name, _, value in self._fields()}
        return own if self.crawl is None else {**self.crawl.item_fields(), **own}

    def field_clash(self) -> str:
        """Why two outputs would land in one item field, or "" when they do not."""
        seen: dict[str, str] = {}
        for name, source, _ in self._fields():
            if name in seen:
                return (f"{seen[name]} and {source} both name the item field {name!r}; "
                        "give each its own field")
            seen[name] = source
        return ""

    def _fields(self) -> list[tuple[str, str, Callable[[Result], Any]]]:
        """(item field, the setting that asks for it, its value) for each field filled."""
        fields = [(getattr(self, kind), setting_name(kind), value)
                  for kind, value in FIELD_KINDS.items()
                  if getattr(self, kind)
                  and (kind not in _FORMAT_KINDS or kind in FORMATS[self.format])]
        if self.chunks_field:  # a kind of its own: its value reads DECLUTTER_CHUNK_WORDS too
            fields.append((self.chunks_field, setting_name("chunks_field"),
                           functools.partial(Result.chunks, words=self.chunk_words)))
        fields += [(name, f"{setting_name('metadata_fields')}[{attr!r}]",
                    functools.partial(metadata_value, attr))
                   for attr, name in self.metadata_fields]
        if self.duplicate_field:  # None here; the crawl's index fills it (``state``)
            fields.append((self.duplicate_field, setting_name("duplicate_field"), _no_value))
        return fields


def _no_value(result: Result) -> None:
    """The value of a field that no Result gives, filled in by the crawl."""
    return None


def setting_name(option_name: str) -> str:
    """``text_field`` -> ``DECLUTTER_TEXT_FIELD``."""
    return PREFIX + option_name.upper()


def _unknown(key: Any, valid: Iterable[str], *, what: str = "setting") -> str:
    valid = list(valid)
    close = difflib.get_close_matches(str(key), valid, n=1)
    hint = f"; did you mean {close[0]}?" if close else "."
    return f"{key} is not a scrapy_declutter {what}{hint} Valid: {', '.join(valid)}"


#: Option name -> how it is read.
OPTIONS: dict[str, Setting] = {
    f.name: f.metadata["setting"] for f in dataclasses.fields(DeclutterOptions)
    if "setting" in f.metadata
}
#: Setting name -> default, derived from the options: the enabling flag first, as in Scrapy.
DEFAULTS: dict[str, Any] = {
    setting_name(f.name): f.default for f in dataclasses.fields(DeclutterOptions)
    if "setting" in f.metadata
}
#: Setting name -> how it is read; the names that are checked for typos.
SETTINGS: dict[str, Setting] = {setting_name(name): s for name, s in OPTIONS.items()}
#: Options a request's ``meta["declutter"]`` dict may override.
REQUEST_OPTIONS = frozenset(name for name, s in OPTIONS.items() if s.per_request)


def default_store_uri() -> str:
    """``sqlite:///`` + the project's store file (``stores.project_store_path``)."""
    from ..sitelearning.stores import project_store_path

    return f"sqlite:///{project_store_path()}"
