"""Settings of the example project: one line enables scrapy_declutter."""

BOT_NAME = "docs_example"
SPIDER_MODULES = ["docs_example.spiders"]
NEWSPIDER_MODULE = "docs_example.spiders"

# The whole integration: downloader middleware, spider middleware, pipeline.
ADDONS = {"scrapy_declutter.Addon": 500}

# Every DECLUTTER_* setting has a working default; these show the common ones.
DECLUTTER_EXTRACTOR = "default"
DECLUTTER_TEXT_FIELD = "clean_text"
# DECLUTTER_BLOCKS_FIELD = "blocks"  # every block with its label: about 4x the text's size
# DECLUTTER_STORE defaults to sqlite:///<this project>/.scrapy/declutter.sqlite3,
# so a second crawl starts with what the first one learned about each site.

# Polite defaults for `-a start_url=...` live crawls; the bundled copy is local files.
# (the spider turns AutoThrottle on when given a start_url).
ROBOTSTXT_OBEY = True
USER_AGENT = "scrapy_declutter example"
AUTOTHROTTLE_START_DELAY = 0.5
CLOSESPIDER_PAGECOUNT = 200
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
