"""Structural template: a block at one place on every page, differing only by date, URL or name.

The fixture is a small blog in the shape of a web-archive capture (the archive's
banner above every page, a "Posted on <date> by <name>" line under each title):
its text is written for this test, the layout follows the captures described in issue 16.
"""

from __future__ import annotations

import itertools
import random

from scrapy_declutter import Declutter
from scrapy_declutter.sitelearning.learner import TEMPLATE_STEP
from scrapy_declutter.sitelearning.model import SiteModel
from scrapy_declutter.sitelearning.places import folded_hash, keyed_at


def structure_key(path: str, text: str) -> int:
    """The structural key of a block at ``path`` as the site step computes it (0: none)."""
    folded = folded_hash(text)
    return keyed_at(path, folded) if folded else 0

AUTHORS = ["Jane Roe", "Tom Hart", "Ann Lee", "Raj Patel", "Mia Chen", "Olu Ade"]
MONTHS = ["March", "April", "May", "June", "July", "August"]
SUBJECTS = ["the harbour wall repairs", "the new cycle bridge", "the library opening hours",
            "the river clean-up day", "the market hall roof", "the school bus timetable"]


def page(i: int) -> str:
    """One archived post: banner and byline vary only by date, URL and name; the body is unique."""
    body = "".join(
        f"<p>Part {j} of post {i}: residents gathered to discuss {SUBJECTS[(i + j) % 6]}, and the "
        f"meeting heard from {AUTHORS[(i + j + 1) % 6]} about costs, delays and what comes next "
        f"for {SUBJECTS[(i + 2 * j) % 6]} over the coming season.</p>" for j in range(4))
    return f"""<html><head><title>Post {i}</title></head><body>
<div id="wm-banner" class="archive-notice"><p>The Wayback Machine captured this page on
{i + 3} {MONTHS[i]} 20{10 + i} from http://blog.example.net/{2010 + i}/post-{i}.html; links may
point to pages that were never archived by the crawler at the time of the capture.</p></div>
<div id="post"><h1>Post {i} on {SUBJECTS[i]}</h1>
<p class="byline">Posted on {i + 1} {MONTHS[i]} 20{10 + i} by {AUTHORS[i]} in Community News,
filed under Town Council and Local Democracy with {i * 3 + 2} comments so far</p>
{body}</div></body></html>"""


PAGES = {f"https://blog.example.net/post-{i}.html": page(i) for i in range(6)}


def labels(order: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Each URL's (text, label) pairs in a re-crawl, after a first crawl in ``order``."""
    with Declutter("density", store="memory:") as dec:
        for url in order:
            dec.extract(PAGES[url], url)
        return {url: [(b.text, b.label) for b in dec.extract(PAGES[url], url).blocks]
                for url in PAGES}


def test_byline_becomes_template_and_paragraphs_stay():
    results = labels(list(PAGES))
    for url, blocks in results.items():
        banner = [label for text, label in blocks if text.startswith("The Wayback Machine")]
        byline = [label for text, label in blocks if text.startswith("Posted on")]
        body = [label for text, label in blocks if text.startswith("Part ")]
        assert byline == ["boilerplate"], url  # its text at one place: two signals
        # The banner repeats by its text alone, a paragraph the generic steps were sure of:
        # one signal, so the template does not take it (``SiteLearner._may_take``).
        assert banner == ["content"], url
        assert body == ["content"] * 4, url


def test_byline_alone_is_not_caught_by_text_fingerprints():
    # The names differ, so without the structural key the byline would not repeat.
    with Declutter("density", store="memory:") as dec:
        for url in PAGES:
            dec.extract(PAGES[url], url)
        last = dec.extract(PAGES[url], url)  # a re-crawl, with what all six taught
        byline = next(b for b in last.blocks if b.text.startswith("Posted on"))
        assert byline.step == TEMPLATE_STEP
        model = dec.model("blog.example.net")
        assert model is not None and max(model.structures.values()) == 6


def test_shuffled_arrival_orders_give_identical_labels():
    orders = [list(p) for p in random.Random(16).sample(list(itertools.permutations(PAGES)), 5)]
    first = labels(orders[0])
    assert all(labels(o) == first for o in orders[1:])


def test_structural_key_needs_the_same_place_and_the_same_folded_text():
    byline = "Posted on 3 May 2011 by Jane Roe"
    assert structure_key("div/p", byline) == structure_key("div/p", "Posted on 9 June 2014 by Tom Hart")
    assert structure_key("div/p", byline) != structure_key("footer/p", byline)
    # A text that names nobody has no structural key: its fingerprint says as much.
    assert structure_key("div/p", "the council voted") == 0
    # A Title Case headline keeps its words: only names after a lower-case word fold.
    assert structure_key("h1", "The Best Laptops For Students") == 0
    assert structure_key("div/p", "x" * 400) == 0  # long blocks have no structural key


def test_structures_and_containers_round_trip_and_merge():
    model = SiteModel("a.example", pages=3, structures={7: 2}, containers={"/html/body/main": 3})
    back = SiteModel.from_bytes(model.to_bytes())
    assert back.structures == {7: 2} and back.containers == {"/html/body/main": 3}
    merged = SiteModel.from_bytes(model.to_bytes()).merge(model)
    assert merged.structures == {7: 4} and merged.containers == {"/html/body/main": 6}


def test_sites_show_lists_the_template_with_counts_and_examples(tmp_path, capsys):
    import json

    from scrapy_declutter.cli import main

    store = f"sqlite:///{tmp_path / 'sites.db'}"
    with Declutter("density", store=store) as dec:
        for url in PAGES:
            dec.extract(PAGES[url], url)
    assert main(["sites", "show", "blog.example.net", "--store", store, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    rows = summary["template"]
    byline = [r for r in rows if r["example"].startswith("Posted on")]
    assert len(byline) == 1 and byline[0]["pages"] == 6 and byline[0]["rule"] == "place"
    assert "div#post/p.byline" in byline[0]["example"]  # its place in the page
    assert not any(r["example"].startswith("Part ") for r in rows)  # body never template
