"""The Markdown renders in Chromium: lists, a table and a code block reach the screen.

The Markdown of real snippets is turned into HTML by markdown-it-py (CommonMark
with GitHub tables), styled so that each structure paints its own colour
(tables red borders, code blue background, list markers green), and
screenshotted in headless Chromium. Broken Markdown (a table without its
delimiter row, an unclosed fence, a list read as a paragraph) would leave a
colour out, and ``--dump-dom`` shows the elements Chromium built.
"""

from __future__ import annotations

import subprocess

import pytest

from test_markdown import DOCS, FORMATS, fragment, markdown_of
from test_report_browser import CHROMIUM, png_pixels, render

markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py is in the test extra")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is absent (`apt-get install chromium`; .ci/run installs it)"
)

STYLE = """
body { margin: 8px; font: 14px sans-serif; background: #fff; color: #000; }
table, th, td { border: 3px solid rgb(255, 0, 0); border-collapse: collapse; }
pre { background: rgb(0, 0, 255); color: #fff; padding: 4px; }
li::marker { color: rgb(0, 160, 0); font-size: 28px; }
"""


def page_markdown() -> str:
    table = markdown_of((FORMATS / "postgres-navigation.html").read_text(encoding="utf-8"))
    code = markdown_of(fragment(DOCS / "faq" / "library.html", "//ol"))
    lists = markdown_of(fragment(DOCS / "faq" / "programming.html", "//nav[@id='contents']"))
    return "\n".join([table, code, "\n".join(lists.splitlines()[:12]) + "\n"])


def colour_share(rows: list[bytes], bpp: int, test) -> int:
    return sum(1 for row in rows for i in range(0, len(row), bpp) if test(row[i], row[i + 1], row[i + 2]))


def test_markdown_renders_tables_lists_and_code_in_chromium(tmp_path):
    body = markdown_it.MarkdownIt("commonmark").enable("table").render(page_markdown())
    html = f"<!doctype html><html><head><meta charset='utf-8'><style>{STYLE}</style></head><body>{body}</body></html>"
    path = tmp_path / "markdown.html"
    path.write_text(html, encoding="utf-8")

    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          f"--user-data-dir={tmp_path / 'dom-profile'}", "--dump-dom", path.as_uri()],
                         capture_output=True, text=True, timeout=60).stdout
    assert dom.count("<table>") == 1 and dom.count("<th>") == 3 and dom.count("<td>") == 3
    assert dom.count("<ol>") == 1 and dom.count("<ul>") >= 3
    assert '<code class="language-python3">' in dom

    shot, _ = render(path, tmp_path)
    width, height, bpp, rows = png_pixels(shot)
    red = colour_share(rows, bpp, lambda r, g, b: r > 200 and g < 60 and b < 60)
    blue = colour_share(rows, bpp, lambda r, g, b: b > 200 and r < 60 and g < 60)
    green = colour_share(rows, bpp, lambda r, g, b: g > 120 and r < 60 and b < 60)
    dark = colour_share(rows, bpp, lambda r, g, b: r < 80 and g < 80 and b < 80)
    assert red > 500, "no table borders painted"
    assert blue > 2000, "no code block painted"
    assert green > 50, "no list markers painted"
    assert dark > 2000, "no text painted"
