"""The command line: extract (text and JSON), evaluate on a small WCXB-format folder, errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

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


@pytest.fixture
def tiny_dataset(tmp_path):
    """A WCXB-format folder made of three bundled pages."""
    ids = ["4297", "0540", "0688"]
    (tmp_path / "html").mkdir()
    (tmp_path / "ground-truth").mkdir()
    files = {}
    for i in ids:
        shutil.copy(WCXB_SAMPLES / f"{i}.html.gz", tmp_path / "html")
        shutil.copy(WCXB_SAMPLES / f"{i}.json", tmp_path / "ground-truth")
        truth = json.loads((WCXB_SAMPLES / f"{i}.json").read_text())
        files[i] = {"page_type": truth["_internal"]["page_type"]["primary"], "domain": i, "spa": False}
    (tmp_path / "metadata.json").write_text(json.dumps({"files": files}))
    return tmp_path


def test_evaluate_prints_rows_per_type_and_speed(capsys, tiny_dataset, tmp_path):
    out_json = tmp_path / "scores.jsonl"
    assert main(["evaluate", str(tiny_dataset), "-e", "density", "--no-progress",
                 "--json-out", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "3 pages" in out
    row = next(line for line in out.splitlines() if line.startswith("density "))
    p, r, f1 = (float(x) for x in row.split()[2:5])
    assert 0 < p <= 1 and 0 < r <= 1 and min(p, r) <= f1 <= max(p, r)
    assert "F1 by page type" in out and "forum" in out and "documentation" in out
    assert "plain lxml parsing" in out
    scores = [json.loads(line) for line in out_json.read_text().splitlines()]
    assert {s["system"] for s in scores} == {"density", "lxml-parse"}
    assert len(scores) == 6


def test_evaluate_with_jobs_gives_the_same_scores(tiny_dataset):
    from scrapy_declutter.lab.dataset import load_dataset
    from scrapy_declutter.lab.evaluation.runner import run

    samples = load_dataset(tiny_dataset)
    one = {(s.file_id, s.system): s.f1 for s in run(samples, ["density"], progress=False)}
    two = {(s.file_id, s.system): s.f1 for s in run(samples, ["density"], jobs=2, progress=False)}
    assert one == two


def test_evaluate_rejects_a_folder_that_is_not_a_dataset(capsys, tmp_path):
    assert main(["evaluate", str(tmp_path)]) == 2
    assert "metadata.json is missing" in capsys.readouterr().err


def test_evaluate_runs_a_peer_side_by_side(capsys, tiny_dataset):
    pytest.importorskip("trafilatura")
    assert main(["evaluate", str(tiny_dataset), "-e", "density", "-e", "trafilatura", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("trafilatura ") for line in out.splitlines())
