"""Adversarial pages, and the time and memory ``extract()`` spends on each (issue 7's measurements).

``scrapy-declutter adversarial`` runs every page in a fresh child process
(so one page's peak memory does not hide another's) and prints the worst
wall time of ``--repeat`` runs and the peak resident memory (``ru_maxrss``,
which sees lxml's C allocations that tracemalloc cannot), next to the same
numbers for a tiny page (the baseline: interpreter plus imports).

Besides the bad input of issue 7, three pages sit just under each cap of
``limits`` (the most expensive pages that are still analysed): they bound
what any admitted page can cost.
"""

from __future__ import annotations

import gzip
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable

from ..limits import MAX_BYTES, MAX_CHILDREN, MAX_ELEMENTS

ARTICLE = "<p>The committee met on Tuesday to agree the planting plan for the season.</p>"


def _deep(depth: int) -> bytes:
    return (b"<html><body><p>top</p>" + b"<div>" * depth + b"<p>bottom</p>" + b"</div>" * depth
            + b"</body></html>")


def _under_element_cap() -> bytes:
    # Sections of 48 paragraphs in divs (97 elements each): MAX_ELEMENTS - 1,000 elements, none wide.
    group = "<section>" + ("<div class='c'>" + ARTICLE + "</div>") * 48 + "</section>"
    return f"<html><body>{group * ((MAX_ELEMENTS - 1_000) // 97)}</body></html>".encode()


def _under_byte_cap() -> bytes:
    # Long paragraphs of 1,000 bytes in sections of 1,000: just under MAX_BYTES, ~10,000 elements.
    section = "<section>" + ("<p>" + "lorem ipsum dolor sit amet " * 36 + "</p>") * 1_000 + "</section>"
    return ("<html><body>" + section * ((MAX_BYTES - 100) // len(section)) + "</body></html>").encode()


#: name -> (body builder, Content-Type header)
PAGES: dict[str, tuple[Callable[[], bytes], str]] = {
    "baseline (tiny page)": (lambda: f"<html><body>{ARTICLE}</body></html>".encode(), "text/html"),
    "empty body": (lambda: b"", "text/html"),
    "whitespace only": (lambda: b" \n\t " * 10_000, "text/html"),
    "png as text/html": (lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4_000, "text/html"),
    "gzip as text/html": (lambda: gzip.compress(ARTICLE.encode() * 50_000), "text/html"),
    "pdf as text/html": (lambda: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(range(256)) * 4_000, "text/html"),
    "cp1251 under utf-8 header": (
        lambda: ("<p>" + "Привет, садоводы! Сегодня мы сажаем томаты. " * 2_000 + "</p>").encode("cp1251"),
        "text/html; charset=utf-8"),
    "shift_jis under utf-8 header": (
        lambda: ("<p>" + "吾輩は猫である。名前はまだ無い。" * 2_000 + "</p>").encode("shift_jis"),
        "text/html; charset=utf-8"),
    "20 MB page": (lambda: b"<html><body>" + ARTICLE.encode() * 260_000 + b"</body></html>", "text/html"),
    "100,000-deep nesting": (lambda: _deep(100_000), "text/html"),
    "5 MB text node": (lambda: b"<html><body><p>" + b"word " * 1_000_000 + b"</p></body></html>", "text/html"),
    "200,000 siblings": (lambda: b"<html><body>" + b"<p>x y</p>" * 200_000 + b"</body></html>", "text/html"),
    "malformed markup": (lambda: (b"<html><body><div><p>unclosed <b>bold <i>it" * 2_000
                                  + b"</html><html><body><p>after</p></body></html>"), "text/html"),
    "NUL bytes": (lambda: (b"<p>hel\x00lo wor\x00ld</p>" * 5_000), "text/html"),
    "frameset": (lambda: b"<html><frameset><frame src='a.html'><frame src='b.html'></frameset></html>",
                 "text/html"),
    f"just under {MAX_BYTES:,} bytes": (_under_byte_cap, "text/html"),
    f"just under {MAX_ELEMENTS:,} elements": (_under_element_cap, "text/html"),
    f"{MAX_CHILDREN:,} children of one parent": (
        lambda: b"<html><body><ul>" + b"<li>one list item</li>" * MAX_CHILDREN + b"</ul></body></html>",
        "text/html"),
}


def measure_here(name: str, repeat: int) -> dict:
    """Build one page and extract it ``repeat`` times in this process."""
    from ..api import extract

    build, content_type = PAGES[name]
    body = build()
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = extract(body, "https://adversarial.example/page", content_type=content_type)
        times.append(time.perf_counter() - start)
    assert result is not None
    return {"page": name, "bytes": len(body), "worst_s": max(times), "best_s": min(times),
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "blocks": len(result.blocks), "reason": result.reason}


def measure(name: str, repeat: int = 3) -> dict:
    """``measure_here`` in a fresh Python process."""
    out = subprocess.run([sys.executable, "-m", __name__, name, str(repeat)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    import logging

    logging.disable(logging.CRITICAL)
    print(json.dumps(measure_here(sys.argv[1], int(sys.argv[2]))))
