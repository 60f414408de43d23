"""Writing reports to disk: safe file names, sampling, one report or a folder with an index.

Used by the ``inspect`` command and by the Scrapy middleware, which saves the
report of a sample of responses (``DECLUTTER_INSPECT_DIR``,
``DECLUTTER_INSPECT_SAMPLE``). Sampling hashes the URL instead of drawing a
random number, so a re-crawl saves reports for the same pages and they can be
compared side by side.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..errors import DeclutterError
from .document import render_report

if TYPE_CHECKING:
    from ..result import Result

#: Share of analysed responses whose report is saved once ``DECLUTTER_INSPECT_DIR`` is set:
#: all of them, since setting the folder is already the opt-in (lower it for big crawls).
DEFAULT_INSPECT_SAMPLE = 1.0

#: Longest file-name stem a report gets (file systems cap names at 255 bytes).
MAX_NAME = 80
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """A file-name stem from any string: ASCII letters, digits, ``._-``, never hidden or empty."""
    stem = _UNSAFE.sub("-", name).strip("-.")[:MAX_NAME].strip("-.")
    return stem or "page"


def report_name(url: str | None, fallback: str = "page") -> str:
    """A stable, readable stem for a page's report: host and path, plus a short hash of the URL."""
    if not url:
        return safe_name(fallback)
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    for suffix in (".html", ".htm"):
        path = path.removesuffix(suffix)
    readable = safe_name(f"{parts.hostname or ''}{path}")
    digest = hashlib.sha1(url.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{readable[: MAX_NAME - 9]}-{digest}"


def sampled(url: str | None, rate: float) -> bool:
    """Whether a page falls in a ``rate`` (0..1) sample; a URL always gets the same answer."""
    if rate >= 1:
        return True
    if rate <= 0:
        return False
    key = (url or "").encode("utf-8", "surrogatepass")
    return zlib.crc32(key) / 0xFFFFFFFF < rate


def save_report(result: "Result", directory: str | Path, name: str | None = None) -> Path:
    """Write ``result``'s report as ``directory/NAME.html`` (folder created); return the path.

    ``name`` defaults to one derived from the result's URL (``report_name``) and
    is made file-system safe either way, so a URL can be passed as is.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    stem = safe_name(name) if name else report_name(result.url)
    path = folder / f"{stem}.html"
    path.write_text(render_report(result), encoding="utf-8")
    return path


class ReportSampler:
    """Saves the report of a sample of pages into one folder during a crawl.

    The Scrapy middleware builds one from ``DECLUTTER_INSPECT_DIR`` (the
    folder; unset means off) and ``DECLUTTER_INSPECT_SAMPLE`` (a rate in 0..1),
    read and checked with the other settings in ``integration.settings``.
    """

    def __init__(self, directory: str | Path, rate: float = DEFAULT_INSPECT_SAMPLE) -> None:
        if not 0.0 <= rate <= 1.0:
            raise DeclutterError(f"sample rate {rate!r}: must be a rate from 0 to 1")
        self.directory = Path(directory)
        self.rate = rate

    def save(self, result: "Result") -> Path | None:
        """Write the report if the page is in the sample; return its path (None when not)."""
        if not sampled(result.url, self.rate):
            return None
        return save_report(result, self.directory)
