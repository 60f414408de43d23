"""The compiled page keys (``_pagekeys``) are the reference's (``pagekeys.python_page_keys``):
the same fingerprints, structural keys, samples (in the same order), containers, confidences,
sure blocks, content characters and longest blocks, and the page's ``Places`` gives the same
paths afterwards."""

from __future__ import annotations

import gzip

import pytest
from conftest import SAMPLE_DATA, SHARED_WCXB, require_compiled

from scrapy_declutter.blocks import CONTENT
from scrapy_declutter.page import Page
from scrapy_declutter.sitelearning import model, pagekeys, places
from scrapy_declutter.sitelearning.declutter import Declutter
from scrapy_declutter.sitelearning.learner import SiteLearner

GENERIC = Declutter(site_learning=False)  # the generic labels the keys are read from
LEARNER = SiteLearner()


@pytest.fixture(scope="module", autouse=True)
def compiled_page_keys():
    require_compiled(pagekeys._compiled, "page keys")


def _page(path) -> Page:
    data = path.read_bytes()
    page = Page.from_html(gzip.decompress(data) if path.suffix == ".gz" else data, "http://x.org/a")
    GENERIC.extract_page(page)
    return page


def _forget() -> None:
    """Empty the memos both read, so that neither reads what the other computed."""
    for memo in (model._CACHED, places._FOLDED, places._PATH_HASHES, places._NAMED):
        memo.clear()


def _agree(page: Page, confident: float = LEARNER.confident_margin,
           cuts: dict[str, float] | None = None) -> None:
    cuts = {} if cuts is None else cuts
    for structural in (True, False):
        _forget()
        ref = pagekeys.python_page_keys(page, structural=structural, cuts=cuts,
                                        confident=confident)
        _forget()
        got = pagekeys.page_keys(page, structural=structural, cuts=cuts, confident=confident)
        assert got.fingerprints == ref.fingerprints
        assert got.structures == ref.structures
        assert list(got.samples.items()) == list(ref.samples.items())
        assert got.containers == ref.containers
        assert got.confidences == ref.confidences
        assert (got.sure_content, got.sure_boilerplate) == (ref.sure_content, ref.sure_boilerplate)
        assert got.content_chars == ref.content_chars
        assert got.longest == ref.longest
        for i in range(len(page.blocks)):
            assert got.places.path(i) == ref.places.path(i)
            assert got.places.lineage(i) == ref.places.lineage(i)


PAGES = sorted(p for p in SAMPLE_DATA.rglob("*") if p.name.endswith((".html", ".html.gz")))[:40]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(SAMPLE_DATA)))
def test_bundled_pages_keys_are_the_reference(path):
    _agree(_page(path))


def test_keys_agree_when_every_block_is_confident_content_and_when_none_is():
    page = _page(PAGES[0])
    for b in page.blocks:
        b.label = CONTENT
    _agree(page, confident=-1e9)  # every content block weighs: containers found
    _agree(page, confident=1e9)  # none weighs: no containers


def test_keys_agree_with_the_steps_cuts():
    page = _page(PAGES[1])
    steps = sorted({b.step or "" for b in page.blocks})
    assert steps
    _agree(page, cuts={step: 0.2 + 0.5 * (i % 2) for i, step in enumerate(steps)})
    assert pagekeys.page_keys(page, structural=True, cuts={steps[0]: 0.9}, confident=0.3
                              ).confidences != pagekeys.page_keys(
        page, structural=True, cuts={}, confident=0.3).confidences


def test_keys_of_a_page_without_blocks_are_empty():
    page = Page.from_html(b"<html><body></body></html>", "http://x.org/")
    keys = pagekeys.page_keys(page, structural=True, cuts={}, confident=0.3)
    assert (keys.fingerprints, keys.structures, keys.samples, keys.containers) == ([], [], {}, [])


@pytest.mark.skipif(not SHARED_WCXB.is_dir(), reason="needs ../shared/data/wcxb-dev")
def test_every_page_of_wcxb_dev_keys_as_the_reference():
    for path in sorted((SHARED_WCXB / "html").glob("*.html*"))[::4]:
        _agree(_page(path))
