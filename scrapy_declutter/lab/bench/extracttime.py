"""Time ``extract()`` on a list of pages against plain lxml parsing: one code, one process.

Run as a script (``python extracttime.py JOB``), not imported: ``bench-extract``
starts it once per code and round with that code's checkout first on
``PYTHONPATH``, so ``from scrapy_declutter import extract`` is the code being
measured, whatever its age. It therefore imports nothing else of the package
and reads the pages from the files the command wrote (``JOB``: JSON with
``pages``, a list of [URL, path of the page's bytes], ``extractor``, ``text``,
``out``).

Each page is read untimed, then, by process time, parsed by plain lxml
twice and extracted right after: ``lxml.html.document_fromstring`` of its
bytes as a crawl receives them (the reference floor, ``floor``), and
``lxml.html.fromstring`` of its decoded text's UTF-8 bytes (``evaluate``'s
floor, ``lxml``; the decoding by w3lib is untimed); every tree and Result is
freed inside its timing. ``extract()`` is given the page's bytes, as a crawl
gives them, or with ``text`` its decoded text. The first pages are
extracted once untimed first (imports, the model).

Each page's own times are written too (``per_page``: the floor's and
``extract()``'s seconds), with what a page's cost may grow with, counted
after its timing from the Result: its blocks and its tree's elements
(``bench-extract --fit``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

#: Pages extracted untimed before the timed pass.
WARM_UP = 20


def main(job_path: str) -> None:
    from lxml import html as lxml_html
    from w3lib.encoding import html_to_unicode

    from scrapy_declutter import extract

    job = json.loads(Path(job_path).read_text())
    pages = [(url, Path(path).read_bytes()) for url, path in job["pages"]]
    texts = [html_to_unicode(None, body)[1] for _, body in pages]
    given = texts if job["text"] else [body for _, body in pages]
    for (url, _), page in list(zip(pages, given))[:WARM_UP]:
        extract(page, url, extractor=job["extractor"])
    clock = time.process_time
    floor = lxml = spent = 0.0
    per_page = []
    for (url, body), text, page in zip(pages, texts, given):
        start = clock()
        if body.strip():
            lxml_html.document_fromstring(body)  # the tree is freed with the statement
        bare = clock()
        if text.strip():
            lxml_html.fromstring(text.encode("utf-8"))
        parsed = clock()
        extract(page, url, extractor=job["extractor"])
        done = clock()
        floor += bare - start
        lxml += parsed - bare
        spent += done - parsed
        per_page.append([bare - start, done - parsed])
    if job.get("sizes"):  # untimed: the Results again, for what each page holds
        for row, ((url, body), page) in zip(per_page, zip(pages, given)):
            result = extract(page, url, extractor=job["extractor"])
            root = getattr(result, "root", None)
            row += [len(result.blocks), sum(1 for _ in root.iter()) if root is not None else 0,
                    len(body)]
    Path(job["out"]).write_text(json.dumps({"pages": len(pages), "floor": floor, "lxml": lxml,
                                            "extract": spent, "per_page": per_page}))


if __name__ == "__main__":
    main(sys.argv[1])
