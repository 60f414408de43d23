"""``scrapy-declutter extract``: the clean content of local pages as text, Markdown, JSON or
retrieval chunks."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

from ..errors import DeclutterError
from ..formats.chunks import CHUNK_WORDS

FORMATS = ("text", "markdown", "json", "chunks")


def read_input(path: str) -> bytes:
    """A page's bytes from a file (``.gz`` decompressed) or ``-`` for standard input."""
    if path == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DeclutterError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return gzip.decompress(data) if p.suffix == ".gz" else data


def _words(value: str) -> int:
    """A chunk size from the command line: a whole number of words, 0 or more."""
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of words (0 or more)")
    return int(value)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("extract", help="print the clean text of HTML files",
                       description="Print the clean content of each page as plain text, as "
                                   "Markdown, as JSON (the whole Result: text, Markdown, "
                                   "metadata and block labels) or as its retrieval chunks "
                                   "(cut at headings and a size, each with its headings), "
                                   "JSON one object a page a line.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="HTML file (.html or .html.gz), or - for stdin")
    p.add_argument("--extractor", default="default", help="extractor name (default: %(default)s)")
    p.add_argument("--url", help="the page's URL (sets the site key and resolves nothing else)")
    p.add_argument("--format", "-f", choices=FORMATS, default="text",
                   help="output format (default: %(default)s)")
    p.add_argument("--links", action="store_true", help="Markdown: keep links and images")
    p.add_argument("--chunk-words", type=_words, default=CHUNK_WORDS, metavar="N",
                   help="chunks: target size in words (default: %(default)s)")
    p.add_argument("--json", action="store_const", const="json", dest="format",
                   help="the same as --format json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..api import extract
    from ..registry import build_extractor

    build_extractor(args.extractor)  # fail on a bad name before reading anything
    for i, path in enumerate(args.paths):
        result = extract(read_input(path), args.url, extractor=args.extractor)
        if args.format in ("json", "chunks"):
            if args.format == "json":
                data = result.as_dict()
            else:
                data = {"url": result.url, "title": result.title, "reason": result.reason,
                        "chunks": result.chunks(words=args.chunk_words)}
            data["path"] = path
            print(json.dumps(data, ensure_ascii=False))
            continue
        if len(args.paths) > 1:
            print(f"{'' if i == 0 else chr(10)}==> {path} <==")
        if args.format == "markdown":
            print(result.to_markdown(links=args.links, images=args.links), end="")
        else:
            print(result.text)
    return 0
