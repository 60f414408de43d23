"""The ``pages`` spider: start URLs come from the Redis list ``pages:start_urls``."""

from __future__ import annotations

import json

import scrapy
from scrapy_redis.spiders import RedisSpider


class PagesSpider(RedisSpider):
    """Yields each page's URL and title and follows links within the page's own directory.

    Start it in as many processes as you like, then push start URLs:
    ``redis-cli lpush pages:start_urls '{"url": "https://example.org/docs/"}'``.
    """

    name = "pages"

    def make_request_from_data(self, data: bytes) -> scrapy.Request:
        """A start URL goes through the shared dupefilter like any link.

        scrapy-redis makes start requests with ``dont_filter=True``, so they are
        never recorded as seen and a link back to a start page fetches it again.
        """
        return scrapy.Request(json.loads(data)["url"], callback=self.parse)

    def parse(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}
        directory = response.url.rsplit("/", 1)[0] + "/"
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href).split("#", 1)[0]
            if url.startswith(directory) and url.endswith(".html"):
                yield response.follow(url, callback=self.parse)
