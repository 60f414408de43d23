"""The runtime command line: extract (text and JSON) and its errors (lab commands: test_lab_cli)."""

from __future__ import annotations

import json
import subprocess
import sys

from scrapy_declutter.cli import main
from conftest import WCXB_SAMPLES


def test_extract_prints_clean_text(capsys):
    assert main(["extract", str(WCXB_SAMPLES / "4297.html.gz"), "--extractor", "density"]) == 0
    out = capsys.readouterr().out
    assert "Enterprise-ready means the platform handles" in out


def test_extract_json_has_blocks_and_labels(capsys):
    assert main(["extract", "--json", "--extractor", "density", str(WCXB_SAMPLES / "0540.html.gz")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["blocks"] and data["path"].endswith("0540.html.gz")
    assert {b["label"] for b in data["blocks"]} <= {"content", "boilerplate"}


def test_extract_reads_stdin():
    html = b"<html><body><p>" + b"Stdin content that is long enough to be kept by density. " * 3 + b"</p></body></html>"
    proc = subprocess.run([sys.executable, "-m", "scrapy_declutter", "extract", "--extractor", "density", "-"],
                          input=html, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert b"Stdin content that is long enough" in proc.stdout


def test_unknown_extractor_lists_valid_names(capsys):
    assert main(["extract", "--extractor", "nope", str(WCXB_SAMPLES / "4297.html.gz")]) == 2
    err = capsys.readouterr().err
    assert "unknown extractor or step 'nope'" in err and "density" in err


def test_missing_file_is_a_clear_error(capsys, tmp_path):
    assert main(["extract", str(tmp_path / "missing.html")]) == 2
    assert "cannot read" in capsys.readouterr().err
