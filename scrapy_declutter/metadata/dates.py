"""Dates as pages write them in their markup, turned into ISO 8601.

Markup dates (JSON-LD ``datePublished``, ``article:published_time``,
``<time datetime>``) are ISO 8601 most of the time; the rest are RFC 2822
(feeds' habit) or English "September 4, 2025". A timestamp keeps its time and
offset as written (the page's local date is the one a reader sees); a bare
date stays a date.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from email.utils import parsedate_to_datetime

from lxml import etree

_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T?\d{4,6})?$")
_ENGLISH = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b. %d, %Y")
#: Pages larger than this (serialised characters) get htmldate's fast search only: its
#: extensive search took 0.7 s on WCXB-dev pages of over a million characters and 5.2 s
#: on one of 568,076, while the dates it found that the fast search missed were all on
#: pages under 235,000 characters but one (WCXB-dev: 21 of 22 kept).
EXTENSIVE_MAX_CHARS = 300_000
#: Years outside this range are typos or placeholders (0001-01-01, 2999-12-31).
YEARS = range(1990, 2100)


def _valid(d: date) -> bool:
    return d.year in YEARS


def iso_date(value: object) -> str | None:
    """``value`` as an ISO 8601 date or timestamp, or None when it is not a plausible date."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > 64:
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
    except ValueError:
        pass
    else:
        if not _valid(parsed):
            return None
        if len(text) <= 10:
            return parsed.date().isoformat()
        return parsed.isoformat()
    try:
        rfc = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        rfc = None
    if rfc is not None and _valid(rfc):
        return rfc.isoformat()
    for fmt in _ENGLISH:
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return parsed.date().isoformat() if _valid(parsed) else None
    m = _DATE.search(text) or _COMPACT.match(text)
    if m:
        try:
            d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
        return d.isoformat() if _valid(d) else None
    return None


def visible_date(root: etree._Element, url: str | None = None) -> str | None:
    """The publication date a reader sees on the page (or its URL shows), found by
    htmldate; for pages whose markup gives none (about a quarter of WCXB's dated pages).

    htmldate wants an ``lxml.html`` tree that it may clean in place, so it gets the
    page serialised (it deep-copies a tree it is given: the same cost), never the
    caller's tree. Its extensive search (every text node and the URL, after its
    markup checks) is used: on the WCXB-dev pages whose markup has no date, the
    fast mode found 3 of 35 gold dates and the extensive one 22 (``metadata_eval``).
    It costs more only on the pages that reach it, where the markup gave nothing.
    """
    try:
        from htmldate import find_date
    except ImportError:  # pragma: no cover - an install without it dates from markup only
        return None
    source = etree.tostring(root, encoding="unicode")

    def search(extensive: bool) -> str | None:
        return iso_date(find_date(source, extensive_search=extensive, original_date=True, url=url))

    extensive = len(source) <= EXTENSIVE_MAX_CHARS
    found = search(extensive)
    if extensive and found is not None and found.endswith("-01-01"):
        # The extensive search's last resort is a copyright line's year, given as 1
        # January ("Copyright 2026" on an undated page): no publication date. A page
        # really dated 1 January that says so in its markup or URL keeps it.
        found = search(False)
    return found
