"""``scrapy-declutter inspect``: an HTML report of every block's label, score and features.

One page gives one file; several pages give a folder with one report each and
an ``index.html`` linking them. A URL is fetched only when it is given
explicitly with an ``http://`` or ``https://`` scheme, with a timeout and a size
cap; anything else is read as a file (``.gz`` decompressed) or ``-`` for stdin.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..errors import DeclutterError
from .extract import read_input

if TYPE_CHECKING:
    from ..result import Result
    from ..sitelearning.model import SiteModel

#: Seconds a URL fetch may take, connection and reading together per socket operation.
FETCH_TIMEOUT = 20.0
#: Largest page fetched from a URL, in bytes (the size cap of the rest of the package).
FETCH_MAX_BYTES = 10 * 1024 * 1024
USER_AGENT = "scrapy-declutter-inspect (+https://pypi.org/project/scrapy-declutter/)"


@dataclass(frozen=True)
class Source:
    """One page to inspect: its bytes, its URL (for the site key) and its HTTP content type."""

    name: str
    body: bytes
    url: str | None
    content_type: str | None = None


def is_url(arg: str) -> bool:
    return arg.lower().startswith(("http://", "https://"))


def fetch(url: str, *, timeout: float = FETCH_TIMEOUT, max_bytes: int = FETCH_MAX_BYTES) -> Source:
    """GET a page with urllib; refuse bodies over ``max_bytes`` rather than cut them."""
    from urllib.error import URLError
    from urllib.request import Request, urlopen

    request = Request(url, headers={"User-Agent": USER_AGENT, "Accept": "text/html,*/*;q=0.5"})
    try:
        with urlopen(request, timeout=timeout) as response:  # http(s) only: callers check is_url
            body = response.read(max_bytes + 1)
            final_url = response.geturl()
            content_type = response.headers.get("Content-Type")
    except (URLError, OSError, ValueError) as exc:
        raise DeclutterError(f"cannot fetch {url}: {getattr(exc, 'reason', exc)}") from exc
    if len(body) > max_bytes:
        raise DeclutterError(f"{url} is over {max_bytes:,} bytes; inspect a saved copy instead")
    return Source(url, body, final_url, content_type)


def load_source(arg: str, url: str | None) -> Source:
    if is_url(arg):
        return fetch(arg)
    return Source("stdin" if arg == "-" else arg, read_input(arg), url)


def annotate_with_site_model(result: "Result", model: "SiteModel") -> None:
    """Set what the site model says of each block, for the report's charts.

    ``site_fingerprint_pages``: on how many of the site's pages the block's text
    was seen; ``ngram_log_odds``: the site's n-gram classifier, keep over discard,
    in bits (once it has examples of both). Values already set are kept.
    """
    from ..sitelearning.fingerprints import fingerprint

    classifier = model.classifier if model.classifier.ready() else None
    for b in result.blocks:
        if b.site_fingerprint_pages is None:
            b.site_fingerprint_pages = model.fingerprints.get(fingerprint(b.text), 0)
        if classifier is not None and b.ngram_log_odds is None:
            b.ngram_log_odds = round(classifier.classify(b.text).log_odds, 3)


class Analyser:
    """``extract`` for plain runs; the site-learning ``Declutter`` when --store is given.

    With a store the pages are classified with the site's learned model but
    teach it nothing (``learn=False``): inspecting must not change a crawl's store.
    """

    def __init__(self, extractor: str, store: str | None = None, site: str | None = None) -> None:
        self.extractor = extractor
        self.declutter = None
        if store is None:
            if site:
                raise DeclutterError("--site needs --store (the site model to read)")
            return
        from ..sitelearning import Declutter

        site_key = (lambda _url: site) if site else None
        self.declutter = Declutter(extractor=extractor, store=store, site_key=site_key,
                                       learn=False)

    def __call__(self, source: Source) -> "Result":
        if self.declutter is not None:
            result = self.declutter.extract(source.body, source.url,
                                            content_type=source.content_type)
            model = self.declutter.model(result.site) if result.site else None
            if model is not None:
                annotate_with_site_model(result, model)
            return result
        from ..api import extract

        return extract(source.body, source.url, extractor=self.extractor,
                       content_type=source.content_type)

    def close(self) -> None:
        if self.declutter is not None:
            self.declutter.close()


def _stem(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".html", ".htm"):
        name = name.removesuffix(suffix)
    return name or "stdin"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "inspect", help="write an HTML report of every block's label and features",
        description="Write a self-contained HTML report (no script, nothing loaded from the "
                    "network) of each page: per-block charts, the blocks tinted by label with "
                    "score, deciding step and features, the clean text and counts. Several "
                    "pages give a folder of reports with an index.html.")
    p.add_argument("paths", nargs="+", metavar="PATH|URL|-",
                   help="HTML file (.html or .html.gz), a folder of them, - for stdin, "
                        "or an http(s) URL to fetch")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="report file for one page; a folder (with index.html) for several")
    p.add_argument("--extractor", default="default", help="extractor name (default: %(default)s)")
    p.add_argument("--url", help="the page's URL for files and stdin (sets the site key)")
    p.add_argument("--store", metavar="URI",
                   help="site-model store to classify with (site learning)")
    p.add_argument("--site", metavar="KEY", help="site key in the store (default: from the URL)")
    p.set_defaults(func=run)


#: File names a folder argument contributes, in name order.
PAGE_PATTERNS = ("*.html", "*.htm", "*.html.gz", "*.htm.gz")


def expand(paths: list[str]) -> list[str]:
    """Folders replaced by the HTML files in them (not recursive)."""
    out: list[str] = []
    for arg in paths:
        folder = Path(arg)
        if arg != "-" and not is_url(arg) and folder.is_dir():
            found = sorted({str(p) for pattern in PAGE_PATTERNS for p in folder.glob(pattern)})
            if not found:
                raise DeclutterError(f"{arg}: no .html or .html.gz files in this folder")
            out.extend(found)
        else:
            out.append(arg)
    return out


def run(args: argparse.Namespace) -> int:
    from ..registry import build_extractor

    build_extractor(args.extractor)  # fail on a bad name before reading or fetching anything
    analyse = Analyser(args.extractor, args.store, args.site)
    try:
        return write_reports(expand(args.paths), Path(args.output), analyse, args.url)
    finally:
        analyse.close()


def write_reports(paths: list[str], out: Path, analyse: Callable[[Source], "Result"],
                  url: str | None = None) -> int:
    """One report at ``out`` for one page; for several, a folder of reports and an index."""
    from ..report import IndexEntry, render_index, render_report, safe_name

    if len(paths) == 1:
        source = load_source(paths[0], url)
        result = analyse(source)
        if out.parent != Path("."):
            out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_report(result, source=source.name), encoding="utf-8")
        print(f"{out}: {len(result.content_blocks)} of {len(result.blocks)} blocks kept")
        return 0
    if out.exists() and not out.is_dir():
        raise DeclutterError(f"{out} is a file; several pages need a folder for -o")
    out.mkdir(parents=True, exist_ok=True)
    entries, used = [], set()
    for i, arg in enumerate(paths):
        source = load_source(arg, url)
        result = analyse(source)
        stem = safe_name(arg.split("://", 1)[1] if is_url(arg) else _stem(arg))
        if stem in used:
            stem = f"{stem}-{i}"
        used.add(stem)
        href = f"{stem}.html"
        (out / href).write_text(render_report(result, source=source.name), encoding="utf-8")
        entries.append(IndexEntry(href, result, source.name))
    (out / "index.html").write_text(render_index(entries), encoding="utf-8")
    print(f"{out / 'index.html'}: {len(entries)} reports")
    return 0
