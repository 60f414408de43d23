"""``scrapy-declutter train``: build or update a site model offline from saved pages."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

#: Where the command line keeps site models when no --store is given.
DEFAULT_STORE = "sqlite:///.scrapy/declutter.sqlite3"


def add_store_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", default=DEFAULT_STORE,
                   help="site store URI: memory:, sqlite:///path.db or redis://host:port/db "
                        "(default: %(default)s, the Scrapy project's data dir)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train", help="teach a site model from saved pages",
        description="Run site learning over saved pages of one site and store what it "
                    "learned. With --selector or --markers the pages are labelled by you "
                    "(the selector's elements, or the text between <!-- content --> and "
                    "<!-- /content -->, are content, the rest boilerplate); without, the "
                    "model learns the site's template and trains on confident decisions.")
    p.add_argument("paths", nargs="+", metavar="FILE", help="HTML file (.html or .html.gz)")
    p.add_argument("--site", required=True, help="the site key the model is stored under")
    label = p.add_mutually_exclusive_group()
    label.add_argument("--selector", help="CSS or XPath selector of the content elements")
    label.add_argument("--markers", action="store_true",
                       help="content is between <!-- content --> and <!-- /content -->")
    p.add_argument("--extractor", default="default", help="generic extractor (default: %(default)s)")
    add_store_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..sitelearning.declutter import Declutter
    from .extract import read_input

    site = args.site
    supervised = 0
    with Declutter(args.extractor, store=args.store, site_key=lambda _url: site,
                   content_selector=args.selector, markers=args.markers) as dec:
        for path in args.paths:
            # The file's absolute path stands for its URL, so training twice on the
            # same files does not count them twice.
            result = dec.extract(read_input(path), Path(path).resolve().as_uri())
            supervised += result.site_learning is not None and result.site_learning.supervised
        dec.flush()
        model = dec.model(site)
    summary = model.summary() if model else {}
    summary["files"] = len(args.paths)
    summary["supervised_files"] = supervised
    print(json.dumps(summary, indent=2))
    if (args.selector or args.markers) and not supervised:
        print("warning: the selector/markers matched no file; nothing was supervised")
    return 0
