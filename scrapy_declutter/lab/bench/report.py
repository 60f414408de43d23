"""Size and time of the inspection report on a large page.

    python -m scrapy_declutter.lab.bench.report PAGE.html.gz [...] [--concat 1000000] [--chromium]

With ``--concat N`` the ``<body>`` markup of the given pages (scripts and
styles dropped) is joined into one document of at least N bytes: a large page
made of real markup, with many blocks. Prints the page size and block count,
the extraction and report-rendering times, the report's size and, with
``--chromium``, how long headless Chromium takes to load and paint it (a
one-element page is timed too, so Chromium's start-up can be subtracted).
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from lxml import etree
from lxml import html as lxml_html


def read(path: str) -> bytes:
    data = Path(path).read_bytes()
    return gzip.decompress(data) if path.endswith(".gz") else data


def concatenate(paths: list[str], at_least: int) -> bytes:
    """One document of the bodies of ``paths``, in order, until it reaches ``at_least`` bytes."""
    parts, size = [], 0
    for path in paths:
        body = lxml_html.fromstring(read(path)).find("body")
        if body is None:
            continue
        for el in body.xpath(".//script|.//style|.//svg"):
            el.drop_tree()
        chunk = "".join(etree.tostring(c, encoding="unicode", method="html") for c in body)
        parts.append(f"<section>{chunk}</section>")
        size += len(chunk.encode())
        if size >= at_least:
            break
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Concatenated pages"
            "</title></head><body>" + "".join(parts) + "</body></html>").encode()


def chromium_seconds(page: Path, workdir: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (all Chromium processes) to load and screenshot ``page``."""
    import resource

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise SystemExit("--chromium: chromium is not installed")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", f"--user-data-dir={workdir / 'profile'}",
                    f"--screenshot={workdir / 'shot.png'}", "--window-size=1200,2000",
                    page.as_uri()], capture_output=True, check=True, timeout=300)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    from ...api import extract
    from ...report.document import render_report

    ap = argparse.ArgumentParser(prog="python -m scrapy_declutter.lab.bench.report")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--concat", type=int, metavar="BYTES", help="join page bodies up to BYTES")
    ap.add_argument("--extractor", default="default")
    ap.add_argument("--chromium", action="store_true", help="also time Chromium painting it")
    args = ap.parse_args()
    html = concatenate(args.paths, args.concat) if args.concat else read(args.paths[0])
    t0 = time.perf_counter()
    result = extract(html, "https://example.com/large", extractor=args.extractor)
    t1 = time.perf_counter()
    report = render_report(result)
    t2 = time.perf_counter()
    print(f"page {len(html):,} bytes, {len(result.blocks)} blocks; "
          f"extract {1000 * (t1 - t0):.0f} ms; "
          f"render_report {1000 * (t2 - t1):.0f} ms; report {len(report.encode()):,} bytes")
    if args.chromium:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            (work / "report.html").write_text(report, encoding="utf-8")
            (work / "tiny.html").write_text("<!DOCTYPE html><p>x</p>", encoding="utf-8")
            tiny = chromium_seconds(work / "tiny.html", work)
            big = chromium_seconds(work / "report.html", work)
        print(f"chromium load+screenshot, wall/CPU: report {big[0]:.2f}/{big[1]:.2f} s, "
              f"one-line page {tiny[0]:.2f}/{tiny[1]:.2f} s "
              f"(difference {big[0] - tiny[0]:.2f}/{big[1] - tiny[1]:.2f} s)")


if __name__ == "__main__":
    main()
