"""``scrapy-declutter bench-compiled``: what each compiled module saves ``extract()``, in instructions.

Issue 42 keeps a compiled module only where it saves at least 5% of
``extract()``'s instructions on its own. Instructions, not time: a count
from ``valgrind --tool=callgrind`` does not move with the machine's load.
Each measurement is one process (``lab.bench.instructions``) run twice,
once over the pages and once warm only, the difference being
``extract()``'s; it is made with every module built, then with each module
hidden in turn (its callers on their pure-Python references), ``--jobs``
processes at a time. A command that prints numbers, never a test.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

#: The 5% rule of issue 42: a compiled module saving less than this share goes.
KEEP_SHARE = 0.05


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench-compiled", help="count extract()'s instructions with each compiled module hidden",
        description="Count with callgrind the instructions extract() spends on DATASET_DIR's "
                    "first pages with every compiled module, then with each one hidden (its "
                    "pure-Python reference taken instead); print per module the instructions a "
                    "page and the share of extract()'s it saves.")
    p.add_argument("dataset", metavar="DATASET_DIR")
    p.add_argument("--limit", type=int, default=100, help="the first N pages (default %(default)s)")
    p.add_argument("--max-bytes", type=int, metavar="N",
                   help="only the pages of at most N bytes (the small-page view); --limit "
                        "counts after it")
    p.add_argument("--extractor", "-e", default="default", help="(default %(default)s)")
    p.add_argument("--built-only", action="store_true",
                   help="only the count with every module built (no module hidden), and the "
                        "plain floor's (lxml.html.document_fromstring of the bytes) beside it")
    p.add_argument("--stages", action="store_true",
                   help="instead, count each stage of extract() apart (lab.bench.stagecount), "
                        "every module built; with --site-learning, of Declutter, the site step's "
                        "parts too")
    p.add_argument("--site-learning", action="store_true",
                   help="count the pages through one Declutter over a memory store too (in "
                        "order, so a dataset's sites are learned as a crawl would) and print "
                        "what site learning adds a page; a hidden module is hidden from both")
    p.add_argument("--test-sites", type=int, nargs=2, metavar=("SITES", "PAGES"),
                   help="instead of DATASET_DIR's pages, bench-crawl's test sites built from "
                        "them: SITES sites of PAGES pages, each page a different source page")
    p.add_argument("--module", "-m", action="append", default=[], metavar="NAME",
                   help="hide only this compiled module (dotted name; repeatable; default: "
                        "every compiled module of the package)")
    p.add_argument("--jobs", "-j", type=int, default=2,
                   help="callgrind processes at once (default %(default)s); the counts do not "
                        "depend on it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import shutil
    import tempfile
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from ...errors import DeclutterError
    from ...registry import build_extractor
    from ..dataset import page_bytes

    if shutil.which("valgrind") is None:
        raise DeclutterError("bench-compiled needs valgrind (apt-get install valgrind)")
    build_extractor(args.extractor)  # an unknown name fails before the first measurement
    modules = [] if args.built_only else args.module or compiled_modules()
    if not modules and not args.built_only:
        raise DeclutterError("no compiled module is built here (python setup.py build_ext --inplace)")
    with tempfile.TemporaryDirectory(prefix="declutter-bench-compiled-") as tmp:
        samples = (_test_site_pages(Path(tmp) / "sites", args.dataset, *args.test_sites)
                   if args.test_sites else page_bytes(args.dataset, args.limit, args.max_bytes))
        pages = []
        for n, (url, body) in enumerate(samples):
            path = Path(tmp) / f"{n}.html"
            path.write_bytes(body)
            pages.append([url, str(path)])
        size = "" if args.max_bytes is None else f" of at most {args.max_bytes:,} bytes"
        what = (f"the {len(pages)} pages of {args.test_sites[0]} test sites made of {args.dataset}'s"
                if args.test_sites else f"the first {len(pages)} pages{size} of {args.dataset}")
        if args.stages:
            from ..bench.stagecount import GROUPS, SITE_GROUP, stage_table

            groups = (*GROUPS, SITE_GROUP) if args.site_learning else GROUPS
            runs = [(group, warm_only) for group in range(len(groups)) for warm_only in (True, False)]
            with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
                found = list(pool.map(lambda k: _instructions(Path(tmp), k, {
                    "pages": pages, "extractor": args.extractor, "hidden": [], "group": runs[k][0],
                    "site_learning": args.site_learning, "warm_only": runs[k][1]}, inclusive=True),
                    range(len(runs))))
            counted = "Declutter" if args.site_learning else "extract()"
            print(f"{counted} on {what}, extractor {args.extractor!r}, each stage counted apart "
                  "(M instructions a page)")
            print(stage_table(found, len(pages), groups, counted))
            return 0

        learning = (False, True) if args.site_learning else (False,)
        variants = [(hidden, sl) for hidden in [[]] + [[module] for module in modules]
                    for sl in learning] + ([(None, False)] if args.built_only else [])
        runs = [(hidden, sl, warm_only) for hidden, sl in variants for warm_only in (True, False)]
        with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
            counts = list(pool.map(lambda k: _instructions(Path(tmp), k, {
                "pages": pages, "extractor": args.extractor, "hidden": runs[k][0] or [],
                "floor": runs[k][0] is None, "site_learning": runs[k][1],
                "warm_only": runs[k][2]}), range(len(runs))))
        per_page = [(full - warm) / len(pages) for warm, full in zip(counts[::2], counts[1::2])]
        n = len(learning)  # counts a variant: extract(), then Declutter with --site-learning
        rows = [per_page[i:i + n] for i in range(0, (len(modules) + 1) * n, n)]
        built = rows[0]
        print(f"extract() on {what} "
              f"({sum(len(body) for _, body in samples) / len(samples) / 1000:.1f} KB a page), extractor "
              f"{args.extractor!r}: {built[0] / 1e6:.2f} M instructions a page with every module built")
        if args.site_learning:
            print(f"Declutter over the same pages: {built[1] / 1e6:.2f} M a page; site learning "
                  f"adds {(built[1] - built[0]) / 1e6:.2f} M ({(built[1] / built[0] - 1):+.1%})")
        if args.built_only:
            print(f"the plain floor, lxml.html.document_fromstring(bytes), tree freed: "
                  f"{per_page[-1] / 1e6:.2f} M instructions a page; extract() "
                  f"{built[0] / per_page[-1]:.2f}x the floor")
            return 0
        print(f"{'module':<45} {'M/page hidden':>13} {'saves':>7}"
              + (f" {'Declutter hidden':>16} {'saves':>7}" if args.site_learning else "")
              + "  rule")
        for module, hidden in zip(modules, rows[1:]):
            shares = [(h - b) / b for h, b in zip(hidden, built)]
            line = f"{module:<45} {hidden[0] / 1e6:>13.2f} {100 * shares[0]:>6.1f}%"
            if args.site_learning:
                line += f" {hidden[1] / 1e6:>16.2f} {100 * shares[1]:>6.1f}%"
            line += f"  {'pays' if max(shares) >= KEEP_SHARE else 'goes'}"
            print(line)
    return 0


def _test_site_pages(root: Path, dataset: str, sites: int, pages: int) -> list[tuple[str, bytes]]:
    """(URL, bytes) of bench-crawl's test sites built from ``dataset``'s pages, site by site."""
    from pathlib import Path

    from ..bench import testsites

    hosts = testsites.build(root, sites, pages, testsites.real_pages([Path(dataset)]))
    return [(f"http://{host}/{name}", (root / host / name).read_bytes())
            for host in hosts for j in range(pages) for name in testsites.page_names(j)]


def compiled_modules() -> list[str]:
    """The dotted names of the package's compiled modules built here."""
    from importlib.machinery import EXTENSION_SUFFIXES
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = set()
    for path in root.rglob("*"):
        suffix = max((s for s in EXTENSION_SUFFIXES if path.name.endswith(s)), key=len, default="")
        if not suffix:
            continue
        parts = path.relative_to(root.parent).parts
        found.add(".".join([*parts[:-1], path.name[:-len(suffix)]]))
    return sorted(found)


