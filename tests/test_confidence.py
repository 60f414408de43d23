"""The per-page confidence: its signals, its shipped model, and the lab code that fits it."""

from __future__ import annotations

import gzip
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from scrapy_declutter import extract
from scrapy_declutter.errors import ModelError
from scrapy_declutter.metadata.confidence import (
    REBUILD,
    extraction_confidence,
    load_confidence_model,
)
from scrapy_declutter.metadata.signals import SIGNAL_NAMES, margin_substance, page_signals

SAMPLE = Path(__file__).parent / "sample_data" / "wcxb"
#: A WCXB article (sample_data/wcxb, CC-BY-4.0) the default extracts cleanly.
ARTICLE = "4297"


def sample(file_id: str) -> tuple[bytes, dict]:
    truth = json.loads((SAMPLE / f"{file_id}.json").read_text(encoding="utf-8"))
    return gzip.decompress((SAMPLE / f"{file_id}.html.gz").read_bytes()), truth


def test_the_shipped_model_loads_from_its_file_and_cites_its_data_and_command():
    model = load_confidence_model()
    assert model.names == SIGNAL_NAMES
    assert "train-confidence" in model.meta["command"] and "WCXB" in model.meta["data"]
    assert model.meta["pages"] > 1000


def test_every_sample_page_gets_a_confidence_in_0_1():
    for path in sorted(SAMPLE.glob("*.json")):
        html, truth = sample(path.stem)
        result = extract(html, truth["url"])
        assert result.page_type and 0.0 < result.page_type_probability <= 1.0
        assert 0.0 <= result.confidence <= 1.0
        assert result.metadata.confidence == result.confidence


def test_a_clean_article_ranks_above_the_same_page_with_its_links_kept():
    html, truth = sample(ARTICLE)
    article = extract(html, truth["url"])
    assert article.page_type == "article" and article.confidence > 0.8
    for b in article.blocks:  # the same page with its link-heavy blocks kept instead of its text
        keep = b.link_density > 0.5
        b.set_label("content" if keep else "boilerplate", 0.55 if keep else 0.45, "test")
    assert any(b.is_content for b in article.blocks)
    wrong = extraction_confidence(article.blocks, article.page_type, article.page_type_probability)
    assert wrong < extract(html, truth["url"]).confidence - 0.3


def test_a_page_that_kept_nothing_has_no_confidence():
    result = extract("<html><body><p>" + "word " * 80 + "</p></body></html>", "https://x.org/")
    for b in result.blocks:
        b.set_label("boilerplate", 0.1, "test")
    assert extraction_confidence(result.blocks, result.page_type, 0.9) == 0.0
    assert extraction_confidence([], "article", 0.9) == 0.0


def test_other_extractors_keep_margin_times_substance():
    page = extract("<p>" + "word " * 100 + "</p>", "https://x.org/", extractor="density")
    assert page.page_type == ""
    assert page.confidence == round(margin_substance(page.blocks), 4)
    for b in page.blocks:
        b.set_label("content", 0.5, "test")
    assert margin_substance(page.blocks) == 0.0  # coin tosses only
    for b in page.blocks:
        b.set_label("content", 1.0, "test")
    assert margin_substance(page.blocks) == 1.0


def _reference_signals(blocks, page_type: str, probability: float) -> dict[str, float]:
    """The signals computed the slow, obvious way, one list at a time."""
    words = [b.words for b in blocks]
    kept = [b for b in blocks if b.is_content]
    left = [b for b in blocks if not b.is_content]
    total, content = sum(words), sum(b.words for b in kept)
    out = dict.fromkeys(SIGNAL_NAMES, 0.0)
    if page_type:
        out["type_probability"], out[f"type_{page_type}"] = probability, 1.0
    if not total:
        return out
    idx = [i for i, b in enumerate(blocks) if b.is_content]
    runs = [sum(b.words for b in group) for is_kept, group in
            itertools.groupby(blocks, key=lambda b: b.is_content) if is_kept]
    sentences = [b.words for b in kept if b.text and b.text[-1] in ".!?:;\"\u201d'\u00bb)"]
    margin = sum(b.words * min(1.0, abs(2 * b.score - 1)) for b in blocks) / total
    kept_words = content or 1
    out.update(
        margin=margin, substance=min(1.0, content / 50),
        margin_substance=margin * min(1.0, content / 50) if content else 0.0,
        log_content_words=math.log(1 + content), log_page_words=math.log(1 + total),
        content_share=content / total,
        kept_link_density=sum(b.link_words for b in kept) / kept_words,
        content_score=sum(b.words * b.score for b in kept) / kept_words,
        boilerplate_score=(sum(b.words * b.score for b in left) / (total - content)
                           if total > content else 0.0),
        unsure_share=sum(b.words for b in blocks if abs(b.score - 0.5) < 0.25) / total,
        region_share=(content / sum(words[idx[0]:idx[-1] + 1])
                      if idx and sum(words[idx[0]:idx[-1] + 1]) else 0.0),
        largest_run_share=max(runs, default=0) / kept_words, log_runs=math.log(1 + len(runs)),
        comment_share=sum(b.words for b in blocks if b.label == "comment") / total,
        sentence_share=sum(sentences) / kept_words,
    )
    return out


