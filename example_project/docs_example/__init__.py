"""Example Scrapy project: crawl a documentation site and export clean text per page."""
