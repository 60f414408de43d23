"""Near-duplicate benchmarks: the index's cost per page, and how right a crawl's flags are.

``cost`` runs the in-memory index over a data set's texts (the WCXB gold main
contents by default: clean texts of real pages) and measures the CPU of
``first_copy`` per page (process time, signature, look-up and insertion),
first with every page new, then with every page again under another URL
(each a copy), and the memory the index holds per indexed page
(tracemalloc, the index's own allocations):

    python -m scrapy_declutter.lab.bench.duplicates [--data DIR] [--limit N] [--redis URI]

``--only load|index|index-reference-words`` measures nothing itself: it
loads the texts and, but for ``load``, indexes each once, for an instruction
count that a loaded machine does not move (``valgrind --tool=callgrind``:
``index`` minus ``load`` is the check's own; ``index-reference-words`` with
the NumPy word hashing instead of the compiled one).

``score`` rates a crawl's flags (URL -> the first copy's URL or None) against
the copies the test sites were built with (``testsites.build`` with
``copies``; URL -> the source page it was made from), and ``replay`` computes
the flags from a feed's clean texts, in feed order, for a crawl whose items
do not carry them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .testsites import SHARED_DATA


@dataclass(frozen=True)
class Score:
    """How a crawl's near-duplicate flags compare with the copies it was built with."""

    #: Flags naming a page made from the same source page (not the page itself).
    correct: int
    #: Pages flagged.
    flagged: int
    #: Pages that should be flagged: in each group of copies with text, all but one.
    expected: int
    #: Correct flags that name the one unflagged page of their group (the first copy).
    to_first: int

    @property
    def precision(self) -> float:
        return self.correct / self.flagged if self.flagged else 1.0

    @property
    def recall(self) -> float:
        return min(self.correct, self.expected) / self.expected if self.expected else 1.0

    def __str__(self) -> str:
        return (f"flags: {self.flagged} ({self.correct} right, {self.to_first} of them naming "
                f"their group's unflagged first page); expected {self.expected}; "
                f"precision {self.precision:.4f}, recall {self.recall:.4f}")


def score(flags: Mapping[str, str | None], groups: Mapping[str, Hashable]) -> Score:
    """Rate ``flags`` (every page with text: its first copy's URL or None) against ``groups``
    (URL -> the source it was made from; a URL not there is a group of its own)."""
    members: dict[Hashable, list[str]] = defaultdict(list)
    for url in flags:
        members[groups.get(url, ("alone", url))].append(url)
    correct = to_first = 0
    for url, first in flags.items():
        group = groups.get(url, ("alone", url))
        if first is None or first == url or groups.get(first, ("alone", first)) != group:
            continue
        correct += 1
        unflagged = [u for u in members[group] if flags[u] is None]
        to_first += unflagged == [first]
    expected = sum(len(urls) - 1 for urls in members.values())
    return Score(correct=correct, flagged=sum(f is not None for f in flags.values()),
                 expected=expected, to_first=to_first)


def replay(items: Iterable[Mapping[str, Any]], *, url_field: str = "url",
           text_field: str = "clean_text", body_field: str | None = None,
           threshold: float | None = None) -> dict[str, str | None]:
    """The flags an in-memory index gives a feed's items, in feed order (pages with text);
    ``body_field``: items carry a digest of their page's bytes there (hex), given as its body."""
    from ...nearduplicates.index import DEFAULT_THRESHOLD, MemoryIndex

    index = MemoryIndex(threshold=threshold or DEFAULT_THRESHOLD)
    flags: dict[str, str | None] = {}
    for item in items:
        text = item.get(text_field)
        if text and text.strip():
            body = bytes.fromhex(item[body_field]) if body_field and item.get(body_field) else None
            flags[item[url_field]] = index.first_copy(item[url_field], text, body=body)
    return flags


def feed_flags(feed: Path, field: str, *, text_field: str = "clean_text",
               body_field: str | None = None) -> tuple[dict[str, str | None], bool]:
    """(flags of a crawl's JSON lines feed, whether they were replayed): the items' ``field``
    where they carry it, else ``replay`` over their clean texts. Pages without text are left
    out, as the index leaves them."""
    items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines() if line]
    if items and all(field in item for item in items):
        return {item["url"]: item[field] for item in items
                if (item.get(text_field) or "").strip()}, False
    return replay(items, text_field=text_field, body_field=body_field), True


def site_path(url: str) -> str:
    """``http://127.0.1.1:8080/p3-2.html`` -> ``127.0.1.1/p3-2.html``, as ``copy_groups`` keys."""
    parts = urlsplit(url)
    return f"{parts.hostname}{parts.path}"


