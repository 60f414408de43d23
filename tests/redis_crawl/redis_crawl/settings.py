"""One crawl, many processes: scrapy-redis shares the queue, scrapy_declutter the site models.

Every process started with these settings takes requests from the same Redis
queue and checks them against the same dupefilter, so each page is fetched
once whichever process fetches it; the Redis store adds up what every process
learns about each site. docs/scale-out.md walks through it.
"""

BOT_NAME = "redis_crawl"
SPIDER_MODULES = ["redis_crawl.spiders"]

REDIS_URL = "redis://127.0.0.1:6379/0"

# The scheduler and the dupefilter live in Redis, shared by every process.
SCHEDULER = "scrapy_redis.scheduler.Scheduler"
DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
# Without it, the first process to finish deletes the queue and the dupefilter
# that the others are still using, and they fetch pages again.
SCHEDULER_PERSIST = True
# A RedisSpider waits for start URLs forever unless told when to stop: close
# once idle (no request left in the shared queue, none in flight) this long.
MAX_IDLE_TIME_BEFORE_CLOSE = 10

ADDONS = {"scrapy_declutter.Addon": 500}
# Site models in the same Redis: every process learns from every page.
DECLUTTER_STORE = REDIS_URL
# One crawl process per core already uses every core: each analyses its own pages
# rather than starting a worker process of its own (the default on 2+ cores).
DECLUTTER_PROCESSES = 0
DECLUTTER_BLOCKS_FIELD = "blocks"  # the test checks both labels occur

TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
