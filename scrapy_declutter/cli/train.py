"""``scrapy-declutter train``: build or update a site model offline from saved pages."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DeclutterError

if TYPE_CHECKING:
    from ..sitelearning.model import SiteModel


def add_store_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", metavar="URI",
                   help="site store URI: memory:, sqlite:///path.db or redis://host:port/db "
                        "(default: the file the Scrapy project's crawls write, "
                        "<project>/.scrapy/declutter.sqlite3)")


def store_uri(store: str | None, *, create: bool) -> str:
    """The --store URI, else the store a crawl in this folder writes (``project_store_path``).

    Outside a Scrapy project only a store that ``scrapy runspider`` left in
    ``./.scrapy`` is used, and the command says so; ``create``: a command that
    writes may start a project's store, one that reads needs it to exist.
    """
    if store is not None:
        return store
    from scrapy.utils.project import inside_project

    from ..sitelearning.stores import project_store_path

    path = project_store_path()
    if not inside_project():
        if not path.is_file():
            raise DeclutterError("no Scrapy project here (no scrapy.cfg in this folder or above) "
                                 f"and no site store at {path}; run the command in the project's "
                                 "folder, or name a store with --store URI")
        print(f"scrapy-declutter: no Scrapy project here; using the site store {path}",
              file=sys.stderr)
    elif not create and not path.is_file():
        raise DeclutterError(f"no site store at {path} yet: no crawl of this project has "
                             "learned a site; crawl first, or name a store with --store URI")
    return f"sqlite:///{path}"


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


def summary(model: "SiteModel") -> dict[str, Any]:
    """A site model's figures, as ``train`` and ``sites show`` print them: its template rows
    with their example ("" for one kept before examples were), most pages first."""
    threshold = model.template_threshold()
    template = sorted(({"pages": n, "rule": rule, "example": model.examples.get(key, "")}
                       for rule, counts in (("text", model.fingerprints),
                                            ("place", model.structures))
                       for key, n in counts.items() if n >= threshold),
                      key=lambda row: -row["pages"])
    return {
        "site": model.site,
        "pages": model.pages,
        "supervised_pages": model.supervised,
        "fingerprints": len(model.fingerprints),
        "template_fingerprints": sum(n >= threshold for n in model.fingerprints.values()),
        "structures": len(model.structures),
        "template": template,
        "updated": model.updated,
        "container": model.container(threshold),
        "containers": dict(sorted(model.containers.items(), key=lambda item: -item[1])),
        "urls": len(model.urls),
        "examples": dict(model.classifier.examples),
        "ngrams": {c: len(lm) for c, lm in model.classifier.lms.items()},
        "stored_bytes": len(model.to_bytes()),
    }


def run(args: argparse.Namespace) -> int:
    from ..sitelearning.declutter import Declutter
    from .extract import read_input

    site = args.site
    supervised = 0
    with Declutter(args.extractor, store=store_uri(args.store, create=True), site_key=lambda _url: site,
                   content_selector=args.selector, markers=args.markers) as dec:
        for path in args.paths:
            # The file's absolute path stands for its URL, so training twice on the
            # same files does not count them twice.
            result = dec.extract(read_input(path), Path(path).resolve().as_uri())
            supervised += result.site_learning is not None and result.site_learning.supervised
        dec.flush()
        model = dec.model(site)
    figures = summary(model) if model else {}
    figures["files"] = len(args.paths)
    figures["supervised_files"] = supervised
    print(json.dumps(figures, indent=2))
    if (args.selector or args.markers) and not supervised:
        print("warning: the selector/markers matched no file; nothing was supervised")
    return 0
