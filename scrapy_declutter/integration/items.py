"""Writing a Result onto an item of any type, through itemadapter.

Rules, the same for dicts, ``scrapy.Item``, dataclasses and attrs classes:

- A field the spider already filled (present and not ``None``) is never
  overwritten.
- A field the item's class does not declare (a ``scrapy.Item`` without
  ``clean_text = scrapy.Field()``, a dataclass without that attribute) cannot be
  set: it is skipped, counted in ``declutter/fields_skipped``, and a warning
  naming the class and the field is logged once per crawl.
- A Result with no blocks (the page could not be analysed: its ``reason``
  says why) writes an empty text and no block labels; a best-effort Result
  (e.g. a page nested too deep, re-read flat) writes both.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

if TYPE_CHECKING:
    from ..result import Result
    from .settings import DeclutterOptions

logger = logging.getLogger(__name__)


def field_values(result: Result, options: DeclutterOptions) -> dict[str, Any]:
    """The item fields a Result fills, in plain JSON types."""
    values: dict[str, Any] = {}
    if options.text_field:
        values[options.text_field] = result.text
    if options.blocks_field and result.blocks:
        values[options.blocks_field] = result.labels()
    if options.title_field and result.title:
        values[options.title_field] = result.title
    return values


class FieldWriter:
    """Puts field values on items, remembering which (class, field) pairs it warned about."""

    def __init__(self, stats: Any = None) -> None:
        self.stats = stats
        self._warned: set[tuple[type, str]] = set()

    def write(self, item: Any, values: dict[str, Any]) -> int:
        """Set each value the item lacks; return how many fields were written."""
        adapter = ItemAdapter(item)
        declared = ItemAdapter.get_field_names_from_class(type(item))
        written = 0
        for name, value in values.items():
            if adapter.get(name) is not None:
                continue  # the spider's own value wins
            if declared is not None and name not in declared:
                self._skip(type(item), name)
                continue
            try:
                adapter[name] = value
            except KeyError:  # an adapter that refuses the key despite declaring it
                self._skip(type(item), name)
                continue
            written += 1
        return written

    def _skip(self, cls: type, name: str) -> None:
        if self.stats is not None:
            self.stats.inc_value("declutter/fields_skipped")
        if (cls, name) not in self._warned:
            self._warned.add((cls, name))
            logger.warning(
                "%s does not declare the field %r, so scrapy_declutter leaves it out of "
                "its items; declare it in the class (%s = scrapy.Field() on a scrapy.Item), "
                "or point the DECLUTTER_*_FIELD setting at a declared field, or set it to None",
                cls.__qualname__,
                name,
                name,
            )


def has_value(item: Any, field: str | None) -> bool:
    """Whether the item carries a non-empty value in ``field``."""
    if not field:
        return False
    try:
        return bool(ItemAdapter(item).get(field))
    except (KeyError, TypeError):
        return False
