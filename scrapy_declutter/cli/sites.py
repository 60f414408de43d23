"""``scrapy-declutter sites list|show KEY|forget KEY``: what a site store holds."""

from __future__ import annotations

import argparse
import json
import re
import time
from typing import Any

from ..errors import DeclutterError
from .train import add_store_argument, store_uri, summary

#: A name site learning folded (digit runs to ``0``): it would not match the page's own.
_FOLDED = re.compile(r"0")
#: Characters a CSS identifier may hold unescaped.
_CSS_PLAIN = re.compile(r"[^A-Za-z0-9_-]")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sites", help="list, show or forget the site models of a store",
                       description="Inspect or edit a site store. `show` prints what a site "
                                   "learned: its content container as a CSS selector (which "
                                   "can be given as the site's content selector), its template "
                                   "with an example text each, its page count and when it last "
                                   "learned.")
    p.add_argument("action", choices=["list", "show", "forget"])
    p.add_argument("site", nargs="?", help="site key (for show and forget)")
    p.add_argument("--json", action="store_true", help="show: every figure, as JSON")
    add_store_argument(p)
    p.set_defaults(func=run)


def css_selector(place: str) -> str:
    """A learned place (``/html/body/div#main.post``) as a CSS selector (``html > body >
    div#main.post``). Names with a folded digit run are left out: they name no element."""
    parts = []
    for element in place.strip("/").split("/"):
        tag, *names = re.split(r"(?=[#.])", element)
        kept = [n[0] + _CSS_PLAIN.sub(lambda m: "\\" + m.group(), n[1:])
                for n in names if n[1:] and not _FOLDED.search(n)]
        parts.append(tag + "".join(kept))
    return " > ".join(parts)


def describe(figures: dict[str, Any]) -> str:
    """``train.summary`` for a person: the container, the template, pages, last learned."""
    when = (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(figures["updated"]))
            if figures["updated"] else "unknown")
    lines = [f"site {figures['site']}: {figures['pages']} pages "
             f"({figures['supervised_pages']} supervised), last learned {when}"]
    place = figures["container"]
    lines.append(f"content container: {css_selector(place)}  (on {figures['containers'][place]} "
                 "pages)" if place else "content container: none yet")
    rows = figures["template"]
    lines.append(f"template: {len(rows)} blocks" + (":" if rows else ""))
    for row in rows:
        text, _, path = row["example"].partition(" @ ")
        lines.append(f"  {row['pages']:>5} pages  {row['rule']:<5}  {text[:70]!r}"
                     + (f"  at {css_selector(path)}" if path and not path.startswith("~") else ""))
    return "\n".join(lines)


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
            figures = summary(model)
            print(json.dumps(figures, indent=2) if args.json else describe(figures))
            return 0
        if not store.forget(args.site):
            raise DeclutterError(f"no model for site {args.site!r} in {uri}")
        print(f"forgot {args.site}")
        return 0
