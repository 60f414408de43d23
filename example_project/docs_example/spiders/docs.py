"""The ``docs`` spider: crawls a documentation site and yields one item per page.

By default it crawls the bundled offline copy of the Python 3.11 tutorial and
FAQ (``site/``, from Debian's python3.11-doc package, PSF licence) through
``file://`` URLs, following links that stay inside those sections. With
``-a start_url=https://docs.python.org/3/tutorial/`` it crawls a live site
instead, following links under the start URL's directory.

The spider itself only yields the URL and the ``<title>``; scrapy_declutter
adds ``clean_text`` and ``blocks`` to every item.
"""

from __future__ import annotations

from pathlib import Path

import scrapy

#: The bundled copy: docs.python.org/3.11 as Debian's python3.11-doc ships it.
BUNDLE = Path(__file__).resolve().parents[2] / "site" / "docs.python.org" / "3.11"
BUNDLE_SECTIONS = ("tutorial", "faq")


class DocsSpider(scrapy.Spider):
    name = "docs"

    def __init__(self, start_url: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.live = bool(start_url)
        if start_url:
            self.start_urls = [start_url]
        else:
            self.start_urls = [(BUNDLE / s / "index.html").as_uri() for s in BUNDLE_SECTIONS]
        self.prefixes = tuple(url.rsplit("/", 1)[0] + "/" for url in self.start_urls)

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        # Spider arguments become settings here, before the crawler freezes them.
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.live:  # be gentle with a real server
            crawler.settings.set("AUTOTHROTTLE_ENABLED", True, priority="spider")
        else:  # file:// URLs have no host to key the site model on: name the site
            crawler.settings.set("DECLUTTER_SITE_KEY", "fixed:docs.python.org", priority="spider")
        return spider

    async def start(self):
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href).split("#", 1)[0]
            if url.startswith(self.prefixes) and url.endswith((".html", "/")):
                yield scrapy.Request(url, callback=self.parse)