def gold_texts(data: Path, limit: int | None = None) -> list[tuple[str, str, Path]]:
    """(url, gold main content, HTML file) of a WCXB-layout data set's pages that have one."""
    found = []
    for path in sorted((data / "ground-truth").glob("*.json"))[:limit]:
        truth = json.loads(path.read_text(encoding="utf-8"))
        text = (truth.get("ground_truth") or {}).get("main_content")
        html = [p for p in (data / "html").glob(f"{path.stem}.html*")]
        if text and text.strip() and html:
            found.append((truth.get("url") or path.stem, text, html[0]))
    return found


def parse_ms(files: list[Path]) -> float:
    """CPU ms per page of lxml parsing the pages' HTML, its tree freed: the yardstick the
    project measures extraction against (docs/results.md)."""
    import lxml.html

    bodies = [gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
              for f in files]
    started = time.process_time()
    for body in bodies:
        lxml.html.document_fromstring(body)
    return 1000 * (time.process_time() - started) / len(bodies)


def cost(texts: list[tuple[str, str]]) -> dict[str, float]:
    """CPU ms per page of ``first_copy`` (new pages, then the same pages as copies) and the
    bytes the index holds per indexed page."""
    from ...nearduplicates.index import MemoryIndex

    MemoryIndex().first_copy("warm-up", "first use imports and draws the permutations")
    index = MemoryIndex()
    started = time.process_time()
    for url, text in texts:
        index.first_copy(url, text)
    new = time.process_time() - started
    started = time.process_time()
    hits = sum(index.first_copy(url + "#copy", text) == url for url, text in texts)
    again = time.process_time() - started
    tracemalloc.start()  # a second index, built while its allocations are traced
    before = tracemalloc.get_traced_memory()[0]
    traced = MemoryIndex()
    for url, text in texts:
        traced.first_copy(url, text)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    words = sum(len(text.split()) for _, text in texts)
    return {"pages": len(texts), "indexed": len(index), "hits": hits,
            "words_per_page": words / len(texts), "ms_new": 1000 * new / len(texts),
            "ms_copy": 1000 * again / len(texts), "bytes_per_page": held / len(index)}


def redis_cost(texts: list[tuple[str, str]], uri: str) -> dict[str, float]:
    """CPU ms per page of ``first_copy`` in this process against a Redis index (the server's
    own CPU not counted) and the server's memory per indexed page (``INFO memory``)."""
    from ...nearduplicates.redisindex import RedisIndex

    index = RedisIndex(uri, name="bench-duplicates")
    try:
        before = index.client.info("memory")["used_memory"]
        started = time.process_time()
        for url, text in texts:
            index.first_copy(url, text)
        spent = time.process_time() - started
        held = index.client.info("memory")["used_memory"] - before
        indexed = int(index.client.get(index.prefix + b"rank") or 0)
    finally:
        index.close()
    return {"ms": 1000 * spent / len(texts), "bytes_per_page": held / max(indexed, 1)}


def index_only(texts: list[tuple[str, str]], *, reference_words: bool = False) -> None:
    """Index each text once, as new pages, with nothing else around it (``--only``)."""
    from ...nearduplicates import signature
    from ...nearduplicates.index import MemoryIndex

    if reference_words:
        signature._compiled = None
    index = MemoryIndex()
    for url, text in texts:
        index.first_copy(url, text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--redis", metavar="URI", help="also measure an index in this Redis "
                                                       "database (redis://127.0.0.1:6379/0)")
    parser.add_argument("--only", choices=["load", "index", "index-reference-words"],
                        help="load the texts and (but for load) index them, nothing else: "
                             "for instruction counts under valgrind --tool=callgrind")
    args = parser.parse_args(argv)
    found = gold_texts(args.data, args.limit)
    if not found:
        parser.error(f"no gold texts under {args.data}/ground-truth")
    texts = [(url, text) for url, text, _ in found]
    if args.only:
        from ...nearduplicates.index import MemoryIndex

        MemoryIndex().first_copy("warm-up", "first use imports and draws the permutations")
        if args.only != "load":
            index_only(texts, reference_words=args.only == "index-reference-words")
        return
    parsing = parse_ms([html for _, _, html in found])
    figures = cost(texts)
    print(f"{figures['pages']} texts of {args.data} ({figures['words_per_page']:.0f} words a "
          f"page on average), {figures['indexed']} indexed")
    print(f"CPU per page (process time): "
          f"{figures['ms_new']:.3f} ms new (signature, look-up, insertion), "
          f"{figures['ms_copy']:.3f} ms as a copy ({figures['hits']} found their first copy); "
          f"lxml parsing the same pages: {parsing:.3f} ms")
    print(f"memory held per indexed page: {figures['bytes_per_page']:.0f} bytes (tracemalloc)")
    if args.redis:
        shared = redis_cost(texts, args.redis)
        print(f"Redis: {shared['ms']:.3f} ms CPU per page in this process (round trips on "
              f"loopback), {shared['bytes_per_page']:.0f} bytes per indexed page in the server")


if __name__ == "__main__":
    main()
