"""``extract()`` over a list of pages with some compiled modules hidden: one measurement, one process.

Run as a script (``python instructions.py JOB``) under callgrind by
``bench-compiled``, which counts the instructions of the whole process; it
subtracts a run of the same job with ``warm_only`` (imports, the pages read,
the first page extracted: the model and the lazy imports loaded) so what is
left is ``extract()`` on the pages. ``JOB`` is JSON with ``pages`` (a list of
[URL, path of the page's bytes]), ``extractor``, ``hidden`` (dotted names of
compiled modules) and ``warm_only``; with ``floor`` the pages are parsed by the
plain floor instead (``lxml.html.document_fromstring`` of the bytes, tree freed);
with ``group`` the stages of that group of ``stagecount.GROUPS`` are routed to be
counted apart first (``bench-compiled --stages``); with ``site_learning`` the pages go
through one ``Declutter`` over a memory store instead, in order (``bench-compiled
--site-learning``).

A hidden module is set to None in ``sys.modules`` before the package is
imported, so importing it raises ``ImportError`` and its callers take their
pure-Python references, as on a machine where it was not built.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path


def main(job_path: str) -> None:
    job = json.loads(Path(job_path).read_text())
    for name in job["hidden"]:
        sys.modules[name] = None  # type: ignore[assignment]  # importing it raises ImportError
    pages = [(url, Path(path).read_bytes()) for url, path in job["pages"]]
    if job.get("floor"):
        from lxml.html import document_fromstring

        for _, body in pages[:1] if job["warm_only"] else pages[:1] + pages:
            document_fromstring(body)  # the tree is freed with the statement
        return
    from scrapy_declutter import extract

    if job.get("group") is not None:
        from scrapy_declutter.lab.bench.stagecount import route

        route(job["group"])
    extract(pages[0][1], pages[0][0], extractor=job["extractor"])
    run = partial(extract, extractor=job["extractor"])
    if job.get("site_learning"):
        from scrapy_declutter import Declutter

        run = Declutter(job["extractor"]).extract
        run(pages[0][1], "http://warm.invalid/")  # site learning's lazy imports
    if not job["warm_only"]:
        for url, body in pages:
            run(body, url)


if __name__ == "__main__":
    main(sys.argv[1])
