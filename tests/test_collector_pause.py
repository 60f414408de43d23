"""``extract()`` pauses the cycle collector for the page: safe only because the analysis
makes no reference cycles, which is checked here, with the collector's state restored."""

from __future__ import annotations

import gc
import gzip

import pytest

from conftest import WCXB_SAMPLES

from scrapy_declutter import extract
from scrapy_declutter.page import Page, decode_html
from scrapy_declutter.registry import build_extractor


@pytest.fixture
def collector_restored():
    enabled = gc.isenabled()
    yield
    gc.set_debug(0)
    gc.garbage.clear()
    (gc.enable if enabled else gc.disable)()


def test_a_page_makes_no_reference_cycles(collector_restored):
    """What the pause rests on: everything a page's analysis makes is freed by reference
    counting, so a paused collector misses nothing."""
    texts = [decode_html(gzip.decompress(p.read_bytes())) for p in sorted(WCXB_SAMPLES.glob("*.html.gz"))]
    assert texts
    extract(texts[0])  # models and caches loaded outside the count
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    for text in texts:
        extract(text)
    gc.collect()
    assert gc.garbage == []


def test_the_collector_is_paused_for_the_page_and_resumed_after(monkeypatch, collector_restored):
    seen = []
    real = Page.from_html.__func__

    def watched(cls, *args, **kwargs):
        seen.append(gc.isenabled())
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(Page, "from_html", classmethod(watched))
    gc.enable()
    extract("<p>Some text of a page, long enough to be kept as a block.</p>")
    assert seen == [False] and gc.isenabled()
    # Paused already (by the caller, or a concurrent extract): left paused.
    gc.disable()
    extract("<p>Some text</p>")
    assert seen == [False, False] and not gc.isenabled()


def test_a_failing_page_resumes_the_collector(monkeypatch, collector_restored):
    chain = build_extractor("default")

    def fail(page):
        raise RuntimeError("a bug")

    monkeypatch.setattr(chain, "run", fail)
    gc.enable()
    result = extract("<p>Some text</p>")
    assert result.reason.startswith("error: RuntimeError") and gc.isenabled()
