"""Training and out-of-fold evaluation of the learned extractor on the bundled pages."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from scrapy_declutter.lab.dataset import Sample
from scrapy_declutter.lab.evaluation.crossval import evaluate_cv, fold_spec, uses_learned
from scrapy_declutter.lab.training.learned import Corpus, domain_folds, learn_odds, train
from scrapy_declutter.registry import DEFAULT

from conftest import WCXB_SAMPLES

pytest.importorskip("sklearn")


def _samples() -> list[Sample]:
    out = []
    for truth_path in sorted(WCXB_SAMPLES.glob("*.json")):
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        out.append(Sample(
            file_id=truth_path.stem, url=truth["url"],
            page_type=truth["_internal"]["page_type"]["primary"],
            domain=truth["url"].split("/")[2], html_path=WCXB_SAMPLES / f"{truth_path.stem}.html.gz",
            main_content=truth["ground_truth"]["main_content"],
        ))
    return out


def test_domain_folds_never_split_a_domain():
    samples = _samples()
    for s, d in zip(samples, ["a", "a", "b", "b", "b", "c", "d", "e", "f"]):
        s.domain = d
    folds = domain_folds(samples, 3)
    by_domain: dict[str, set[int]] = {}
    for s, f in zip(samples, folds):
        by_domain.setdefault(s.domain, set()).add(f)
    assert all(len(v) == 1 for v in by_domain.values())
    assert set(folds) == {0, 1, 2}


def test_domain_folds_keep_datasets_apart():
    """Pooled sets: a domain in two datasets is two groups, which may land in different folds."""
    first = _samples()[:4]
    second = [dataclasses.replace(s, dataset="other") for s in first]
    for s in first + second:
        s.domain = "same.example"
    folds = domain_folds(first + second, 2)
    assert len(set(folds[:4])) == 1 and len(set(folds[4:])) == 1 and folds[0] != folds[4]


def test_fold_specs_swap_only_the_learned_extractor():
    assert uses_learned("default") and uses_learned("learned(threshold=0.4)")
    assert not uses_learned("trafilatura") and not uses_learned("density")
    spec = fold_spec("learned(threshold=0.4)", Path("/tmp/f0.npz"))
    assert spec == 'learned(model="/tmp/f0.npz",threshold=0.4)'
    spec = fold_spec('default(favor="recall")', Path("/tmp/f0.npz"))
    assert spec == 'learned(model="/tmp/f0.npz",favor="recall")+' + DEFAULT.partition("+")[2]


def test_training_on_a_few_pages_gives_a_working_model(tmp_path):
    samples = _samples()
    corpus = Corpus.build(samples)
    assert len(corpus) == len(samples) and all(lab.content.any() for lab in corpus.labels)
    odds = learn_odds(corpus, range(len(samples)))
    assert odds  # tokens shared by at least three domains
    model = train(corpus, range(len(samples)), params={"max_iter": 5})
    assert len(model.page_types) == 7  # the bundled pages have all seven types
    path = tmp_path / "m.npz"
    model.save(path)
    from scrapy_declutter.api import extract

    html = corpus.samples[0].html_bytes()
    assert extract(html, extractor=f'learned(model="{path}")').text


def test_cross_validated_evaluation_labels_and_scores_every_page(monkeypatch):
    """Snippet-only pages (no reference text) are scored by snippets and trained on weakly."""
    text = _samples()
    snippets = [dataclasses.replace(s, main_content=None, dataset="snips") for s in text[:2]]
    trained_on = []
    build = Corpus.build.__func__
    monkeypatch.setattr(Corpus, "build", classmethod(
        lambda cls, samples, **kw: build(cls, trained_on.extend(samples) or samples, **kw)))
    scores = evaluate_cv(text + snippets, ["default", "density"], k=3, progress=False)
    assert trained_on == text + snippets
    systems = {s.system for s in scores}
    assert systems == {"lxml-parse", "default (cv3)", "density"}
    assert sum(s.system == "default (cv3)" for s in scores) == len(text) + len(snippets)
    assert all(0.0 <= s.f1 <= 1.0 and not s.error for s in scores if s.dataset != "snips")
    snip = [s for s in scores if s.dataset == "snips" and s.system != "lxml-parse"]
    assert len(snip) == 4 and all(s.f1 is None and s.precision is None for s in snip)


def test_kept_fold_models_are_used_again_only_for_the_same_folds(tmp_path, monkeypatch):
    """``models_dir``: a second run on the same pages trains nothing and scores the same;
    other pages (another fold assignment) train afresh."""
    from scrapy_declutter.lab.evaluation import crossval

    monkeypatch.setattr(crossval, "train", lambda corpus, rows, **kw: train(
        corpus, rows, params={"max_iter": 5}, **kw))  # small models: this test is about the folder
    text = _samples()
    first = evaluate_cv(text, ["default"], k=3, progress=False, models_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fold0.npz", "fold1.npz", "fold2.npz", "folds.json"]
    builds = []
    build = Corpus.build.__func__
    monkeypatch.setattr(Corpus, "build", classmethod(
        lambda cls, samples, **kw: builds.append(len(samples)) or build(cls, samples, **kw)))
    again = evaluate_cv(text, ["default"], k=3, progress=False, models_dir=tmp_path, jobs=2)
    assert builds == []
    key = [(s.file_id, s.system, s.f1) for s in first]
    assert [(s.file_id, s.system, s.f1) for s in again] == key
    evaluate_cv(text[:-1], ["default"], k=3, progress=False, models_dir=tmp_path)
    assert builds == [len(text) - 1]
    # First-stage models (--no-second-stage) are another kind: trained afresh, then kept.
    evaluate_cv(text[:-1], ["default"], k=3, progress=False, models_dir=tmp_path,
                second_stage=False)
    assert builds == [len(text) - 1] * 2
    from scrapy_declutter.steps.learned.model import load_model

    assert load_model(tmp_path / "fold0.npz").second is None
    evaluate_cv(text[:-1], ["default"], k=3, progress=False, models_dir=tmp_path,
                type_stage=False)  # nor are models without the page-type classifier
    assert builds == [len(text) - 1] * 3
    assert load_model(tmp_path / "fold0.npz").page_types == ()
