"""The headline rule (``steps/title.py``): one title in metadata, Markdown and, per the rule, text.

A hand-written Guardian-like page and a real Guardian page (Readability's
test pages, Apache-2.0) whose ``<h1>`` and standfirst the classifier alone
labels boilerplate; ``sample_data/headline/README.md`` says where they come from.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from scrapy_declutter import CONTENT, Page, extract
from scrapy_declutter.blocks import BOILERPLATE
from scrapy_declutter.registry import build_extractor
from scrapy_declutter.steps.title import IN_TEXT, TitleHeading, is_standfirst

DATA = Path(__file__).parent / "sample_data" / "headline"
LIKE_URL = "https://www.dailyledger.example/environment/2026/feb/14/river-birds-count"
LIKE_HEADLINE = "Thousands of volunteers count river birds as winter floods recede"
LIKE_STANDFIRST = ("The annual survey found more wading birds on the lower valley than in any "
                   "year since records began, despite the wettest autumn in a decade")
REAL_HEADLINE = "'What is the sea telling us?': Māori tribes fearful over whale strandings"
REAL_STANDFIRST = ("New Zealand’s whale whisperers worry that manmade changes in the ocean are "
                   "behind the spike in beachings")
RULES = {"learned+title(in_text=true)": True, "learned+title(in_text=false)": False,
         "default": IN_TEXT}


def guardian_like() -> bytes:
    return (DATA / "guardian-like.html").read_bytes()


def guardian_real() -> tuple[bytes, str]:
    truth = json.loads((DATA / "0037.json").read_text(encoding="utf-8"))
    return gzip.decompress((DATA / "0037.html.gz").read_bytes()), truth["url"]


def pages():
    real, url = guardian_real()
    return [(guardian_like(), LIKE_URL, LIKE_HEADLINE, LIKE_STANDFIRST),
            (real, url, REAL_HEADLINE, REAL_STANDFIRST)]


@pytest.mark.parametrize("spec", sorted(RULES))
@pytest.mark.parametrize("page", [0, 1], ids=["guardian-like", "guardian-real"])
def test_headline_follows_the_rule_and_the_standfirst_is_text(spec, page):
    html, url, headline, standfirst = pages()[page]
    result = extract(html, url, extractor=spec)
    paragraphs = result.text.split("\n\n")
    assert standfirst in paragraphs
    assert (paragraphs[0] == headline) is RULES[spec]
    assert headline not in paragraphs[1:]
    assert result.metadata.title == headline
    assert result.headline == headline
    markdown = result.markdown
    assert markdown.startswith(f"# {headline}\n\n")
    assert markdown.count(headline) == 1  # not repeated when the text has it too
    # The body, and none of the header's byline, dateline or share links.
    assert "Share on Facebook" not in result.text and "Last modified" not in result.text


def test_the_real_page_loses_headline_and_standfirst_without_the_rule():
    """What the rule fixes: the classifier alone leaves both out on the real page."""
    html, url = guardian_real()
    alone = extract(html, url, extractor="learned")
    assert REAL_STANDFIRST not in alone.text and not alone.text.startswith(REAL_HEADLINE)


def test_the_standfirst_is_put_back_when_the_classifier_drops_the_header():
    """The hand-written page as the classifier saw the real one: the whole header left out."""
    page = Page.from_html(guardian_like(), LIKE_URL)
    build_extractor("learned").run(page)
    body_start = next(i for i, b in enumerate(page.blocks) if b.text.startswith("More than four"))
    for b in page.blocks[:body_start]:
        b.set_label(BOILERPLATE, 0.05, "learned")
    TitleHeading(in_text=True).process(page)
    kept = [b.text for b in page.blocks[:body_start] if b.label == CONTENT]
    assert kept == [LIKE_HEADLINE, LIKE_STANDFIRST]


@pytest.mark.parametrize(("text", "standfirst"), [
    (LIKE_STANDFIRST, True),
    ("By Maria Lindqvist, environment correspondent for the Ledger since 2019", False),
    ("Sat 14 Feb 2026 07.00 GMT Last modified on Sat 14 Feb 2026 09.12 GMT", False),
    ("Maria Lindqvist Environment correspondent", False),
])
def test_is_standfirst(text, standfirst):
    block = Page.from_html(f"<html><body><p>{text}</p></body></html>").blocks[0]
    assert is_standfirst(block) is standfirst


def test_a_heading_far_from_the_content_is_not_the_headline():
    nav = "<nav><ul>" + "".join(f"<li><a href='/{i}'>Menu entry {i} of the site menu</a></li>"
                                for i in range(30)) + "</ul></nav>"
    body = "<p>" + "Cats are small carnivorous mammals that people keep. " * 8 + "</p>"
    html = f"<html><head><title>Cats | Pets</title></head><body><h1>Cats</h1>{nav}{body}</body></html>"
    result = extract(html, "https://pets.example/cats", extractor="learned+title(in_text=true)")
    assert not result.text.startswith("Cats\n\n")
    assert result.markdown.startswith("# Cats\n\n")  # the Markdown has its title all the same


def test_markdown_title_without_a_heading_is_the_title_without_the_site_name():
    body = "<p>" + "Cats are small carnivorous mammals that people keep. " * 8 + "</p>"
    result = extract(f"<html><head><title>All about cats | Pets</title></head><body>{body}</body></html>")
    assert result.markdown.startswith("# All about cats\n\nCats are small")
    assert extract("<html><body>" + body + "</body></html>").markdown.startswith("Cats are small")


@pytest.mark.parametrize(("extractor", "in_text", "chain"), [
    ("default", False, "default"),
    ("default", True,
     "learned+datatable+teasers+itemlist+thread+overlays+specs+rails+productdata+title(in_text=true)"),
    ('default(favor="recall")', True,
     ('learned(favor="recall")+datatable+teasers+itemlist+thread+overlays+specs+rails+productdata'
      '+title(in_text=true)')),
    ("learned+title", True, "learned+title(in_text=true)"),
    ("learned+title(in_text=false)", True, "learned+title(in_text=false)"),  # written out: kept
    ("density", True, "density"),
])
def test_the_title_in_text_setting_sets_the_chains_title_step(extractor, in_text, chain):
    from scrapy.utils.test import get_crawler

    from scrapy_declutter.integration.settings import DeclutterOptions

    settings = {"DECLUTTER_EXTRACTOR": extractor, "DECLUTTER_TITLE_IN_TEXT": str(in_text).lower()}
    options = DeclutterOptions.from_settings(get_crawler(settings_dict=settings).settings)
    assert options.title_in_text is in_text
    assert options.chain == chain
    build_extractor(chain)  # a spec that builds
    html, url = guardian_like(), LIKE_URL
    if extractor == "default":
        assert extract(html, url, extractor=chain).text.startswith(LIKE_HEADLINE) is in_text


def test_out_of_the_text_the_headline_is_never_content():
    """Even where no content follows it closely (the gap only decides whether it goes in)."""
    page = Page.from_html("<html><head><title>Cats | Pets</title></head><body><h1>Cats</h1>"
                          + "<p>menu</p>" * 20 + "<p>Cats purr.</p></body></html>")
    for b in page.blocks:
        b.set_label(CONTENT if b.text.startswith(("Cats", "Cats purr")) else BOILERPLATE, 0.9, "test")
    TitleHeading(in_text=True).process(page)
    assert page.blocks[0].is_content and page.blocks[0].step == "test"
    TitleHeading(in_text=False).process(page)
    assert not page.blocks[0].is_content and page.blocks[0].step == "title"
