"""The item writer's warning names the declaration that fixes each kind of item class."""

from __future__ import annotations

import dataclasses
import logging

import attr
import pytest
import scrapy

from scrapy_declutter.integration.items import FieldWriter


@dataclasses.dataclass
class GeneratedItem:
    """What ``scrapy startproject`` writes in items.py since Scrapy 2.19: an empty dataclass."""


@attr.s
class AttrsItem:
    url = attr.ib(default=None)


class ScrapyItem(scrapy.Item):
    url = scrapy.Field()


@pytest.mark.parametrize(("item", "fix"), [
    (GeneratedItem(), "clean_text: str | None = None on the dataclass"),
    (AttrsItem(), "clean_text = attr.ib(default=None) on the attrs class"),
    (ScrapyItem(), "clean_text = scrapy.Field() on the scrapy.Item"),
])
def test_the_warning_names_the_fix_for_the_items_kind(item, fix, caplog):
    with caplog.at_level(logging.WARNING):
        assert FieldWriter().write(item, {"clean_text": "the text", "title": None}) == 0
    [record] = caplog.records
    assert f"{type(item).__qualname__} does not declare the field 'clean_text'" in record.getMessage()
    assert f"declare it ({fix})" in record.getMessage()


def test_the_declared_type_follows_the_value(caplog):
    with caplog.at_level(logging.WARNING):
        FieldWriter().write(GeneratedItem(), {"blocks": [{"label": "content"}]})
    assert "blocks: list | None = None on the dataclass" in caplog.text
