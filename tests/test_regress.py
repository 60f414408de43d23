"""``scrapy-declutter regress``: saved runs of every extractor, and their comparison after a change."""

from __future__ import annotations

import gzip
import json

from scrapy_declutter.cli import main


def _records(path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_regress_saves_and_compares_every_system(capsys, tiny_dataset, tmp_path):
    from scrapy_declutter.lab.regress import systems

    saved = tmp_path / "run.jsonl.gz"
    assert main(["regress", "save", str(tiny_dataset), str(saved), "--jobs", "1"]) == 0
    records = _records(saved)
    assert {r["system"] for r in records} == set(systems())
    assert len(records) == 3 * len(systems())
    # The format of the baseline saved at the branch point: the lead compares against it.
    assert all(set(r) == {"system", "page", "text", "labels", "scores", "blocks"} for r in records)
    assert all(len(r["labels"]) == r["blocks"] and set(r["labels"]) <= {"B", "C"} for r in records)
    capsys.readouterr()

    assert main(["regress", "compare", str(tiny_dataset), str(saved), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "identical" in out and "site:default" in out

    # One flipped label in the saved run is found, and fails the command.
    doctored = tmp_path / "doctored.jsonl.gz"
    target = next(r for r in records if r["system"] == "density" and "C" in r["labels"])
    target["labels"] = target["labels"].replace("C", "B", 1)
    with gzip.open(doctored, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)
    assert main(["regress", "compare", str(tiny_dataset), str(doctored), "-e", "density",
                 "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    density = next(line for line in out.splitlines() if line.startswith("density "))
    assert density.split()[1:] == ["3", "0", "1", "0", "0"]  # pages, text, labels, scores, missing
    assert "1 differ or are missing" in out


def test_regress_compares_a_limited_run_against_a_full_one(capsys, tiny_dataset, tmp_path):
    saved = tmp_path / "run.jsonl.gz"
    assert main(["regress", "save", str(tiny_dataset), str(saved), "-e", "density", "--jobs", "1"]) == 0
    capsys.readouterr()
    assert main(["regress", "compare", str(tiny_dataset), str(saved), "-e", "density",
                 "--limit", "2", "--jobs", "1"]) == 0
    assert "2 (system, page) pairs compared over 2 pages: identical" in capsys.readouterr().out
    # A system the saved run does not have is missing, not silently skipped.
    assert main(["regress", "compare", str(tiny_dataset), str(saved), "-e", "tree", "--jobs", "1"]) == 1
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("tree "))
    assert row.split()[-1] == "3"


def test_regress_compare_without_a_saved_run_is_a_clear_error(capsys, tiny_dataset, tmp_path):
    assert main(["regress", "compare", str(tiny_dataset), str(tmp_path / "none.jsonl.gz")]) == 2
    assert "no saved run at" in capsys.readouterr().err
