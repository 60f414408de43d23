"""Writing a Result onto an item of any type, through itemadapter.

Rules, the same for dicts, ``scrapy.Item``, dataclasses and attrs classes:

- Every configured field is present on every item a callback yields: the
  Result's value, or ``None`` when the response was not analysed (non-HTML,
  an error status, skipped, or its analysis failed). A feed whose columns
  come from its first item (Scrapy's CSV exporter) keeps them all.
- A field the spider already filled (present and not ``None``) is never
  overwritten.
- A field the item's class does not declare (a ``scrapy.Item`` without
  ``clean_text = scrapy.Field()``, a dataclass without that attribute) cannot be
  set: it is skipped; when there was a value to write it is counted in
  ``declutter/fields_skipped`` and a warning naming the class, the field and the
  declaration for that kind of class is logged once per crawl (a class that does not declare the field never asked
  for it, so a ``None`` is left out silently).
- A Result with no blocks (the page could not be analysed: its ``reason``
  says why) writes an empty text and an empty block list.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from itemadapter.adapter import AttrsAdapter, DataclassAdapter, PydanticAdapter, ScrapyItemAdapter

if TYPE_CHECKING:
    from ..result import Result
    from .settings import DeclutterOptions

logger = logging.getLogger(__name__)

#: How each kind of item class declares a field, for the warning that names the fix.
DECLARATIONS = (
    (ScrapyItemAdapter, "{name} = scrapy.Field() on the scrapy.Item"),
    (DataclassAdapter, "{name}: {kind} | None = None on the dataclass"),
    (AttrsAdapter, "{name} = attr.ib(default=None) on the attrs class"),
    (PydanticAdapter, "{name}: {kind} | None = None on the pydantic model"),
)


def field_values(result: Result | None, options: DeclutterOptions) -> dict[str, Any]:
    """Item field -> value for every configured field; all ``None`` without a Result."""
    return {name: (value(result) if result is not None else None)
            for name, value in options.item_fields().items()}


class FieldWriter:
    """Puts field values on items, remembering which (class, field) pairs it warned about."""

    def __init__(self, stats: Any = None) -> None:
        self.stats = stats
        self._warned: set[tuple[type, str]] = set()

    def write(self, item: Any, values: dict[str, Any]) -> int:
        """Set each field the item lacks; return how many non-None values were written."""
        adapter = ItemAdapter(item)
        declared = ItemAdapter.get_field_names_from_class(type(item))
        written = 0
        for name, value in values.items():
            if adapter.get(name) is not None:
                continue  # the spider's own value wins
            if declared is not None and name not in declared:
                if value is not None:
                    self._skip(type(item), name, value)
                continue
            try:
                adapter[name] = value
            except KeyError:  # an adapter that refuses the key despite declaring it
                if value is not None:
                    self._skip(type(item), name, value)
                continue
            written += value is not None
        return written

    def _skip(self, cls: type, name: str, value: Any) -> None:
        if self.stats is not None:
            self.stats.inc_value("declutter/fields_skipped")
        if (cls, name) not in self._warned:
            self._warned.add((cls, name))
            logger.warning(
                "%s does not declare the field %r, so scrapy_declutter leaves it out of "
                "its items; declare it (%s), or point the DECLUTTER_*_FIELD setting at a "
                "declared field, or set it to None",
                cls.__qualname__,
                name,
                declaration(cls, name, value),
            )


def declaration(cls: type, name: str, value: Any) -> str:
    """The line that declares ``name`` on an item class of ``cls``'s kind, for a value like ``value``."""
    for adapter, line in DECLARATIONS:
        if adapter.is_item_class(cls):
            return line.format(name=name, kind=type(value).__name__)
    return f"a field {name!r} with a None default"


def has_value(item: Any, field: str | None) -> bool:
    """Whether the item carries a non-empty value in ``field``."""
    if not field:
        return False
    try:
        return bool(ItemAdapter(item).get(field))
    except (KeyError, TypeError):
        return False
