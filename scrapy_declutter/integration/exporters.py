"""CSV and XML feed exporters that write nested values (block lists, dicts) as JSON text.

Scrapy's CSV exporter joins a list of strings with commas and writes anything
else nested as its Python repr (``[{'index': 0, 'text': ...}]``), which no
program reads back; its XML exporter spreads them into nested elements and
writes ``None`` as the text "None". These subclasses change only that: a dict,
or a list or tuple that is not all strings, becomes one JSON string (the same
text the JSON exporters write), and ``None`` an empty cell or element. A
field that declares its own ``serializer`` keeps it, and the JSON and JSON
lines exporters are left alone, so their lists stay lists.

The add-on registers them in ``FEED_EXPORTERS`` for ``csv`` and ``xml``
unless the project names its own exporter for those formats.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scrapy import exporters
from scrapy.item import Field
from scrapy.utils.serialize import ScrapyJSONEncoder

_ENCODER = ScrapyJSONEncoder(ensure_ascii=False)


def json_text(value: Any) -> Any:
    """A nested value as JSON text; strings, numbers and lists of strings as they are."""
    if isinstance(value, Mapping) or (
        isinstance(value, (list, tuple)) and not all(isinstance(v, str) for v in value)
    ):
        return _ENCODER.encode(value)
    return value


class CsvItemExporter(exporters.CsvItemExporter):
    """Scrapy's CSV exporter, with nested values as JSON text."""

    def serialize_field(self, field: Mapping[str, Any] | Field, name: str, value: Any) -> Any:
        if "serializer" not in field:
            value = json_text(value)
        return super().serialize_field(field, name, value)


class XmlItemExporter(exporters.XmlItemExporter):
    """Scrapy's XML exporter, with nested values as JSON text and None as an empty element."""

    def serialize_field(self, field: Mapping[str, Any] | Field, name: str, value: Any) -> Any:
        if "serializer" not in field:
            value = "" if value is None else json_text(value)
        return super().serialize_field(field, name, value)
