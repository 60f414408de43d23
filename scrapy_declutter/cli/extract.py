"""``scrapy-declutter extract``: clean text (or the whole Result as JSON) of local pages."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

from ..errors import DeclutterError


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


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("extract", help="print the clean text of HTML files",
                       description="Print the clean text of each page (or its Result as JSON).")
    p.add_argument("paths", nargs="+", metavar="PATH", help="HTML file (.html or .html.gz), or - for stdin")
    p.add_argument("--extractor", default="default", help="extractor name (default: %(default)s)")
    p.add_argument("--url", help="the page's URL (sets the site key and resolves nothing else)")
    p.add_argument("--json", action="store_true", help="print the Result as JSON, blocks included")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..api import extract
    from ..registry import build_extractor

    build_extractor(args.extractor)  # fail on a bad name before reading anything
    for i, path in enumerate(args.paths):
        result = extract(read_input(path), args.url, extractor=args.extractor)
        if args.json:
            data = result.as_dict()
            data["path"] = path
            print(json.dumps(data, ensure_ascii=False))
        else:
            if len(args.paths) > 1:
                print(f"{'' if i == 0 else chr(10)}==> {path} <==")
            print(result.text)
    return 0
