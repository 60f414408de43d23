"""The development commands: evaluate (one or several datasets, snippet-only sets) and the
one-line failure of each when an optional dependency is missing (regress: test_regress.py)."""

from __future__ import annotations

import json
import sys

import pytest

from scrapy_declutter.cli import main
from conftest import make_dataset


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
    assert "summary" not in out  # one dataset: its table is the summary
    scores = [json.loads(line) for line in out_json.read_text().splitlines()]
    assert {s["system"] for s in scores} == {"density", "lxml-parse"}
    assert len(scores) == 6 and {s["dataset"] for s in scores} == {"tiny"}


def test_evaluate_with_jobs_gives_the_same_scores(tiny_dataset):
    from scrapy_declutter.lab.dataset import load_dataset
    from scrapy_declutter.lab.evaluation.runner import run

    samples = load_dataset(tiny_dataset)
    one = {(s.file_id, s.system): s.f1 for s in run(samples, ["density"], progress=False)}
    two = {(s.file_id, s.system): s.f1 for s in run(samples, ["density"], jobs=2, progress=False)}
    assert one == two


def test_evaluate_hands_our_extractors_the_bytes_and_peers_the_text_with_bytes(
        tiny_dataset, monkeypatch):
    from scrapy_declutter.lab.dataset import load_dataset
    from scrapy_declutter.lab.evaluation import runner

    samples = load_dataset(tiny_dataset)
    text = {(s.file_id, s.system): s.f1 for s in runner.run(samples, ["default"], progress=False)}
    given = []
    real = runner.extract

    def spying(page, url, **kwargs):
        given.append(type(page))
        return real(page, url, **kwargs)

    monkeypatch.setattr(runner, "extract", spying)
    raw = {(s.file_id, s.system): s.f1 for s in runner.run(
        samples, ["default"], progress=False, as_bytes=True)}
    assert raw == text and given and set(given) == {bytes}
    assert not runner.own_system("peer:justext") and runner.own_system("density+ngram")


