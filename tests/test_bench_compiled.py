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
    done = subprocess.run([sys.executable, instructions.__file__, str(job)], capture_output=True,
                          text=True, env=environment_with(str(ROOT)), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "the compiled segmentation walk is not available" in done.stderr


def test_without_valgrind_it_stops_with_the_remedy(monkeypatch, capsys, tiny_dataset):
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "valgrind" else real(name))
    assert main(["bench-compiled", str(tiny_dataset)]) == 2
    assert "needs valgrind" in capsys.readouterr().err