def _instructions(tmp: Path, k: int, job: dict, inclusive: bool = False):
    """The instructions of one process running ``lab.bench.instructions`` on ``job`` (callgrind),
    its files in ``tmp`` named by ``k``; with ``inclusive``, (the total, the inclusive count of
    each function: ``callgrind_annotate`` read by ``stagecount.inclusive_counts``)."""
    import json
    import re
    import subprocess
    import sys
    from pathlib import Path

    from ...errors import DeclutterError
    from ..bench import instructions

    path, out = tmp / f"job-{k}.json", tmp / f"callgrind-{k}.out"
    path.write_text(json.dumps(job))
    here = str(Path(__file__).resolve().parents[3])
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                           sys.executable, instructions.__file__, str(path)],
                          env=_environment(here), capture_output=True, text=True, cwd=tmp)
    if done.returncode or not out.exists():
        raise DeclutterError(f"callgrind failed:\n{done.stderr[-2000:]}")
    totals = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    if totals is None:
        raise DeclutterError("callgrind wrote no instruction total")
    if inclusive:
        from ..bench.stagecount import inclusive_counts

        counts = inclusive_counts(out)
        out.unlink()
        return int(totals.group(1)), counts
    out.unlink()
    return int(totals.group(1))


def _environment(here: str) -> dict[str, str]:
    """This checkout first on ``PYTHONPATH``, and one hash seed so two runs walk the same dicts."""
    from ..bench import environment_with

    return {**environment_with(here), "PYTHONHASHSEED": "0"}
