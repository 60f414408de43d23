"""The near-duplicate crawl check's parts: sites with known copies, and the score of the flags."""

from __future__ import annotations

import json
import os
import re

import pytest

from scrapy_declutter.lab.bench import testsites
from scrapy_declutter.lab.bench.duplicates import feed_flags, score, site_path


def test_sites_serve_each_page_under_three_urls_and_syndicate_a_page(tmp_path):
    sources = testsites.real_pages([])[:5]
    hosts = testsites.build(tmp_path, 2, 2, sources, copies=3, syndicate=True)
    site0, site1 = (tmp_path / h for h in hosts)
    for name in ("p0-2.html", "p0-3.html"):
        assert os.path.samefile(site0 / "p0.html", site0 / name)
    page = (site0 / "p1.html").read_bytes()
    assert b'<a href="p1-3.html">' in page and b"partner" not in page
    syndicated = (site1 / "p0.html").read_bytes()
    assert b"Republished by partner site 1" in syndicated
    assert not os.path.samefile(site0 / "p0.html", site1 / "p0.html")
    groups = testsites.copy_groups(hosts, 2, sources, copies=3, syndicate=True)
    assert len(groups) == 12
    assert groups[f"{hosts[1]}/p0-2.html"] == groups[f"{hosts[0]}/p0.html"] == 0
    assert groups[f"{hosts[1]}/p1.html"] == 3 != groups[f"{hosts[0]}/p1.html"]
    # A source page present twice (byte for byte) in the sources is one group.
    twice = testsites.copy_groups(hosts, 2, [*sources[:3], sources[0], sources[4]], copies=3)
    assert twice[f"{hosts[1]}/p1.html"] == twice[f"{hosts[0]}/p0.html"] == 0


def test_score_counts_right_wrong_and_missing_flags():
    groups = {"a1": 1, "a2": 1, "a3": 1, "b1": 2, "b2": 2, "c": 3}
    perfect = {"a1": None, "a2": "a1", "a3": "a1", "b1": None, "b2": "b1", "c": None}
    assert (score(perfect, groups).precision, score(perfect, groups).recall) == (1.0, 1.0)
    flawed = {**perfect, "a3": None, "c": "b1"}  # a copy missed, a distinct page flagged
    s = score(flawed, groups)
    assert (s.correct, s.flagged, s.expected) == (2, 3, 3)
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(2 / 3)
    s = score({**perfect, "c": "a1"}, groups)
    assert s.precision == pytest.approx(3 / 4) and s.to_first == 3
    # Right group but not the first copy: counted right, not as naming the first.
    s = score({**perfect, "a3": "a2"}, groups)
    assert s.correct == 3 and s.to_first == 2


def test_feed_flags_read_the_field_or_replay_the_texts(tmp_path):
    pytest.importorskip("datasketch")
    text = " ".join(f"word{i} of a real enough text" for i in range(60))
    items = [{"url": "http://127.0.1.1:80/p0.html", "clean_text": text},
             {"url": "http://127.0.1.1:80/p0-2.html", "clean_text": text},
             {"url": "http://127.0.1.1:80/p1.html", "clean_text": ""}]
    feed = tmp_path / "items.jsonl"
    feed.write_text("\n".join(json.dumps(i) for i in items))
    flags, replayed = feed_flags(feed, "duplicate_of")
    assert replayed and flags == {items[0]["url"]: None, items[1]["url"]: items[0]["url"]}
    feed.write_text("\n".join(json.dumps({**i, "duplicate_of": "x"}) for i in items))
    flags, replayed = feed_flags(feed, "duplicate_of")
    assert not replayed and set(flags.values()) == {"x"} and len(flags) == 2
    assert site_path(items[1]["url"]) == "127.0.1.1/p0-2.html"


def test_bench_crawl_duplicates_scores_a_real_crawl(capsys):
    """3 sites x 2 pages, each under three URLs, crawled by Scrapy on loopback: every copy
    after the first is flagged with the first's URL, no distinct page is."""
    pytest.importorskip("datasketch")
    from scrapy_declutter.cli import main

    argv = ["bench-crawl", "--sites", "3", "--pages", "2", "--rounds", "1", "--modes",
            "on-thread", "--duplicates", "--python-server"]
    assert main(argv) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if "on-thread round 1" in x]
    assert line, "no near-duplicate score printed"
    assert "precision 1.0000, recall 1.0000" in line[0]
    right, first = (int(n) for n in re.search(r"\((\d+) right, (\d+) of them", line[0]).groups())
    assert right == first >= 10  # 18 pages, at most 5 distinct texts, all copies to their first
