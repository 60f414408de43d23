"""``bench-compiled``: the compiled modules it finds, how it hides one, and its refusal without
valgrind. Counting instructions takes minutes a module, so the count itself is not run here."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib import import_module
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from scrapy_declutter.cli import main
from scrapy_declutter.lab.bench import environment_with, instructions
from scrapy_declutter.lab.commands.bench_compiled import compiled_modules
from scrapy_declutter.segment import COMPILED

ROOT = Path(__file__).resolve().parents[1]


def _python(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run this Python on ``args`` with this checkout first on its path."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=environment_with(str(ROOT)), cwd=cwd)


def test_the_modules_found_are_the_compiled_ones_built_here():
    names = compiled_modules()
    if COMPILED is None:
        pytest.skip("nothing is built here: the package runs in pure Python")
    assert "scrapy_declutter._segment" in names
    for name in names:
        assert import_module(name).__file__.endswith(tuple(EXTENSION_SUFFIXES)), name


def test_a_hidden_module_leaves_its_caller_on_the_reference(tmp_path):
    page = tmp_path / "page.html"
    page.write_bytes(b"<html><body><p>One paragraph of words, the page's only block.</p></body></html>")
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"pages": [["http://example.com/a", str(page)]], "extractor": "default",
                               "hidden": ["scrapy_declutter._segment"], "warm_only": False}))
    done = _python(instructions.__file__, str(job), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "the compiled segmentation walk is not available" in done.stderr


def test_without_valgrind_it_stops_with_the_remedy(monkeypatch, capsys, tiny_dataset):
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "valgrind" else real(name))
    assert main(["bench-compiled", str(tiny_dataset)]) == 2
    assert "needs valgrind" in capsys.readouterr().err


def test_stages_routed_to_be_counted_apart_give_the_same_result(tmp_path):
    # Every stage of both groups called through its C function: the Result must not change.
    page = ROOT / "tests" / "sample_data" / "wcxb"
    body = sorted(page.rglob("*.html*"))[0]
    script = (
        "import gzip, sys; from pathlib import Path; from scrapy_declutter import extract\n"
        "from scrapy_declutter.lab.bench.stagecount import GROUPS, route\n"
        f"raw = Path({str(body)!r}).read_bytes(); raw = gzip.decompress(raw) if raw[:2] == b'\\x1f\\x8b' else raw\n"
        "before = extract(raw, 'https://example.org/a')\n"
        "import scrapy_declutter.page as page; parse = page.parse_utf8\n"
        "for g in range(len(GROUPS)): route(g)\n"
        "assert page.parse_utf8 is not parse\n"
        "after = extract(raw, 'https://example.org/a')\n"
        "assert after.text == before.text and after.language == before.language\n"
        "assert [b.label for b in after.blocks] == [b.label for b in before.blocks]\n"
        "print(len(before.blocks))\n")
    done = _python("-c", script, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0


def test_site_learning_counts_test_sites_through_one_declutter(tmp_path, tiny_dataset):
    from urllib.parse import urlsplit

    from scrapy_declutter.lab.commands.bench_compiled import _test_site_pages

    pages = _test_site_pages(tmp_path / "sites", str(tiny_dataset), 2, 3)
    assert len(pages) == 6 and len({urlsplit(url).hostname for url, _ in pages}) == 2
    assert all(b"p1.html" in body for _, body in pages)  # the site's links, for its template
    job = tmp_path / "job.json"
    paths = []
    for n, (url, body) in enumerate(pages):
        (tmp_path / f"{n}.html").write_bytes(body)
        paths.append([url, str(tmp_path / f"{n}.html")])
    job.write_text(json.dumps({"pages": paths, "extractor": "default", "hidden": [],
                               "site_learning": True, "warm_only": False}))
    done = _python(instructions.__file__, str(job), cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_the_site_steps_parts_routed_to_be_counted_apart_give_the_same_results(tmp_path):
    # Every part of SITE_GROUP called through its C function, on pages of one site (its template
    # learned and applied: the rules ran).
    bodies = sorted((ROOT / "example_project" / "site").rglob("*.html"))[:8]
    script = (
        "from pathlib import Path; from scrapy_declutter import Declutter\n"
        "from scrapy_declutter.lab.bench.stagecount import GROUPS, route\n"
        "from scrapy_declutter.sitelearning.learner import SiteLearner\n"
        f"raws = [Path(p).read_bytes() for p in {[str(b) for b in bodies]!r}] * 2\n"
        "def texts():\n"
        "    with Declutter(site_key='fixed:one') as d:\n"
        "        return [(r.text, r.site_learning) for r in (d.extract(raw, f'https://one.example/{k}')\n"
        "                                                   for k, raw in enumerate(raws))]\n"
        "before = texts(); apply = SiteLearner.apply\n"
        "route(len(GROUPS))\n"
        "assert SiteLearner.apply is not apply\n"
        "after = texts()\n"
        "assert after == before\n"
        "print(sum(bool(s and s.template) for _, s in after))\n")
    done = _python("-c", script, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0
