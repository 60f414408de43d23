"""``scrapy-declutter bench-crawl``: re-make the crawl benchmark table with one line.

Builds N test sites from real pages, each on its own loopback address, serves
them with nginx (or a Python server), crawls them with ``scrapy runspider``
once per mode and round, and prints pages/s, CPU ms/page, the ratio to the
crawl without the plugin and the crawl process's memory over time. See
``lab.bench.crawl`` and ``lab.bench.testsites``. A command that prints
numbers: timings on a shared machine vary, so it is never a timed test.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench-crawl", help="crawl N loopback test sites with and without the plugin; print speed "
                            "and memory",
        description="Crawl N test sites made of real pages (each on its own 127.0.x.y address, "
                    "served by nginx when installed) once per mode and round, modes interleaved; "
                    "print pages/s, CPU ms/page, the ratio to the crawl without the plugin, and "
                    "the crawl process's resident memory over time. --sites 10000 --pages 3 is "
                    "the scale test.")
    p.add_argument("--sites", type=int, default=100, help="number of sites (default %(default)s)")
    p.add_argument("--pages", type=int, default=10, help="pages per site (default %(default)s)")
    p.add_argument("--rounds", type=int, default=2, help="crawls per mode (default %(default)s)")
    p.add_argument("--modes", default="off,on,on-nolearning,density-nolearning",
                   help="comma-separated (default %(default)s)")
    p.add_argument("--data", action="append", metavar="DATASET_DIR",
                   help="a data set (WCXB layout) whose html/ pages build the sites after the "
                        "example project's (repeatable; default ../shared/data/wcxb-dev if "
                        "present)")
    p.add_argument("--concurrency", type=int, default=32,
                   help="CONCURRENT_REQUESTS (default %(default)s)")
    p.add_argument("--sample-every", type=int, default=1000,
                   help="pages between memory samples (default %(default)s)")
    p.add_argument("--python-server", action="store_true",
                   help="serve with the Python server even when nginx is installed")
    p.add_argument("--duplicates", action="store_true",
                   help="serve every page under three URLs and the first page of each odd site "
                        "on the site before it too, with its own chrome; crawl with "
                        "DECLUTTER_DUPLICATE_FIELD=duplicate_of and print the precision and "
                        "recall of the flags (replayed from the feed's clean texts when the "
                        "items carry none)")
    p.add_argument("--pythonpath", metavar="DIR",
                   help="crawl with the package found in DIR (another checkout, to compare a "
                        "commit: git worktree add DIR COMMIT)")
    p.add_argument("--baseline", metavar="DIR",
                   help="also crawl every plugin mode with the package found in DIR (MODE@base), "
                        "in the same rounds: two commits compared in one run")
    p.add_argument("--minimal", action="store_true",
                   help="no feed: the spider only yields each page's URL and title")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import os
    import platform
    import tempfile
    import time
    from pathlib import Path

    from ...errors import DeclutterError
    from ..bench import crawlspider, testsites
    from ..bench.broadreport import broad_report
    from ..bench.crawl import BROAD_MODES, broad

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in BROAD_MODES]
    if unknown or not modes:
        raise DeclutterError(f"unknown mode(s) {unknown}; choose from {', '.join(BROAD_MODES)}")
    if not 1 <= args.sites <= testsites.MAX_SITES or args.pages < 1:
        raise DeclutterError(f"--sites must be 1..{testsites.MAX_SITES} and --pages at least 1")
    data = [Path(d) for d in args.data] if args.data else (
        [testsites.SHARED_DATA] if testsites.SHARED_DATA.is_dir() else [])
    sources = testsites.real_pages(data)
    copies = {"copies": 3, "syndicate": True} if args.duplicates else {}
    extra = {"DECLUTTER_DUPLICATE_FIELD": DUPLICATE_FIELD,
             crawlspider.BODY_DIGESTS: True} if args.duplicates else {}
    with tempfile.TemporaryDirectory(prefix="declutter-bench-crawl-") as tmp:
        root = Path(tmp)
        started = time.time()
        hosts = testsites.build(root / "sites", args.sites, args.pages, sources, **copies)
        server = testsites.serve(root / "sites", hosts, use_nginx=not args.python_server)
        with server as (port, name):
            urls = [f"http://{h}:{port}/p0.html" for h in hosts]
            results = broad(root, urls, modes, args.rounds, sample_every=args.sample_every,
                            pythonpath=args.pythonpath, baseline=args.baseline,
                            concurrency=args.concurrency, minimal=args.minimal, extra=extra)
        if args.duplicates:
            groups = testsites.copy_groups(hosts, args.pages, sources, **copies)
            scores = duplicate_scores(root, modes, args.rounds, groups)
    print(f"{args.sites} sites x {args.pages} pages from {len(sources)} real pages, served by "
          f"{name}; {args.rounds} round(s), modes interleaved; CONCURRENT_REQUESTS="
          f"{args.concurrency}{'; minimal spider, no feed' if args.minimal else ''}; "
          f"{platform.node()} ({platform.machine()}, "
          f"{os.cpu_count()} CPUs), {time.time() - started:.0f} s")
    print(broad_report(results, args.sample_every))
    if args.duplicates:
        print("near-duplicates (every page under 3 URLs, a page of each odd site syndicated):")
        print("\n".join(scores))
    return 0


#: The item field ``--duplicates`` asks for.
DUPLICATE_FIELD = "duplicate_of"


def duplicate_scores(root, modes: list[str], rounds: int, groups: dict[str, int]) -> list[str]:
    """One line per crawl of a plugin mode: its flags scored against the sites' copies."""
    from ..bench import crawlspider
    from ..bench.duplicates import feed_flags, score, site_path

    lines = []
    for mode in modes:
        for r in range(rounds):
            feed = root / f"items-{mode}-{r}.jsonl"
            if mode == "off" or not feed.exists():
                continue
            flags, replayed = feed_flags(feed, DUPLICATE_FIELD,
                                         body_field=crawlspider.BODY_DIGEST_FIELD)
            paths = {url: site_path(url) for url in flags}
            by_path = {paths[url]: (paths[first] if first else None)
                       for url, first in flags.items()}
            how = " (replayed from the feed's clean texts and body digests)" if replayed else ""
            lines.append(f"  {mode} round {r + 1}{how}: {score(by_path, groups)}")
    return lines
