"""The content container: learned from the bundled Python tutorial (17 real Sphinx pages).

The pages are the Python 3.11 tutorial as Debian ships it
(``example_project/site``, PSF licence, see its ``COPYRIGHT-debian-python3.11-doc``).
Each page's confident content sits in its own ``section#<page>`` inside
Sphinx's ``div.body``: the site's container is the deepest place they share.
"""

from __future__ import annotations

from pathlib import Path

from scrapy_declutter import Declutter
from scrapy_declutter.page import Page
from scrapy_declutter.sitelearning.learner import CONTAINER_STEP, SiteLearner
from scrapy_declutter.sitelearning.model import SiteModel
from scrapy_declutter.sitelearning.places import Places, containers

TUTORIAL = Path(__file__).resolve().parents[1] / "example_project" / "site" / "docs.python.org" / "3.11" / "tutorial"
PAGES = [(f"https://docs.python.org/3.11/tutorial/{p.name}", p.read_bytes())
         for p in sorted(TUTORIAL.glob("*.html"))]
BODY = "/html/body/div.document/div.documentwrapper/div.bodywrapper/div.body"


def learned(learner: SiteLearner | None = None) -> SiteModel:
    with Declutter(store="memory:", learner=learner) as dec:
        for url, html in PAGES:
            dec.extract(html, url)
        model = dec.model("docs.python.org")
    assert model is not None
    return model


def test_the_site_container_is_the_deepest_place_the_pages_share():
    model = learned()
    assert model.container(model.template_threshold()) == BODY
    # each page's own deepest place is its section, counted once
    assert sum(place.startswith(BODY + "/section#") for place in model.containers) >= 10


def test_a_page_teaches_the_nested_places_that_hold_its_confident_content():
    page = Page.from_html(PAGES[3][1], PAGES[3][0])
    places = Places(page.blocks)
    weights = [len(b.text) if b.tag == "p" and "body" in places.path(i) else 0
               for i, b in enumerate(page.blocks)]
    found = containers(places, weights, share=0.8)
    assert BODY in found and "/html/body" not in found  # bare <body> names nothing
    assert all(p.startswith(BODY) or BODY.startswith(p) for p in found)  # one chain
    assert containers(places, weights, share=0.8, min_total=10 ** 9) == []


def page_with_rail(i: int) -> str:
    """A news page: the article in div#page > div#main, a byline box beside it, a rail outside."""
    return f"""<html><body><div id="page"><div class="byline"><p>By the desk, story {i}</p></div>
<div id="main"><p>Paragraph one of story {i}, long enough to be the page's text.</p>
<p>Paragraph two of story {i}, with the rest of what happened.</p></div></div>
<div id="rail"><p>Most read today: story {i + 1} and story {i + 2}</p></div></body></html>"""


def unsure(html: str, score: float = 0.55) -> Page:
    page = Page.from_html(html, "https://news.example/9")
    for b in page.blocks:
        b.set_label("content", score, "some-step")  # kept, within 0.15 of the cut
    return page


def test_unsure_kept_blocks_far_outside_the_container_become_boilerplate():
    model = SiteModel("news.example", pages=6, containers={"/html/body/div#page/div#main": 6})
    page = unsure(page_with_rail(9))
    lesson = SiteLearner().apply(page, model)
    by_text = {b.text.split(",")[0].split(":")[0]: b for b in page.blocks}
    rail = by_text["Most read today"]
    assert not rail.is_content and rail.step == CONTAINER_STEP and lesson.settled == 1
    assert rail.site_reason is not None and rail.site_reason.pages == 6
    # beside the container (in its parent): left to the template and the generic steps
    assert by_text["By the desk"].is_content and by_text["By the desk"].step == "some-step"
    assert all(b.is_content for b in page.blocks if b.text.startswith("Paragraph"))
    # a confident block, a container seen on too few pages, or the option off: nothing moves
    assert SiteLearner().apply(unsure(page_with_rail(9), 0.95), model).settled == 0
    young = SiteModel("news.example", pages=4, containers={"/html/body/div#page/div#main": 4})
    assert SiteLearner().apply(unsure(page_with_rail(9)), young).settled == 0
