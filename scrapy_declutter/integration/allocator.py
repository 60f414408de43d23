"""Memory the C allocator keeps, given back to the OS every so many pages (``DECLUTTER_TRIM_MEMORY``).

Why the plugin calls the allocator: glibc keeps freed heap memory for reuse
and returns to the OS only what lies at the top of a heap, so a long crawl's
resident memory is mostly memory freed but kept, Scrapy's and the plugin's
alike. A 1,000-site crawl measured at its end: without the plugin 471 MB
resident, 111 MB after ``malloc_trim(0)``; with it 616 MB, 306 MB after.
The analysis thread allocates from a malloc arena of its own (glibc gives
each thread one), which the reactor thread's allocations never reuse, and
a page's tree and blocks come and go in it. ``malloc_trim(0)`` hands back
the free pages inside every arena's heaps, not only at their tops. Measured
in a 2,000-site crawl (trimmed after every full garbage collection, some 70
pages apart): 3-13 ms of CPU a call (the crawl spends some 30 ms a page),
resident memory 40-110 MB lower right after it. Every ``TRIM_EVERY`` pages
that is well under 0.1 ms a page.

Only where the C library is glibc (``os.confstr`` names it) and ``ctypes``
finds ``malloc_trim``; anywhere else (macOS, Windows, musl) nothing is
called, and nothing fails.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable

#: Pages analysed between two trims: a call costs a few ms, freed memory builds up over
#: a few hundred pages.
TRIM_EVERY = 250


def malloc_trim() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)`` as a callable, or None where there is no glibc to call."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):  # musl and others have no such name
            return None
        trim = ctypes.CDLL(None).malloc_trim  # the C library the process already runs
    except (ValueError, OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lambda: trim(0)


class Trimmer:
    """Counts analysed pages and calls ``trim`` every ``every`` of them (never when 0 or None)."""

    def __init__(self, every: int, trim: Callable[[], object] | None) -> None:
        self.every = every if trim is not None else 0
        self.trim = trim
        self.pages = 0
        self.calls = 0

    def page(self) -> None:
        """One page analysed; trim when it completes ``every`` pages."""
        if not self.every:
            return
        self.pages += 1
        if self.pages % self.every == 0:
            self.calls += 1
            self.trim()  # type: ignore[misc] - not None when ``every`` is set
