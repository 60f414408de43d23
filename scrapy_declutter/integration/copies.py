"""The crawl's near-duplicate check (``DECLUTTER_DUPLICATE_FIELD``): one index, asked once a page.

Every page of the crawl goes through the one index, in the crawl process,
on a thread of its own (a Redis index costs round trips), one page at a
time, so "earliest" is the order in which the pages' analyses came back.
The page's signature was made with its Result (``runner``), wherever that
ran. A shared index that cannot be reached costs the pages their answer
(None, counted, warned about once), never the crawl.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ..errors import StoreUnavailableError
from .backends import run_on

if TYPE_CHECKING:
    from .output import PageOutput
    from .settings import DeclutterOptions


class CopyCheck:
    """The crawl's ``nearduplicates`` index, and the item field it fills."""

    def __init__(self, options: DeclutterOptions, store: str | None, name: str, stats: Any,
                 log: Any) -> None:
        from ..nearduplicates import open_duplicate_index

        assert options.duplicate_field
        self.field = options.duplicate_field
        self.index = open_duplicate_index(store, name=name,
                                          threshold=options.duplicate_threshold,
                                          max_pages=options.duplicate_max_pages,
                                          keep=options.keep_duplicate_index)
        self.stats = stats
        self.log = log
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="scrapy_declutter-copies")
        self._warned = False

    async def mark(self, url: str, output: PageOutput, body: bytes | str | None) -> None:
        """Fill the field on this analysed page's output: its first copy's URL, or None."""
        from ..nearduplicates import STAT, UNAVAILABLE_STAT

        raw = body.encode("utf-8") if isinstance(body, str) else body
        try:
            first = await run_on(self.thread, self._first_copy, url, output.signature, raw)
        except StoreUnavailableError as e:
            self.stats.inc_value(UNAVAILABLE_STAT)
            if not self._warned:
                self._warned = True
                self.log.warning("scrapy_declutter cannot reach its near-duplicate index (%s): "
                                 "pages go on with %s None until it is back", e, self.field)
            first = None
        except Exception:  # noqa: BLE001 - the page and its items go on, the field None
            self.stats.inc_value("declutter/errors")
            self.stats.inc_value("declutter/errors/duplicates")
            self.log.exception("scrapy_declutter could not check %s for near-duplicates", url)
            first = None
        if first is not None:
            self.stats.inc_value(STAT)
        output.fields[self.field] = first

    def _first_copy(self, url: str, signature: Any, body: bytes | None) -> str | None:
        return self.index.first_copy_of(url, signature, body=body)

    def close(self) -> None:
        self.thread.shutdown()
        self.index.close()
