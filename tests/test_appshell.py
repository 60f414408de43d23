"""App shells: told apart from short pages, their embedded text extracted (``appshell``,
``steps.embedded``). Fixtures: ``sample_data/appshell/README.md``."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from conftest import SAMPLE_DATA, SHARED_WCXB, needs_shared

from scrapy_declutter import Page, extract
from scrapy_declutter.api import result_of
from scrapy_declutter.appshell import SHELL_MAX_WORDS, embedded_text, find_app_shell
from scrapy_declutter.integration.converters import metadata_fields
from scrapy_declutter.integration.items import field_values
from scrapy_declutter.integration.settings import DeclutterOptions
from scrapy_declutter.limits import empty_root

SHELLS = SAMPLE_DATA / "appshell"
URL = "https://riverside.example/posts/leaf-mould"


def page_bytes(name: str) -> bytes:
    data = (SHELLS / name).read_bytes()
    return gzip.decompress(data) if name.endswith(".gz") else data


def test_a_react_shell_is_flagged_and_needs_rendering():
    result = extract(page_bytes("cra-shell.html"), "https://app.example/")
    assert result.reason == "app_shell"
    assert result.needs_rendering
    assert result.metadata.needs_rendering is True
    # Its one block, the <noscript> notice, is the shell's, not content.
    assert [(b.tag, b.label, b.step) for b in result.blocks] == [("noscript", "boilerplate", "embedded")]
    assert result.text == "" and result.chunks() == []


def test_a_real_shell_from_wcxb_is_flagged():
    result = extract(page_bytes("4577.html.gz"), "https://www.express.com/clothing/women/clearance/cat1920001")
    assert result.reason == "app_shell" and result.needs_rendering
    truth = json.loads((SHELLS / "4577.json").read_text(encoding="utf-8"))
    assert truth["ground_truth"]["main_content"].strip() == ""  # nothing a crawler could have shown


def test_a_next_shell_gives_the_article_its_data_embeds():
    result = extract(page_bytes("next-shell-article.html"), URL)
    assert result.reason == "app_shell"
    assert not result.needs_rendering and result.metadata.needs_rendering is False
    content = result.content_blocks
    assert {b.step for b in content} == {"embedded"}
    assert {b.xpath for b in content} == {"/html/body/script"}  # where the data sits
    assert [b.index for b in result.blocks] == list(range(len(result.blocks)))
    assert result.text.startswith(
        "Making leaf mould from autumn leaves\n\nLeaf mould is the crumbly, dark material")
    assert result.text.endswith("that you can sieve and use for sowing seeds.")
    md = result.markdown
    assert md.startswith("# Making leaf mould from autumn leaves\n\n")
    assert "\n## Collecting the leaves\n" in md
    assert "\n- Run the mower over a pile of leaves to shred them" in md
    # The same post rendered on the server gives the same words.
    rendered = extract(page_bytes("next-rendered-article.html"), URL)
    assert rendered.reason == "" and not rendered.needs_rendering
    assert "Leaf mould is the crumbly, dark material" in rendered.text
    # (The embedded text keeps its title heading, which the rendered page's text leaves out
    # under the headline rule: the embedded step runs after every extractor, unchanged.)
    assert set(result.text.split()) <= (set(rendered.text.split()) | set(rendered.headline.split())
                                        | {"Ann", "Hollis", "·", "2026-10-12"})


def test_a_short_real_page_is_not_a_shell():
    body = page_bytes("next-notice.html")
    result = extract(body, "https://riverside.example/notice")
    assert result.reason == "" and not result.needs_rendering
    words = len(result.text.split())
    assert 30 <= words <= SHELL_MAX_WORDS  # short enough for the check to look at it
    assert result.text.startswith("The allotment gates will stay locked")
    assert result.markdown.startswith("# Allotments closed on Saturday\n\nThe allotment gates")
    # Its mount element and scripts are there; the mount holds the notice, so no shell.
    page = Page.from_html(body)
    assert page.root.xpath("//div[@id='__next']//p") and page.root.xpath("//script[@src]")
    assert find_app_shell(page.root, page.blocks) is None


def test_the_shell_is_found_before_a_held_page_lets_its_tree_go():
    page = Page.from_html(page_bytes("next-shell-article.html"), URL)
    page.root = empty_root()  # what a page held through a warm-up does
    result = result_of(page, "default")
    assert result.reason == "app_shell" and result.text.startswith("Making leaf mould")
    again = result_of(page, "default")  # applied once: no second copy of the blocks
    assert len(again.blocks) == len(result.blocks) and again.text == result.text


SHELL = ('<html><head><title>Shop</title></head><body><div id="{mount}">{inside}</div>'
         '<script src="/app.js"></script>{tail}</body></html>')
BODY = ("Hand-thrown stoneware mugs are fired twice, once to harden the clay and once to melt "
        "the glaze, and each one comes out of the kiln a little different from the others.")


@pytest.mark.parametrize("tail, source", [
    # Nuxt 3: the payload is a flat JSON list the client revives.
    (f'<script type="application/json" id="__NUXT_DATA__">[{{"data":1}},{{"mug":2}},'
     f'{json.dumps(BODY)},"Mugs"]</script>', "__NUXT_DATA__"),
    # Nuxt 2 with a JSON state.
    (f'<script>window.__NUXT__={json.dumps({"data": [{"title": "Mugs", "body": BODY}]})};</script>',
     "window.__NUXT__"),
    # A shell describing its article in JSON-LD, read by extruct.
    ('<script type="application/ld+json">'
     + json.dumps({"@context": "https://schema.org", "@type": "Article", "headline": "Mugs",
                   "articleBody": BODY}) + "</script>", "json-ld"),
])
def test_every_kind_of_embedded_data_is_read(tail, source):
    html = SHELL.format(mount="__nuxt", inside="", tail=tail)
    result = extract(html)
    assert result.reason == "app_shell" and not result.needs_rendering
    assert embedded_text(Page.from_html(html).root)[0] == source
    assert BODY in result.text


@pytest.mark.parametrize("inside, tail", [
    ("<p>" + BODY + "</p>", ""),          # the mount holds the page: rendered on the server
    ("", "<p>" + " ".join([BODY] * 2) + "</p>"),  # more shown than a shell shows
])
def test_pages_with_their_text_shown_are_not_shells(inside, tail):
    result = extract(SHELL.format(mount="root", inside=inside, tail=tail))
    assert result.reason == "" and BODY in result.text


def test_a_page_without_scripts_or_mount_is_not_a_shell():
    no_scripts = '<html><body><div id="root"></div><p>Closed today.</p></body></html>'
    no_mount = '<html><body><div id="page"></div><script src="/a.js"></script></body></html>'
    assert extract(no_scripts).reason == ""
    assert extract(no_mount).reason == "no_text"


def test_needs_rendering_is_a_metadata_field():
    options = DeclutterOptions(metadata_fields=metadata_fields(["needs_rendering"]))
    shell = extract(page_bytes("cra-shell.html"), "https://app.example/")
    article = extract(page_bytes("next-shell-article.html"), URL)
    assert field_values(shell, options)["needs_rendering"] is True
    assert field_values(article, options)["needs_rendering"] is False
    assert field_values(None, options)["needs_rendering"] is None


@needs_shared
def test_on_wcxb_dev_no_page_with_content_is_a_shell():
    """The lab check behind the thresholds: no page whose gold main content has 50 words or
    more is flagged (2 pages are, both with empty gold: 0585, a Next.js product page whose
    ``__NEXT_DATA__`` carries its description, and 4577, a React shell)."""
    from scrapy_declutter.lab.dataset import load_dataset

    flagged = {}
    for sample in load_dataset(SHARED_WCXB):
        page = Page.from_html(sample.html_bytes(), sample.url)
        if page.reason == "app_shell":
            flagged[sample.file_id] = len(re.findall(r"\w+", (sample.main_content or "").lower()))
    assert flagged, "the rule flags nothing: the check would pass vacuously"
    assert {k: v for k, v in flagged.items() if v >= 50} == {}


@pytest.mark.parametrize("data", [
    "{not json",
    '{"props": "a string, not an object"}',
    "[" * 100_000 + "]" * 100_000,  # nested past the JSON parser's depth
    json.dumps({"props": {"pageProps": {"label": "Add to basket", "count": 3}}}),  # no prose
])
def test_broken_or_empty_embedded_data_leaves_a_shell_that_needs_rendering(data):
    html = SHELL.format(mount="__next", inside="",
                        tail=f'<script id="__NEXT_DATA__" type="application/json">{data}</script>')
    result = extract(html)
    assert result.reason == "app_shell" and result.needs_rendering and result.text == ""
