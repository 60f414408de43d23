"""The lab's per-rule account of site learning (``sitelearning rules``): every page of a site
scored in both passes, with each rule's relabels undone in turn."""

from __future__ import annotations

import dataclasses

from scrapy_declutter.lab.dataset import load_texts
from scrapy_declutter.lab.evaluation.siterules import RULES, format_rule_effects, rule_effects


def test_each_page_gets_its_f1_without_each_rule_in_both_passes(tiny_dataset):
    pages = [dataclasses.replace(s, domain="one-site.example") for s in load_texts(tiny_dataset)]
    effects = rule_effects(pages, min_pages=3)
    assert sorted((e.mode, e.file_id) for e in effects) == sorted(
        (mode, s.file_id) for mode in ("first", "recrawl") for s in pages)
    for e in effects:
        assert set(e.without) == set(RULES)
        assert all(0.0 <= f1 <= 1.0 for f1 in (e.f1, e.generic_f1, *e.without.values()))
    table = format_rule_effects(effects)
    assert len(table.splitlines()) == 1 + 2 * len(RULES)
    assert rule_effects(pages, min_pages=4) == []  # a site with too few pages is left out
