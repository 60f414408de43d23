"""``scrapy-declutter extract --format text|markdown|json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA

from scrapy_declutter.cli import main

PAGE = (Path(__file__).resolve().parents[1] / "example_project" / "site" / "docs.python.org"
        / "3.11" / "tutorial" / "controlflow.html")
URL = "https://docs.python.org/3.11/tutorial/controlflow.html"


def run(capsys, *args: str) -> str:
    assert main(["extract", *args]) == 0
    return capsys.readouterr().out


def test_text_is_the_default(capsys):
    out = run(capsys, "--url", URL, str(PAGE))
    # The headline is the Markdown's first line, not the text's (docs/output.md).
    assert out.startswith("Besides the while statement")
    assert ">>> if x < 0:\n...     x = 0\n" in out
    assert out == run(capsys, "--format", "text", "--url", URL, str(PAGE))


def test_markdown(capsys):
    out = run(capsys, "--format", "markdown", "--url", URL, str(PAGE))
    assert out.startswith("# 4. More Control Flow Tools\n\n")
    assert "\n## 4.1. if Statements\n" in out
    assert "```python3\n>>> x = int(input(\"Please enter an integer: \"))\n" in out
    assert "](" not in out  # no links unless asked
    linked = run(capsys, "-f", "markdown", "--links", "--url", URL, str(PAGE))
    assert "](https://docs.python.org/3.11/" in linked


def test_json_holds_text_markdown_metadata_and_blocks(capsys):
    data = json.loads(run(capsys, "--format", "json", str(SAMPLE_DATA / "metadata" / "0414.html.gz")))
    assert data["text"] and data["markdown"] and data["blocks"]
    assert data["metadata"]["authors"] == ["Sam Bossley"]
    assert data["metadata"]["date_published"].startswith("2025-08-29")
    assert data["path"].endswith("0414.html.gz")


def test_json_flag_is_the_json_format(capsys):
    assert run(capsys, "--json", str(SAMPLE_DATA / "metadata" / "0414.html.gz")) == run(
        capsys, "-f", "json", str(SAMPLE_DATA / "metadata" / "0414.html.gz"))


def test_unknown_format_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["extract", "--format", "xml", str(PAGE)])
    assert "invalid choice" in capsys.readouterr().err
