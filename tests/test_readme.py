"""The README's examples run and say what they print; the docs' links lead somewhere.

The Python quick start runs from the repository root on the bundled Python
docs pages; every ``print(...)  # text`` comment in it must appear in what it
printed (a trailing ``...`` stands for the rest of the line). So does every
``python`` block of the docs pages (settings files and spiders run too:
they define names, and a stale import or name fails). The Scrapy
quick start's spider is run with ``scrapy runspider`` against a loopback copy
of the same pages.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SITE = ROOT / "example_project" / "site"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
#: ``print(...)  # text``: a sample's promise of what it prints.
_PROMISE = re.compile(r"^\s*print\(.*\)\s+#\s*(.+)$", re.MULTILINE)


def section(text: str, heading: str) -> str:
    """The text of a ``## heading`` section, up to the next ``## ``."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def code_blocks(text: str, language: str) -> list[str]:
    return [body for lang, body in _FENCE.findall(text) if lang == language]


def test_readme_is_short_and_keeps_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    first, second = code_blocks(section(text, "Two commands on a fresh machine (Python 3.11)"), "sh")
    assert "scrapy crawl docs -O items.jsonl" in first
    # .ci/run promises to run the README's test command verbatim
    assert second.strip() in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def run_and_check(code: str, filename: str) -> None:
    """Run a sample from the repository root; each ``print(...)  # text`` must print its text."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, filename, "exec"), {"__name__": "sample"})  # noqa: S102
    printed = out.getvalue()
    promised = [m.group(1).removesuffix("...").strip() for m in _PROMISE.finditer(code)]
    for text in promised:
        assert text in printed, (filename, text, printed)


def test_python_quick_start_prints_what_it_says(monkeypatch):
    code = "\n".join(code_blocks(section(README.read_text(encoding="utf-8"), "Python"), "python"))
    monkeypatch.chdir(ROOT)
    assert len(_PROMISE.findall(code)) >= 3
    run_and_check(code, "README.md")


_SAMPLE_PAGES = sorted(p for p in DOCS.glob("*.md")
                       if code_blocks(p.read_text(encoding="utf-8"), "python"))


@pytest.mark.parametrize("page", _SAMPLE_PAGES, ids=lambda p: p.name)
def test_docs_python_samples_run(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    for i, code in enumerate(code_blocks(page.read_text(encoding="utf-8"), "python")):
        run_and_check(code, f"{page.name} python block {i + 1}")


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def docs_site():
    """The bundled docs.python.org pages on a loopback port, at the same paths."""
    handler = functools.partial(_QuietHandler, directory=str(SITE / "docs.python.org"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_scrapy_quick_start_spider_cleans_every_page(docs_site, tmp_path):
    (spider,) = [b for b in code_blocks(section(README.read_text(encoding="utf-8"), "Scrapy"),
                                        "python") if "scrapy.Spider" in b]
    assert "https://docs.python.org/" in spider
    (tmp_path / "tutorial.py").write_text(spider.replace("https://docs.python.org", docs_site))
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "runspider", "tutorial.py", "-O", "items.jsonl",
         "-s", "TELNETCONSOLE_ENABLED=False"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "SCRAPY_SETTINGS_MODULE": ""},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    pages = {p.name for p in (SITE / "docs.python.org" / "3.11" / "tutorial").glob("*.html")}
    assert {item["url"].rsplit("/", 1)[1] for item in items} == pages
    for item in items:
        assert item["clean_text"] and "Navigation" not in item["clean_text"], item["url"]
        assert any(b["label"] == "boilerplate" and b["text"] == "Previous topic"
                   for b in item["blocks"]), item["url"]
    assert f"scrapy_declutter: {len(pages)} pages from 1 sites" in proc.stderr


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return {_anchor(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize("page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_links_lead_somewhere(page):
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    for target in _LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: broken link {target}"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{page.name}: no heading for {target}"
