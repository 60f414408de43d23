"""``scrapy-declutter bench-extract``: ``extract()``'s speed against other commits, in one run.

Issue 15 asks for ``extract()`` at a multiple of the speed of the code it was
filed on, "a ratio from one run on one machine". Two ``evaluate`` runs, one
per checkout, are two runs a minute apart on a machine whose speed moves by
more than the change. Here every code is timed in its own process
(``lab.bench.extracttime``, with the code's checkout first on
``PYTHONPATH``), the codes alternated round by round over the same pages,
each against a plain lxml parse of the same pages in the same process; the
table gives each code's pages/s, its time over lxml's, and its speed over
the first code's in each round. A command that prints numbers, never a
timed test.

``--here-also`` times this checkout with other chains too (``title``: the
parse and segmentation without the learned step), each against every other
code's ``--extractor``: how much of the gap to a target one step could close
at the most.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench-extract", help="time extract() here and in other checkouts, alternated, in one run",
        description="Time extract() on a dataset's pages (given their bytes, as a crawl gives "
                    "them) in this checkout and in each --pythonpath checkout, one process per "
                    "code and round, the codes alternated; print pages/s, the time over plain "
                    "lxml parsing and the speed over the first code's, round by round.")
    p.add_argument("dataset", metavar="DATASET_DIR",
                   help="a dataset folder (WCXB layout), or any folder of .html files, read "
                        "recursively, each page's URL https:// and its path in the folder "
                        "(e.g. example_project/site)")
    p.add_argument("--pythonpath", action="append", default=[], metavar="DIR",
                   help="another checkout to time, built in place (git worktree add DIR COMMIT; "
                        "pip install -e DIR in a venv of its own, or python setup.py build_ext "
                        "--inplace there); repeatable")
    p.add_argument("--rounds", type=int, default=2, help="rounds (default %(default)s)")
    p.add_argument("--extractor", "-e", default="default", help="(default %(default)s)")
    p.add_argument("--here-also", action="append", default=[], metavar="EXTRACTOR",
                   help="also time this checkout with this extractor, against every other "
                        "code's --extractor; repeatable")
    p.add_argument("--limit", type=int, help="only the first N pages")
    p.add_argument("--max-bytes", type=int, metavar="N",
                   help="only the pages of at most N bytes (the small-page view: a page's fixed "
                        "cost weighs most there); --limit counts after it")
    p.add_argument("--fit", action="store_true",
                   help="also fit each page's time (its minimum over rounds), floor and "
                        "extract(), as a fixed cost plus costs per block, per element and per "
                        "KB, by least squares: how much of the gap a page's size explains")
    p.add_argument("--text", action="store_true",
                   help="give extract() the decoded text instead of the bytes")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path
    from statistics import median

    from ...errors import DeclutterError
    from ...registry import build_extractor
    from ..bench import environment_with, extracttime
    from ..bench.costfit import fitted
    from ..dataset import page_bytes
    if args.rounds < 1:
        raise DeclutterError("--rounds must be at least 1")
    names = [args.extractor, *args.here_also]
    for name in names:
        build_extractor(name)  # an unknown name fails here, not in every timed process
    samples = page_bytes(args.dataset, args.limit, args.max_bytes)
    here = str(Path(__file__).resolve().parents[3])
    codes = [here] + [str(Path(d).resolve()) for d in args.pythonpath]
    for code in codes[1:]:
        if not (Path(code) / "scrapy_declutter" / "__init__.py").is_file():
            raise DeclutterError(f"{code} holds no scrapy_declutter package")
    # One row a (code, extractor): this checkout with each of ``names``, then the others.
    runs = [(here, name) for name in names] + [(code, args.extractor) for code in codes[1:]]
    code_labels = {code: _label(code) for code in codes}
    labels = [code_labels[code] + ("" if name == args.extractor else f"/{name}")
              for code, name in runs]
    figures: list[list[dict]] = [[] for _ in runs]
    said: dict[str, str] = {}  # a code's first warning (e.g. its compiled parts are not built)
    with tempfile.TemporaryDirectory(prefix="declutter-bench-extract-") as tmp:
        out = Path(tmp) / "figures.json"
        # The pages' bytes, decompressed once for every code and round to read as they are.
        pages = []
        for n, (url, body) in enumerate(samples):
            path = Path(tmp) / f"{n}.html"
            path.write_bytes(body)
            pages.append([url, str(path)])
        jobs = {}  # one job file an extractor, written once
        for k, name in enumerate(names):
            jobs[name] = Path(tmp) / f"job-{k}.json"
            jobs[name].write_text(json.dumps({"pages": pages, "extractor": name,
                                              "text": args.text, "out": str(out),
                                              "sizes": args.fit}))
        for _ in range(args.rounds):
            for i, (code, name) in enumerate(runs):
                done = subprocess.run([sys.executable, extracttime.__file__, str(jobs[name])],
                                      env=environment_with(code), capture_output=True, text=True,
                                      cwd=tmp)
                if done.returncode or not out.exists():
                    raise DeclutterError(f"timing {labels[i]} failed:\n{done.stderr[-2000:]}")
                figures[i].append(json.loads(out.read_text()))
                out.unlink()
                warning = next((line for line in done.stderr.splitlines() if "WARNING" in line
                                or "not available" in line), "")
                said.setdefault(labels[i], warning)
    size = f" of at most {args.max_bytes:,} bytes" if args.max_bytes is not None else ""
    print(f"extract() on {len(samples)} pages{size} of {args.dataset} "
          f"({sum(len(body) for _, body in samples) / len(samples) / 1000:.1f} KB a page), "
          f"{'text' if args.text else 'bytes'} in, extractor {args.extractor!r}; "
          f"{args.rounds} round(s), codes alternated, process time")
    print(_table(labels, figures))
    print(_reference(labels, figures))
    if args.fit:
        for label, rows in zip(labels, figures):
            print(fitted(label, rows))
    for label, warning in said.items():
        if warning:
            print(f"{label} said: {warning.strip()[:200]}")
    speeds = [[f["pages"] / f["extract"] for f in rows] for rows in figures]
    ours = len(names)  # this checkout's rows come first
    for mine, mine_label in zip(speeds[:ours], labels[:ours]):
        for label, rows in zip(labels[ours:], speeds[ours:]):
            over = [a / b for a, b in zip(mine, rows)]
            print(f"{mine_label} over {label}: " + ", ".join(f"{r:.2f}" for r in over)
                  + f" (median {median(over):.2f})")
    return 0


def _label(code: str) -> str:
    """The checkout's short commit (with '+' when its tree has changes), else its folder."""
    import subprocess

    try:
        head = subprocess.run(["git", "-C", code, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", code, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return code
    return head + ("+" if dirty else "")


def _table(labels: list[str], figures: list[list[dict]]) -> str:
    lines = [f"{'round':<6} {'code':<20} {'pages/s':>8} {'x lxml':>7} {'lxml ms':>8} {'ms/page':>8}"]
    for r in range(len(figures[0])):
        for label, rows in zip(labels, figures):
            f = rows[r]
            lines.append(f"{r + 1:<6} {label:<20} {f['pages'] / f['extract']:>8.1f} "
                         f"{f['extract'] / f['lxml']:>7.2f} {1000 * f['lxml'] / f['pages']:>8.3f} "
                         f"{1000 * f['extract'] / f['pages']:>8.3f}")
    return "\n".join(lines)


def _reference(labels: list[str], figures: list[list[dict]]) -> str:
    """The plain floor's line: ``document_fromstring`` of the bytes, tree freed, minimum
    over rounds, and each row's ``extract()`` against it (minimum over rounds too)."""
    lines = []
    for label, rows in zip(labels, figures):
        floor, spent = min(f["floor"] for f in rows), min(f["extract"] for f in rows)
        pages = rows[0]["pages"]
        lines.append(f"reference {label}: lxml.html.document_fromstring(bytes), tree freed, "
                     f"{1000 * floor / pages:.3f} ms/page; extract() {1000 * spent / pages:.3f} "
                     f"ms/page = {spent / floor:.2f}x the floor (minimum of rounds)")
    return "\n".join(lines)
