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

_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T?\d{4,6})?$")
_ENGLISH = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b. %d, %Y")
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