def test_signals_agree_with_the_slow_reference():
    for path in sorted(SAMPLE.glob("*.json")):
        html, truth = sample(path.stem)
        r = extract(html, truth["url"])
        fast = dict(zip(SIGNAL_NAMES, page_signals(r.blocks, r.page_type, r.page_type_probability)))
        slow = _reference_signals(r.blocks, r.page_type, r.page_type_probability)
        assert fast == pytest.approx(slow, abs=1e-9), path.stem


def test_a_broken_model_file_names_the_rebuild_command(tmp_path):
    bad = tmp_path / "confidence.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError, match="not a confidence model"):
        load_confidence_model(bad)
    model = load_confidence_model()
    other = dict(model.as_dict(), names=["margin"])
    bad.write_text(json.dumps(other))
    with pytest.raises(ModelError, match=REBUILD):
        load_confidence_model(bad)
    model.save(bad)
    again = load_confidence_model(bad)
    signals = np.random.default_rng(0).random((5, len(SIGNAL_NAMES)))
    assert np.allclose(again.predict(signals), model.predict(signals))


def test_fit_ranks_pages_by_the_signal_that_tracks_their_f1():
    from scrapy_declutter.lab.training.confidence import (
        PageRow,
        calibration,
        fit,
        format_report,
        out_of_fold,
        roc_auc,
    )

    rng = np.random.default_rng(1)
    rows = []
    for i in range(400):
        signals = rng.random(len(SIGNAL_NAMES))
        signals[SIGNAL_NAMES.index("log_content_words")] = 5.0
        f1 = float(np.clip(signals[0] + rng.normal(0, 0.1), 0, 1))  # F1 follows the margin
        rows.append(PageRow(f"set{i % 2}", f"d{i % 40}", str(i), ("article", "forum")[i % 4 // 2],
                            signals, f1, 0.5, 1.0, f1))
    f1 = np.array([r.f1 for r in rows])
    oof = out_of_fold(rows, 5)
    assert roc_auc(oof, f1) > 0.85
    assert roc_auc(-oof, f1) < 0.15
    model = fit(rows)
    low_margin, high_margin = np.full((2, len(SIGNAL_NAMES)), 0.5)
    low_margin[[0, SIGNAL_NAMES.index("log_content_words")]] = 0.1, 5.0
    high_margin[[0, SIGNAL_NAMES.index("log_content_words")]] = 0.9, 5.0
    low, high = model.predict(np.vstack([low_margin, high_margin]))
    assert low < 0.4 < 0.6 < high
    table = calibration(oof, f1, (0.0, 0.5, 1.0001))
    assert sum(b.pages for b in table) == len(rows)
    low, high = table
    assert low.mean_f1 < high.mean_f1 and low.bad_share > high.bad_share
    report = format_report(rows, oof).splitlines()
    prf = report[report.index(next(line for line in report if "P / R / F1" in line)) + 1:]
    assert prf[0].split()[:2] == ["all", "400"]  # every set, then its page types
    assert [line.split()[0] for line in prf] == ["all", "set0", "article", "forum",
                                                 "set1", "article", "forum"]
    mean_f1 = float(np.mean(f1))
    assert prf[0].endswith(f"1.0000 / {mean_f1:.4f} / {mean_f1:.4f}")