def test_evaluate_runs_a_peer_side_by_side(capsys, tiny_dataset):
    pytest.importorskip("trafilatura")
    assert main(["evaluate", str(tiny_dataset), "-e", "density", "-e", "trafilatura", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("trafilatura ") for line in out.splitlines())


def _broken(tmp_path, kind: str):
    folder = tmp_path / kind
    if kind == "absent":
        return folder
    folder.mkdir()
    if kind == "no files key":
        (folder / "metadata.json").write_text(json.dumps({"name": "x"}))
    elif kind == "bad json":
        (folder / "metadata.json").write_text("{not json")
    elif kind == "no pages":
        (folder / "metadata.json").write_text(json.dumps({"files": {"0001": {"page_type": "article"}}}))
    return folder


@pytest.mark.parametrize("kind, says", [
    ("absent", "is not a folder"),
    ("empty folder", "metadata.json is missing"),
    ("no files key", 'has no "files" object'),
    ("bad json", "cannot read"),
    ("no pages", "has no page with both its html and its ground truth (1 listed"),
])
def test_evaluate_refuses_a_folder_that_is_not_a_dataset(capsys, tmp_path, kind, says):
    assert main(["evaluate", str(_broken(tmp_path, kind)), "-e", "density", "--no-progress"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert says in err
    if kind != "bad json":  # the refusal says what a dataset holds
        assert "ground-truth/NNNN.json" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "pages from" not in captured.out


def test_evaluate_scores_several_datasets_and_a_snippet_only_set(capsys, tmp_path):
    ids = ["4297", "0540", "0688"]
    text = make_dataset(tmp_path / "full", ids)
    snippets = make_dataset(tmp_path / "snips", ids, snippets_only=True)
    out_json = tmp_path / "scores.jsonl"
    assert main(["evaluate", str(text), str(snippets), "-e", "density", "--no-progress",
                 "--json-out", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert f"3 pages from {text}" in out and f"3 pages from {snippets}" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("density ")]
    full_row, snip_row = [r for r in rows if len(r) == 10]  # the figures, not F1 by page type
    assert snip_row[2:5] == ["-", "-", "-"]  # no word P/R/F1 without reference texts
    # The same pages with the same snippets: the snippet rates must agree between the sets.
    assert snip_row[5:7] == full_row[5:7]
    summary = out[out.index("summary:"):].splitlines()
    full_line = next(line for line in summary if line.startswith("full "))
    snip_line = next(line for line in summary if line.startswith("snips "))
    assert full_line.split("|")[1].split() == [full_row[2], full_row[4]]  # P and F1
    assert snip_line.split("|")[1].split() == [f"w:{full_row[5]}", full_row[6]]
    scores = [json.loads(line) for line in out_json.read_text().splitlines()]
    snip = [s for s in scores if s["dataset"] == "snips" and s["system"] == "density"]
    assert len(snip) == 3 and all(s["f1"] is None and s["with_total"] for s in snip)


def test_a_null_reference_reads_as_empty_unless_the_whole_set_gives_snippets_only(tmp_path, caplog):
    from scrapy_declutter.lab.dataset import load_dataset

    mixed = make_dataset(tmp_path / "mixed", ["4297", "0540", "0688"])
    truth_path = mixed / "ground-truth" / "0540.json"
    truth = json.loads(truth_path.read_text())
    truth["ground_truth"]["main_content"] = None
    truth_path.write_text(json.dumps(truth))
    (mixed / "html" / "0688.html.gz").unlink()
    samples = load_dataset(mixed)
    assert [s.file_id for s in samples] == ["0540", "4297"]  # 0688 lacks its html
    assert "1 of 3 listed pages lack" in caplog.text
    assert samples[0].main_content == "" and samples[1].main_content  # as WCXB scores a null
    assert all(s.has_text and s.dataset == "mixed" for s in samples)
    only = load_dataset(make_dataset(tmp_path / "only", ["4297", "0540"], snippets_only=True))
    assert all(s.main_content is None and not s.has_text for s in only)


def test_evaluate_refuses_two_datasets_of_the_same_name(capsys, tmp_path):
    a = make_dataset(tmp_path / "a" / "set", ["4297"])
    b = make_dataset(tmp_path / "b" / "set", ["0540"])
    assert main(["evaluate", str(a), str(b), "-e", "density"]) == 2
    assert "two datasets are named 'set'" in capsys.readouterr().err


def test_training_refuses_a_snippet_only_set(capsys, tmp_path):
    snippets = make_dataset(tmp_path / "snips", ["4297"], snippets_only=True)
    assert main(["train-dragnet", str(snippets), "--out", str(tmp_path / "m.json"), "--cv", "0"]) == 2
    assert "gives snippets only" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("argv, module, message", [
    (["train-model", "DATA"], "sklearn", "train-model needs scikit-learn: pip install 'scrapy-declutter[train]'"),
    (["train-confidence", "DATA"], "sklearn",
     "train-confidence needs scikit-learn: pip install 'scrapy-declutter[train]'"),
    (["evaluate", "DATA", "--cv", "2"], "sklearn",
     "evaluate --cv needs scikit-learn: pip install 'scrapy-declutter[train]'"),
    (["evaluate", "DATA", "-e", "trafilatura"], "trafilatura",
     "evaluate needs trafilatura: pip install 'scrapy-declutter[bench]'"),
    (["evaluate", "DATA", "-e", "readability"], "readability",
     "evaluate needs readability-lxml: pip install 'scrapy-declutter[bench]'"),
    (["evaluate", "DATA", "-e", "boilerpy3-article"], "boilerpy3",
     "evaluate needs boilerpy3: pip install 'scrapy-declutter[bench]'"),
    (["fuzz", "--examples", "1"], "hypothesis", "fuzz needs hypothesis: pip install 'scrapy-declutter[test]'"),
])
def test_a_missing_optional_dependency_is_one_clear_line(capsys, monkeypatch, tiny_dataset,
                                                         argv, module, message):
    from scrapy_declutter.lab.evaluation.runner import resolve_system

    resolve_system.cache_clear()
    monkeypatch.setitem(sys.modules, module, None)  # import of it fails, as when not installed
    try:
        code = main([str(tiny_dataset) if a == "DATA" else a for a in argv])
    finally:
        resolve_system.cache_clear()
    captured = capsys.readouterr()
    assert code == 2
    err = captured.err.strip()
    assert err.startswith(f"scrapy-declutter: error: scrapy-declutter {message}")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "pages from" not in captured.out  # stopped before any work


def test_docs_describe_every_development_command():
    from pathlib import Path

    from scrapy_declutter.cli import COMMANDS

    doc = (Path(__file__).resolve().parents[1] / "docs" / "evaluation.md").read_text(encoding="utf-8")
    lab = [m.rsplit(".", 1)[1].replace("_", "-") for m in COMMANDS if ".lab." in m]
    assert len(lab) == 11
    for command in lab:
        assert f"scrapy-declutter {command} " in doc, command


@pytest.mark.parametrize("peer", [False, True])
def test_evaluate_scores_metadata_where_the_truth_has_it(capsys, tiny_dataset, peer):
    if peer:
        pytest.importorskip("trafilatura")
    names = ["-e", "density", *(["-e", "trafilatura"] if peer else [])]
    assert main(["evaluate", str(tiny_dataset), *names, "--no-progress", "--metadata"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("metadata of 3 pages"):].splitlines()
    # The tiny set's truth: three titles, one author, two dates.
    assert "pages whose ground truth has it: title 3, author 1, date 2" in table
    rows = {line.split()[0]: line.split()[1:] for line in table[3:]
            if line.startswith(("scrapy-declutter ", "trafilatura "))}
    assert set(rows) == ({"scrapy-declutter", "trafilatura"} if peer else {"scrapy-declutter"})
    for pages, title, author, date, *_ in rows.values():
        assert pages == "3" and all(0 <= float(x) <= 1 for x in (title, author, date))
    # Ours, recomputed through the public API: the share of dated pages whose date matches.
    from scrapy_declutter import extract
    from scrapy_declutter.lab.dataset import load_dataset
    from scrapy_declutter.lab.metadata_eval import norm_date, truth_of
    from scrapy_declutter.page import decode_html

    dated = [(s, truth_of(s).date) for s in load_dataset(tiny_dataset) if truth_of(s).date]
    hits = [norm_date(extract(decode_html(s.html_bytes()), s.url).metadata.date_published)
            == norm_date(truth) for s, truth in dated]
    assert float(rows["scrapy-declutter"][3]) == pytest.approx(sum(hits) / len(hits), abs=5e-4)
