"""The product-page rules: overlay boxes and recommendation rails left out, specification lists
kept whole, the structured description added when the kept text lacks it.

Each rule runs on an excerpt of a real WCXB product page (``sample_data/product``,
CC-BY-4.0) whose blocks are labelled as the classifier labelled the full page, and
on the same page of another type, which it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_declutter import Page
from scrapy_declutter.blocks import BOILERPLATE, CONTENT
from scrapy_declutter.registry import DEFAULT

DATA = Path(__file__).parent / "sample_data" / "product"


def product_page(name: str, page_type: str = "product", *, kept=lambda b: True) -> Page:
    """The excerpt as a Page of ``page_type`` with the blocks ``kept`` says labelled content."""
    page = Page.from_html((DATA / name).read_bytes(), f"https://shop.example/{name}")
    page.page_type = page_type
    for b in page.blocks:
        b.set_label(CONTENT if kept(b) else BOILERPLATE, 0.6 if kept(b) else 0.2, "test")
    return page


def kept_text(page: Page) -> str:
    return " ".join(b.text for b in page.blocks if b.is_content)


def test_the_default_runs_the_product_rules_after_the_page_rules():
    assert DEFAULT == ("learned+datatable+teasers+itemlist+thread+overlays+specs+rails+productdata"
                       "+title")


def test_a_privacy_policy_modal_on_a_product_page_goes():
    from scrapy_declutter.steps.overlays import Overlays

    page = product_page("0580-overlay.html")
    Overlays().process(page)
    text = kept_text(page)
    assert "A true original, our Wool Runner" in text and "WASH & CARE" in text
    assert "Privacy Policy" not in text and "privacy@allbirds.com" not in text
    assert all(b.step == "overlays" for b in page.blocks if "Allbirds, Inc." in b.text)


def test_the_overlay_rule_keeps_a_modal_of_the_items_details_and_other_types():
    from scrapy_declutter.steps.overlays import Overlays

    details = product_page("0622-details-modal.html")
    Overlays().process(details)
    assert "max load of 55 lbs" in kept_text(details)
    assert all(b.is_content for b in details.blocks)
    article = product_page("0580-overlay.html", "article")
    Overlays().process(article)
    assert "Privacy Policy" in kept_text(article)


def test_a_modal_alone_on_the_page_stays():
    from scrapy_declutter.steps.overlays import Overlays

    page = product_page("0580-overlay.html", kept=lambda b: "Allbirds" in b.text)
    Overlays().process(page)
    assert "Allbirds, Inc." in kept_text(page)  # nothing else kept: the modal is all there is


def spec_items(page: Page) -> list:
    return [b for b in page.blocks if b.tag == "li" or b.structure.list_depth]


def test_a_part_kept_spec_list_is_kept_whole():
    from scrapy_declutter.steps.specs import SpecLists

    # As the classifier kept the full page's list: four of its nineteen items.
    long_items = ("Pickups:", "One master volume", "Fender ClassicGear", "Original strings:")
    page = product_page("2947-spec-list.html", kept=lambda b: b.text.startswith(long_items))
    items = spec_items(page)
    assert len(items) == 19 and sum(b.is_content for b in items) == 4
    SpecLists().process(page)
    assert all(b.is_content for b in items)
    assert "Scale: 648 mm" in kept_text(page)
    assert {b.step for b in items} == {"test", "specs"}


def test_the_spec_rule_needs_a_share_of_the_list_and_a_product_page():
    from scrapy_declutter.steps.specs import SpecLists

    one = product_page("2947-spec-list.html", kept=lambda b: b.text.startswith("Pickups:"))
    SpecLists().process(one)
    assert sum(b.is_content for b in spec_items(one)) == 1  # 8 of 90 words: not the list
    long_items = ("Pickups:", "One master volume", "Fender ClassicGear", "Original strings:")
    listing = product_page("2947-spec-list.html", "listing", kept=lambda b: b.text.startswith(long_items))
    SpecLists().process(listing)
    assert sum(b.is_content for b in spec_items(listing)) == 4


def test_a_rail_of_priced_cards_beside_the_item_goes():
    from scrapy_declutter.steps.rails import Rails, rail_blocks

    page = product_page("0625-rail.html")
    cards = [b for b in page.blocks if b.tag == "h3" or b.text.startswith("€")]
    assert len(cards) == 10
    assert {b.index for b in cards} <= rail_blocks(page.blocks)
    Rails().process(page)
    assert not any(b.is_content for b in cards)
    text = kept_text(page)
    assert "Faux leather jacket - black" in text and "Machine wash at 30 °C" in text


def test_the_rail_rule_leaves_a_listing_and_a_page_of_cards_alone():
    from scrapy_declutter.steps.rails import Rails

    listing = product_page("0625-rail.html", "listing")
    Rails().process(listing)
    assert all(b.is_content for b in listing.blocks)
    # Only the cards kept: they are all the page has, so they stay.
    cards_only = product_page("0625-rail.html", kept=lambda b: b.tag == "h3" or "€" in b.text)
    Rails().process(cards_only)
    assert "BOMBER" in kept_text(cards_only).upper()


def test_a_structured_description_is_added_when_the_text_lacks_it():
    from scrapy_declutter.steps.productdata import ProductData

    page = product_page("0582-product-data.html")
    assert kept_text(page) == "Men's Quarter Socks"
    ProductData().process(page)
    added = [b for b in page.blocks if b.step == "productdata"]
    assert added and all(b.is_content for b in added)
    assert "engineered for comfort" in kept_text(page)
    assert [b.index for b in page.blocks] == list(range(len(page.blocks)))
    before = len(page.blocks)
    ProductData().process(page)  # the text holds it now: nothing more
    assert len(page.blocks) == before


@pytest.mark.parametrize("page_type", ["article", "listing"])
def test_the_description_is_added_to_product_pages_only(page_type):
    from scrapy_declutter.steps.productdata import ProductData

    page = product_page("0582-product-data.html", page_type)
    ProductData().process(page)
    assert "engineered for comfort" not in kept_text(page)
