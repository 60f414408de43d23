"""A site's warm-up in a real crawl: items identical whatever order the pages arrive in.

ChainSpider visits the fixture site's pages one after another, so each
crawl fixes an order; five orders of the same five pages must export the
same ``clean_text`` per URL, every item once, and requests must not wait
for the warm-up (each callback's next request is what moves the chain on).
"""

from __future__ import annotations

import itertools
import json
import random

from test_scrapy_crawl import CONTENT, crawl, feed, read_jsonl, site_url  # noqa: F401 (fixture)

PAGES = ["/index.html", "/tomatoes.html", "/compost.html", "/bees.html", "/pruning.html"]


def orders(n: int = 5) -> list[list[str]]:
    permutations = list(itertools.permutations(PAGES))
    return [list(p) for p in random.Random(16).sample(permutations, n)]


def test_five_arrival_orders_give_identical_items(site_url, tmp_path):
    specs = [{"spider": "ChainSpider", "args": {"start_url": site_url, "paths": json.dumps(o)},
              "settings": feed(tmp_path / f"items{i}.jsonl")} for i, o in enumerate(orders())]
    stats, log = crawl(tmp_path, *specs)
    texts = []
    for i, s in enumerate(stats):
        lines = (tmp_path / f"items{i}.jsonl").read_text().splitlines()
        assert len(lines) == len(PAGES)  # every item once: none lost, none sent twice
        items = read_jsonl(tmp_path / f"items{i}.jsonl")
        assert set(items) == set(PAGES)
        for path, phrase in CONTENT.items():
            assert phrase in items[path]["clean_text"]  # its own page's text
        # Five pages, fewer than the default eight: all held until the spider went idle.
        assert s["declutter/warmup/held_pages"] == len(PAGES)
        assert s["declutter/site_learning/pages"] == len(PAGES)
        assert s["declutter/warmup/items_sent"] == len(PAGES)
        assert s["declutter/items"] == len(PAGES)
        texts.append({path: item["clean_text"] for path, item in items.items()})
    assert all(t == texts[0] for t in texts[1:])
    # One INFO line per crawl (one site each), from the spider's logger.
    assert log.count("[chain] INFO: site 127.0.0.1: warm-up done on 5 pages") == len(specs)


def test_a_full_warm_up_releases_its_items_during_the_crawl(site_url, tmp_path):
    order = orders(1)[0]
    spec = {"spider": "ChainSpider", "args": {"start_url": site_url, "paths": json.dumps(order)},
            "settings": {**feed(tmp_path / "items.jsonl"), "DECLUTTER_WARMUP_PAGES": 3}}
    [stats], _ = crawl(tmp_path, spec)
    lines = (tmp_path / "items.jsonl").read_text().splitlines()
    items = read_jsonl(tmp_path / "items.jsonl")
    assert len(lines) == len(PAGES) and set(items) == set(PAGES)
    for path, phrase in CONTENT.items():
        assert phrase in items[path]["clean_text"]
    # The first two waited for the third, which released all three; the rest went as they came.
    assert stats["declutter/warmup/held_pages"] == 2
    assert stats["declutter/warmup/items_sent"] == 2
    assert stats["declutter/items"] == len(PAGES)


def test_items_held_when_the_spider_closes_early_reach_the_feed(site_url, tmp_path):
    order = orders(1)[0]
    spec = {"spider": "ChainSpider", "args": {"start_url": site_url, "paths": json.dumps(order)},
            "settings": {**feed(tmp_path / "items.jsonl"), "CLOSESPIDER_PAGECOUNT": 3}}
    [stats], _ = crawl(tmp_path, spec)
    assert stats["finish_reason"] == "closespider_pagecount"
    items = read_jsonl(tmp_path / "items.jsonl")
    assert len(items) == stats["declutter/warmup/held_items"] >= 3
    assert all(item["clean_text"] for item in items.values())
