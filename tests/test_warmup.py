"""``Declutter(warmup=K)``: a site's first K pages labelled together, whatever their order.

The fixture is the gardening club of tests/sample_data/scrapy (five pages, one template).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from scrapy_declutter import Declutter  # noqa: E402

SITE = Path(__file__).parent / "sample_data" / "scrapy"
PAGES = {f"https://club.example/{name}": (SITE / name).read_text(encoding="utf-8")
         for name in ("index.html", "tomatoes.html", "compost.html", "bees.html", "pruning.html")}


def run(order: list[str], warmup: int) -> dict[str, object]:
    """Submit the pages in ``order``; each URL's Result once its warm-up released it."""
    results = {}
    with Declutter(store="memory:", warmup=warmup) as dec:
        for url in order:
            for released in dec.submit(PAGES[url], url):
                assert released.key not in results  # released once
                results[released.key] = released.result
        for released in dec.release():
            assert released.key not in results
            results[released.key] = released.result
        assert dec.release() == []  # nothing left held
    return results


def test_five_orders_give_identical_results():
    orders = [random.Random(seed).sample(list(PAGES), len(PAGES)) for seed in range(5)]
    runs = [run(order, warmup=8) for order in orders]
    for results in runs:
        assert set(results) == set(PAGES)
        # Every page labelled with the model learned from all five, none from fewer.
        assert {r.site_learning.pages for r in results.values()} == {len(PAGES)}
        assert all(r.url == url for url, r in results.items())  # its own page's result
    texts = [{url: r.text for url, r in results.items()} for results in runs]
    assert all(t == texts[0] for t in texts[1:])
    assert "Follow us" not in "".join(texts[0].values())


def test_a_full_warm_up_releases_at_once_and_later_pages_go_through():
    urls = list(PAGES)
    with Declutter(store="memory:", warmup=3) as dec:
        assert dec.submit(PAGES[urls[0]], urls[0]) == []
        assert dec.submit(PAGES[urls[1]], urls[1], key="second") == []
        released = dec.submit(PAGES[urls[2]], urls[2])
        assert [r.key for r in released] == [urls[0], "second", urls[2]]
        assert all(r.result.site_learning.pages == 3 for r in released)
        [after] = dec.submit(PAGES[urls[3]], urls[3])
        assert after.key == urls[3] and after.result.site_learning.pages == 3


def test_held_pages_are_bounded_across_sites():
    with Declutter(store="memory:", warmup=8, max_held=3) as dec:
        held = [dec.submit(html, url.replace("club", f"club{i}"))
                for i, (url, html) in enumerate(PAGES.items())]
        # The fourth site's page is one too many: the first site's warm-up ends early.
        assert held[:3] == [[], [], []]
        assert [r.key for r in held[3]] == [next(iter(PAGES)).replace("club", "club0")]


def test_no_warm_up_learns_as_it_goes():
    first = next(iter(PAGES))
    results = run(list(PAGES), warmup=0)
    assert results[first].site_learning.pages == 0  # the first page saw an empty model


def test_close_learns_from_pages_still_held_and_warns(caplog):
    from scrapy_declutter.sitelearning.stores import open_store

    store = open_store("memory:")
    dec = Declutter(store=store, warmup=8)
    for url, html in PAGES.items():
        assert dec.submit(html, url) == []
    dec.flush()  # nothing learned yet: the pages are held
    assert store.load("club.example") is None
    dec.close()
    assert "still held in site warm-ups" in caplog.text
    assert store.load("club.example").pages == len(PAGES)  # what they teach is kept


def test_the_lab_order_check_on_a_small_dataset(tmp_path):
    """``lab.evaluation.orders`` on the club pages written out as a dataset."""
    import gzip
    import json

    from scrapy_declutter.lab.dataset import load_texts
    from scrapy_declutter.lab.evaluation.orders import check_orders

    files = {}
    (tmp_path / "html").mkdir()
    (tmp_path / "ground-truth").mkdir()
    for i, (url, html) in enumerate(PAGES.items()):
        file_id = f"{i:04d}"
        files[file_id] = {"domain": "club.example"}
        (tmp_path / "html" / f"{file_id}.html.gz").write_bytes(gzip.compress(html.encode()))
        truth = {"url": url, "ground_truth": {"main_content": "club journal garden"}}
        (tmp_path / "ground-truth" / f"{file_id}.json").write_text(json.dumps(truth))
    (tmp_path / "metadata.json").write_text(json.dumps({"files": files}))
    check = check_orders(load_texts(tmp_path), warmup=len(PAGES), orders=3)
    assert (check.pages, check.differing, len(check.f1)) == (len(PAGES), 0, 3)
    assert len(set(check.f1)) == 1 and 0 < check.f1[0] < 1
