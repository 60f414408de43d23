"""The ``itemlist`` step: a listing's item list that the classifier left out is kept.

The fixture is a real listing (``sample_data/itemlist/README.md``) that came out
empty out of fold; the shipped model has learned it, so each test puts the
out-of-fold labels on it by hand and runs the step alone.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from scrapy_declutter import Page
from scrapy_declutter.blocks import BOILERPLATE, CONTENT
from scrapy_declutter.lab.metric import word_prf
from scrapy_declutter.steps.itemlist import MainList, item_lists, listing_probability
from scrapy_declutter.steps.learned.step import TYPE_PROBABILITIES

DATA = Path(__file__).parent / "sample_data" / "itemlist"
URL = "https://news.ycombinator.com/jobs"
#: What the page-type classifier said of the page out of fold: an article, 0.23 a listing.
OUT_OF_FOLD = {"article": 0.68, "collection": 0.05, "documentation": 0.0, "forum": 0.0,
               "listing": 0.23, "product": 0.0, "service": 0.03}
ARTICLE = {**OUT_OF_FOLD, "article": 0.86, "listing": 0.05}


def jobs_board(types: dict[str, float] = OUT_OF_FOLD, score: float = 0.3) -> Page:
    """The jobs board as the chain left it out of fold: every block out, at ``score``."""
    page = Page.from_html(gzip.decompress((DATA / "2911.html.gz").read_bytes()), URL)
    page.put(TYPE_PROBABILITIES, types)
    for b in page.blocks:
        b.set_label(BOILERPLATE, score, "learned")
    return page


def kept_text(page: Page) -> str:
    return "\n".join(b.text for b in page.blocks if b.is_content)


def test_a_jobs_board_left_out_keeps_its_posts():
    page = jobs_board()
    assert listing_probability(page) == OUT_OF_FOLD["listing"] + OUT_OF_FOLD["collection"]
    MainList().process(page)
    text = kept_text(page)
    assert "SigNoz (YC W21) is hiring for engineering, growth and product roles" in text
    assert "Guidelines" not in text and "login" not in text  # the site's header and footer
    assert {b.step for b in page.blocks if b.is_content} == {"itemlist"}
    gold = json.loads((DATA / "2911.json").read_text())["ground_truth"]["main_content"]
    score = word_prf(text, gold)
    assert score.recall > 0.9 and score.precision > 0.95  # all but the intro line


def test_the_list_is_found_by_its_shape():
    page = jobs_board()
    main = max(item_lists(page.blocks), key=lambda found: found.words)
    assert main.tag == "tr" and len(main.items) >= 60  # a title row and an age row per post
    assert main.words >= 0.8 * sum(b.words for b in page.blocks)


def test_a_page_called_an_article_keeps_its_labels():
    page = jobs_board(types=ARTICLE)
    MainList().process(page)
    assert not kept_text(page)


def test_a_list_scored_low_stays_out():
    page = jobs_board(score=0.2)
    MainList().process(page)
    assert not kept_text(page)


def test_a_list_mostly_kept_is_left_to_the_classifier():
    page = jobs_board()
    main = max(item_lists(page.blocks), key=lambda found: found.words)
    for b in main.blocks[: len(main.blocks) * 2 // 3]:
        b.set_label(CONTENT, 0.6, "learned")
    before = [b.label for b in page.blocks]
    MainList().process(page)
    assert [b.label for b in page.blocks] == before


def test_a_rail_beside_an_article_is_no_item_list_of_the_page():
    prose = ("The council met on Tuesday evening to hear the plans for the new library, which "
             "will stand where the old bus station was and open in the spring of next year. ")
    rail = "".join(f"<li><a href='/s/{i}'>Other story number {i} of the day</a> "
                   f"<span>{i} hours ago</span></li>" for i in range(8))
    menu = "".join(f"<li><a href='/{w}'>{w}</a></li>" for w in "News Sport Weather Travel Food".split())
    html = (f"<html><body><nav><ul>{menu}</ul></nav><article><h1>A new library</h1>"
            f"{''.join(f'<p>{prose * 2}</p>' for _ in range(6))}</article>"
            f"<aside><ul>{rail}</ul></aside></body></html>")
    page = Page.from_html(html, "https://courier.example/news/library")
    found = item_lists(page.blocks)
    sizes = [len(f.items) for f in found]
    assert 8 in sizes and 5 not in sizes  # the rail; not the menu, whose items are a word each
    page.put(TYPE_PROBABILITIES, {"listing": 0.5})
    for b in page.blocks:
        b.set_label(CONTENT if b.words > 20 else BOILERPLATE, 0.9 if b.words > 20 else 0.4, "learned")
    before = [b.label for b in page.blocks]
    MainList().process(page)  # the rail holds a small share of the page's words
    assert [b.label for b in page.blocks] == before


def archive_page(paragraphs: int) -> Page:
    """A topic page: ``paragraphs`` paragraphs of stories kept, then a 30-item archive of
    headlines with their dates left out, the classifier unsure of every headline."""
    prose = ("Campaigners gathered outside the town hall on Saturday to ask the council to keep "
             "the swimming pool open for another year while a new site is found. ")
    archive = "".join(f"<p><a href='/n/{i}'>Public meeting on the pool closure, part {i}</a> "
                      f"{i + 1:02d}-11-2006 | {i % 4} comment(s)</p>" for i in range(30))
    html = (f"<html><body><div class='stories'>{''.join(f'<p>{prose}</p>' for _ in range(paragraphs))}"
            f"</div><div class='archive'>{archive}</div></body></html>")
    page = Page.from_html(html, "https://indymedia.example/oxford/topics/pools")
    page.put(TYPE_PROBABILITIES, {"article": 0.5, "listing": 0.4})
    for b in page.blocks:
        if b.xpath.startswith("/html/body/div[1]"):
            b.set_label(CONTENT, 0.8, "learned")
        else:
            b.set_label(BOILERPLATE, 0.4, "learned")
    return page


def test_an_archive_beside_kept_stories_stays_out():
    page = archive_page(paragraphs=12)  # 360 words of stories kept, 330 of archive
    before = [b.label for b in page.blocks]
    MainList().process(page)
    assert [b.label for b in page.blocks] == before


def test_a_list_under_a_short_intro_is_kept():
    page = archive_page(paragraphs=1)
    MainList().process(page)
    assert "Public meeting on the pool closure, part 7" in kept_text(page)
