"""``scrapy-declutter sites list|show KEY|forget KEY``: what a site store holds."""

from __future__ import annotations

import argparse
import json

from ..errors import DeclutterError
from .train import add_store_argument, store_uri


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sites", help="list, show or forget the site models of a store",
                       description="Inspect or edit a site store.")
    p.add_argument("action", choices=["list", "show", "forget"])
    p.add_argument("site", nargs="?", help="site key (for show and forget)")
    add_store_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..sitelearning.stores import open_store

    if args.action != "list" and not args.site:
        raise DeclutterError(f"sites {args.action} needs a site key")
    uri = store_uri(args.store, create=False)
    with open_store(uri) as store:
        if args.action == "list":
            for site in store.sites():
                model = store.load(site)
                pages = model.pages if model else "unreadable"
                print(f"{site}\t{pages} pages")
            return 0
        if args.action == "show":
            model = store.load(args.site)
            if model is None:
                raise DeclutterError(f"no (readable) model for site {args.site!r} in {uri}")
            print(json.dumps(model.summary(), indent=2))
            return 0
        if not store.forget(args.site):
            raise DeclutterError(f"no model for site {args.site!r} in {uri}")
        print(f"forgot {args.site}")
        return 0
