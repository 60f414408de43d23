"""A page's Result reaches its own callback and items, and never another page's (issue 18).

Real crawls of the fixture site with the common spider pattern
``response.follow(url, meta=dict(response.meta))`` from an HTML page to a JSON
file, a 404 (through the callback and through the errback), a PDF and other
HTML pages. With the Result under a meta key, the copy carried the start
page's text and blocks to every response that was not analysed itself.
"""

from __future__ import annotations

import json

import pytest
from test_scrapy_crawl import crawl, feed, read_jsonl, site_url  # noqa: F401 (fixture)

START_TEXT = "Welcome to the Riverside"  # only on the start page
FOLLOW = ["/data.json", "/missing.html", "/guide.pdf", "/notes.txt", "/tomatoes.html"]
NOT_ANALYSED = ["/data.json", "/missing.html", "/guide.pdf", "/notes.txt"]


def test_a_copied_meta_never_carries_the_previous_pages_result(site_url, tmp_path):  # noqa: F811
    outs = [tmp_path / "callback.jsonl", tmp_path / "errback.jsonl"]
    settings = {"DECLUTTER_BLOCKS_FIELD": "blocks"}
    start = f"{site_url}/index.html"
    stats, _ = crawl(tmp_path, *[
        {"spider": "MetaCopySpider", "settings": {**feed(out), **settings},
         "args": {"start_url": start, "follow": json.dumps(FOLLOW), **extra}}
        for out, extra in zip(outs, [{"handle_404": "1"}, {}])
    ])
    for out in outs:
        items = read_jsonl(out)
        assert set(items) == {"/index.html", *FOLLOW}, out.name
        assert START_TEXT in items["/index.html"]["clean_text"]
        assert items["/index.html"]["blocks"]
        for path in NOT_ANALYSED:
            item = items[path]
            # Present, so feeds keep their columns, and empty: nothing of the start page.
            assert item["clean_text"] is None and item["blocks"] is None, (out.name, path)
        tomatoes = items["/tomatoes.html"]  # analysed itself: its own text only
        assert "six hours of direct sunlight" in tomatoes["clean_text"]
        assert START_TEXT not in tomatoes["clean_text"]
        assert not any(START_TEXT in b["text"] for b in tomatoes["blocks"])
    assert read_jsonl(outs[0])["/missing.html"]["kind"] == "html"  # the callback saw the 404
    assert read_jsonl(outs[1])["/missing.html"]["kind"] == "errback"
    for s in stats:
        assert s["declutter/pages"] == 2
        assert s["declutter/items"] == 2
        assert s["declutter/skipped/non_html"] == 3
    assert stats[0]["declutter/skipped/status"] == 1


# -- the Result travels on the response, and only there ---------------------------------------
def _spider_middleware():
    from scrapy.utils.misc import build_from_crawler
    from scrapy.utils.test import get_crawler

    from scrapy_declutter import DeclutterSpiderMiddleware

    crawler = get_crawler(settings_dict={"DECLUTTER_STORE": "memory:", "DECLUTTER_PROCESSES": 0})
    return build_from_crawler(DeclutterSpiderMiddleware, crawler)


def _analysed_response(url: str = "https://example.com/a"):
    from scrapy.http import HtmlResponse, Request

    from scrapy_declutter.integration.output import PageOutput
    from scrapy_declutter.integration.response import decluttered
    from scrapy_declutter.result import Result

    response = decluttered(HtmlResponse(url, body=b"<p>x</p>", request=Request(url)))
    result = Result(text="the page's own text", blocks=[], url=url)
    response.declutter_output = PageOutput({"clean_text": result.text}, result=result)
    return response, result


async def _consume(output):
    return [obj async for obj in output]


def test_the_callback_reads_the_result_on_its_response_and_its_items_get_the_fields():
    import asyncio

    from scrapy_declutter import DeclutteredResponse, result_for

    mw = _spider_middleware()
    response, result = _analysed_response()
    assert isinstance(response, DeclutteredResponse)
    seen = []

    async def callback():  # a callback reading its Result, then yielding an item
        seen.append((response.declutter, result_for(response)))
        yield {"url": response.url}
        yield {"url": response.url, "clean_text": "the spider's own"}

    items = asyncio.run(_consume(mw.process_spider_output(response, callback())))
    assert seen == [(result, result)]
    assert items == [{"url": response.url, "clean_text": result.text},
                     {"url": response.url, "clean_text": "the spider's own"}]
    assert mw.state.stats.get_value("declutter/items") == 1


def test_items_of_a_response_that_was_not_analysed_keep_the_columns_empty():
    import asyncio

    from scrapy.http import Request, TextResponse

    from scrapy_declutter import result_for

    mw = _spider_middleware()
    response = TextResponse("https://example.com/data.json", body=b"{}",
                            request=Request("https://example.com/data.json"))

    async def callback():
        yield {"url": response.url}

    assert result_for(response) is None
    assert asyncio.run(_consume(mw.process_spider_output(response, callback()))) == [
        {"url": response.url, "clean_text": None}]


def test_a_consumed_response_and_its_tree_go_without_the_garbage_collector():
    """Scrapy's response <-> selector cycle is broken once the output is consumed
    (``spidermw.let_tree_go``), so reference counting frees the tree, and a later read
    of the selector parses again."""
    import asyncio
    import gc
    import weakref

    mw = _spider_middleware()
    response, _ = _analysed_response()

    async def callback():
        yield {"title": response.css("p::text").get()}

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        asyncio.run(_consume(mw.process_spider_output(response, callback())))
        assert response.css("p::text").get() == "x"  # read again: a fresh selector
        selector, held = weakref.ref(response.selector), weakref.ref(response)
        asyncio.run(_consume(mw.process_spider_output(response, callback())))
        del response
        assert held() is None and selector() is None
    finally:
        if was_enabled:
            gc.enable()


def test_a_request_copying_meta_shares_nothing_with_the_analysed_one():
    from scrapy.http import HtmlResponse

    from scrapy_declutter import result_for

    response, result = _analysed_response()
    follow = response.follow("/next", meta=dict(response.meta))
    assert result_for(response) is result
    assert result_for(HtmlResponse(follow.url, body=b"<p>y</p>", request=follow)) is None
    assert not any("declutter" in str(k) for k in follow.meta)
