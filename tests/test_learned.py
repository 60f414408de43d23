"""The learned extractor: model file, NumPy tree evaluation, features, decisions, default chain."""

from __future__ import annotations

import io
import json
import statistics
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_WCXB, needs_shared, wcxb_page

from scrapy_declutter import extract
from scrapy_declutter.blocks import BOILERPLATE, CONTENT
from scrapy_declutter.errors import DeclutterError, ModelError
from scrapy_declutter.lab.metric import word_prf
from scrapy_declutter.page import Page
from scrapy_declutter.registry import DEFAULT, build_extractor
from scrapy_declutter.steps.dragnet.model import DragnetModel
from scrapy_declutter.steps.learned.decide import decide, smooth
from scrapy_declutter.steps.learned.features import feature_names, page_features
from scrapy_declutter.steps.learned.model import (
    FORMAT_VERSION,
    BlockModel,
    TreeEnsemble,
    load_model,
)

MODEL_FILE = Path(__file__).resolve().parents[1] / "scrapy_declutter" / "models" / "learned-blocks.npz"
ARTICLE = (
    "<html><head><title>Budget approved after long debate</title></head><body>"
    "<nav><ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li>"
    "<li><a href='/sport'>Sport</a></li></ul></nav>"
    "<article><h1>Budget approved after long debate</h1>"
    + "".join(f"<p>Paragraph {i}: the committee approved the new budget after a long debate on "
              f"Tuesday evening, and opponents argued that the plan cut too deeply into school "
              f"funding and public transport for the region.</p>" for i in range(6))
    + "</article><footer><p>Copyright 2026 Example Ltd. All rights reserved.</p>"
    "<a href='/privacy'>Privacy</a> <a href='/terms'>Terms</a></footer></body></html>"
)


def test_shipped_model_loads_and_validates():
    model = load_model()
    assert model.meta["format"] == FORMAT_VERSION
    assert model.feature_names == feature_names()
    trees = model.trees
    assert trees.n_trees > 10
    assert len(trees.feature) == len(trees.threshold) == len(trees.left) == len(trees.value)
    assert trees.feature.max() < len(feature_names())
    assert 0.0 < model.threshold < 1.0
    assert "WCXB" in model.meta["training"]["data"]
    assert len(model.odds) > 100
    assert MODEL_FILE.stat().st_size < 5 * 1024 * 1024


def test_model_file_round_trips(tmp_path):
    model = load_model()
    path = tmp_path / "copy.npz"
    model.save(path)
    again = load_model(path)
    X = np.random.default_rng(0).normal(size=(20, len(feature_names())))
    assert np.allclose(again.trees.raw_scores(X), model.trees.raw_scores(X), atol=1e-5)
    assert again.odds.keys() == model.odds.keys()


def test_corrupted_or_foreign_model_files_fail_with_a_reason(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip at all")
    with pytest.raises(ModelError, match="not a scrapy_declutter model"):
        load_model(junk)
    with pytest.raises(ModelError, match="cannot read"):
        load_model(tmp_path / "missing.npz")
    # Same layout, other format version: refused with the remedy.
    with zipfile.ZipFile(MODEL_FILE) as src, zipfile.ZipFile(tmp_path / "v99.npz", "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "meta.npy":
                meta_arr = np.load(io.BytesIO(data), allow_pickle=False)
                meta = json.loads(meta_arr.tobytes())
                meta["format"] = 99
                buf = io.BytesIO()
                np.save(buf, np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
                data = buf.getvalue()
            dst.writestr(name, data)
    with pytest.raises(ModelError, match="train-model"):
        load_model(tmp_path / "v99.npz")


def test_both_trained_models_fail_with_the_one_model_error_and_the_rebuild_command(tmp_path):
    for load, command in ((load_model, "train-model"), (DragnetModel.load, "train-dragnet")):
        expected = f"cannot read model file .*missing.*{command}"
        with pytest.raises(ModelError, match=expected) as info:
            load(tmp_path / "missing")
        assert isinstance(info.value, DeclutterError)


def test_tree_arrays_pointing_outside_are_refused():
    with pytest.raises(ModelError):
        TreeEnsemble(feature=np.zeros(1, int), threshold=np.zeros(1), left=np.array([5]),
                     right=np.zeros(1, int), value=np.zeros(1), missing_left=np.ones(1, bool),
                     roots=np.zeros(1, int), base=0.0, depth=1)


def _toy_data(n=600, width=6):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, width))
    y = ((X[:, 0] + 0.5 * X[:, 1] * X[:, 2] - X[:, 3]) > 0).astype(int)
    return X, y


def test_numpy_trees_equal_scikit_learn_predictions():
    pytest.importorskip("sklearn")
    from sklearn.ensemble import HistGradientBoostingClassifier

    from scrapy_declutter.lab.training.learned import export_trees

    X, y = _toy_data()
    X[::17, 2] = np.nan  # missing values follow the learned side
    clf = HistGradientBoostingClassifier(max_iter=25, max_depth=4, random_state=0).fit(X, y)
    trees = export_trees(clf)
    assert np.allclose(trees.raw_scores(X[:50]), clf.decision_function(X[:50]), atol=1e-9)
    assert np.allclose(trees.probabilities(X[:50]), clf.predict_proba(X[:50])[:, 1], atol=1e-9)


def test_numpy_trees_equal_lightgbm_predictions():
    lightgbm = pytest.importorskip("lightgbm")
    from scrapy_declutter.lab.training.learned import export_trees

    X, y = _toy_data()
    clf = lightgbm.LGBMClassifier(n_estimators=20, num_leaves=8, verbose=-1, n_jobs=1).fit(X, y)
    trees = export_trees(clf)
    assert np.allclose(trees.raw_scores(X[:50]), clf.predict(X[:50], raw_score=True), atol=1e-9)


def test_features_have_one_row_per_block_and_named_columns():
    page = Page.from_html(ARTICLE, "https://example.com/budget")
    X = page_features(page, {"content": 1.0})
    assert X.shape == (len(page.blocks), len(feature_names()))
    assert np.isfinite(X).all()
    names = feature_names()
    assert len(set(names)) == len(names)
    col = {n: i for i, n in enumerate(names)}
    nav = next(i for i, b in enumerate(page.blocks) if b.text == "Home")
    para = next(i for i, b in enumerate(page.blocks) if b.text.startswith("Paragraph 2"))
    assert X[nav, col["anc_nav"]] == 1.0 and X[para, col["anc_nav"]] == 0.0
    assert X[para, col["in_article"]] == 1.0 and X[nav, col["in_article"]] == 0.0
    assert X[para, col["up1_words_share"]] > 0.8  # the article holds the page's text
    assert X[para, col["log_words@-1"]] > 2.0  # its neighbour is a long paragraph too
    assert page_features(Page.from_html("<html></html>"), {}).shape == (0, len(names))


def test_block_columns_hold_what_their_names_say():
    page = Page.from_html(ARTICLE, "https://example.com/budget")
    X = page_features(page, {"content": 1.0})
    col = {n: X[:, i] for i, n in enumerate(feature_names())}
    blocks = page.blocks
    words = np.array([b.words for b in blocks], dtype=float)
    expected = {
        "log_words": np.log1p(words),
        "log_chars": np.log1p([b.text_chars for b in blocks]),
        "link_density": [b.link_density for b in blocks],
        "log_markup": np.log1p([b.markup_chars for b in blocks]),
        "stopword_density": [b.stopword_density for b in blocks],
        "position": [b.position for b in blocks],
        "words_before": (np.cumsum(words) - words) / words.sum(),
        "words_share": words / words.sum(),
        "depth": [b.xpath.count("/") for b in blocks],
        "is_heading": [float(b.tag == "h1") for b in blocks],
        "page_log_blocks": [np.log1p(len(blocks))] * len(blocks),
    }
    for name, values in expected.items():
        assert np.allclose(col[name], values, rtol=1e-6), name
    assert np.array_equal(col["log_words@-1"][1:], col["log_words"][:-1])
    assert np.array_equal(col["link_density@+2"][:-2], col["link_density"][2:])


def test_a_reordered_column_list_moves_no_value(monkeypatch):
    import scrapy_declutter.steps.learned.features as features

    page = Page.from_html(ARTICLE, "https://example.com/budget")
    names, X = feature_names(), page_features(page, {"content": 1.0})
    for constant in ("BASE_NAMES", "CONTEXT_NAMES", "PAGE_NAMES", "GROUP_LEVELS"):
        monkeypatch.setattr(features, constant, type(getattr(features, constant))(
            reversed(getattr(features, constant))))
    shuffled, Y = feature_names(), page_features(page, {"content": 1.0})
    assert shuffled != names and sorted(shuffled) == sorted(names)
    for name in names:
        assert np.array_equal(X[:, names.index(name)], Y[:, shuffled.index(name)]), name


def test_odds_memo_shared_across_pages_changes_no_feature_and_stays_bounded(monkeypatch):
    import scrapy_declutter.steps.learned.features as features

    odds = {"content": 1.5, "nav": -2.0, "post": 0.5, "footer": -1.0}
    pages = [Page.from_html(wcxb_page(i)[0], wcxb_page(i)[1].get("url")) for i in ("0082", "0540", "0619")]
    pages.append(Page.from_html(ARTICLE.replace("<article>", "<article class='post-content'>")))
    alone = [page_features(p, odds) for p in pages]
    memo: dict = {}
    shared = [page_features(p, odds, memo=memo) for p in pages]
    assert all(np.array_equal(a, b) for a, b in zip(alone, shared))
    assert memo  # the combinations were kept for the next page
    monkeypatch.setattr(features, "ODDS_MEMO_MAX", 5)
    page_features(pages[0], odds, memo=memo)
    alone_memo: dict = {}
    page_features(pages[0], odds, memo=alone_memo)
    assert memo.keys() == alone_memo.keys()  # emptied before the page, refilled by it
    assert np.array_equal(page_features(pages[1], odds, memo=memo), alone[1])


def test_decide_keeps_headings_before_content_and_never_returns_nothing():
    page = Page.from_html(ARTICLE)
    probs = np.array([0.9 if b.text.startswith("Paragraph") else 0.05 for b in page.blocks])
    h1 = next(i for i, b in enumerate(page.blocks) if b.tag == "h1")
    probs[h1] = 0.2
    keep = decide(page.blocks, probs, threshold=0.5, heading_floor=0.15)
    assert keep[h1] and keep.sum() == 7
    assert not decide(page.blocks, probs, threshold=0.5, heading_floor=0.3)[h1]
    nothing = decide(page.blocks, np.full(len(page.blocks), 0.01), threshold=0.5)
    assert nothing.sum() == 1


def test_headings_are_kept_as_a_block_by_block_pass_keeps_them():
    """``decide._kept`` finds the headings before kept blocks over the arrays at once: the
    same keep as a pass block by block, headings in a row and every kind of block mixed."""
    from scrapy_declutter.blocks import HEADING_TAGS
    from scrapy_declutter.steps.learned.decide import _kept

    page = Page.from_html("<html><body>" + "".join(
        f"<h2>Heading {i}</h2><h3>Sub {i}</h3><p>Paragraph {i} of words.</p><li>item {i}</li>"
        for i in range(40)) + "</body></html>")
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = rng.choice([0.05, 0.2, 0.3, 0.4, 0.6, 0.9], size=len(page.blocks))
        want = p >= 0.5
        for i in range(len(p) - 1):
            if not want[i] and want[i + 1] and page.blocks[i].tag in HEADING_TAGS and p[i] >= 0.3:
                want[i] = True
        assert np.array_equal(_kept(page.blocks, p, 0.5, 0.3), want)


def test_smoothing_pulls_a_lone_block_towards_its_neighbours():
    p = np.array([0.9, 0.9, 0.1, 0.9, 0.9])
    assert smooth(p, 0.0) is p
    assert smooth(p, 0.5)[2] == pytest.approx(0.5)
    assert smooth(p, 0.5)[0] == pytest.approx(0.9)


def test_default_extractor_is_the_learned_classifier():
    # Then the page rules and the headline rule, each relabelling a few blocks at most.
    assert DEFAULT == ("learned+datatable+teasers+itemlist+thread+overlays+specs+rails+productdata"
                       "+title")
    result = extract(ARTICLE, "https://example.com/budget")
    assert {b.step for b in result.blocks} <= {"learned", "datatable", "teasers", "itemlist", "thread",
                                               "overlays", "specs", "rails", "productdata", "title"}
    assert "Paragraph 3" in result.text
    assert "Sport" not in result.text and "Privacy" not in result.text
    scores = {b.text[:12]: b.score for b in result.blocks}
    paragraphs = [v for k, v in scores.items() if k.startswith("Paragraph")]
    assert scores["Copyright 20"] < min(paragraphs) / 2


def test_learned_step_labels_every_block_the_same_on_a_second_run():
    chain = build_extractor("learned")
    page = Page.from_html(ARTICLE)
    chain.steps[0].process(page)
    assert all(b.label in (CONTENT, BOILERPLATE) and 0.0 <= b.score <= 1.0 for b in page.blocks)
    assert all(b.step == "learned" for b in page.blocks)
    first = [(b.label, b.score) for b in page.blocks]
    chain.steps[0].process(page)  # same page again: the same labels
    assert [(b.label, b.score) for b in page.blocks] == first


def test_learned_parameters_override_the_model_ones():
    strict = extract(ARTICLE, extractor="learned(threshold=0.999)")
    loose = extract(ARTICLE, extractor="learned(threshold=0.001)")
    assert len(strict.text) < len(loose.text)


BUNDLED = ["0082", "0540", "0619", "0688", "2860", "4280", "4287", "4297", "4825"]


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


@pytest.mark.parametrize("file_id", BUNDLED)
def test_default_extractor_keeps_known_content_and_drops_known_boilerplate(file_id):
    html, truth = wcxb_page(file_id)
    gt = truth["ground_truth"]
    text = _norm(extract(html, truth["url"]).text)
    found = sum(_norm(s) in text for s in gt["with"])
    absent = sum(_norm(s) not in text for s in gt["without"])
    assert found >= (len(gt["with"]) + 1) // 2
    assert absent >= 1  # calls to action inside service pages stay (4287 keeps 3 of 5)


def test_default_extractor_scores_well_on_bundled_pages():
    scores, absent, total = [], 0, 0
    for file_id in BUNDLED:
        html, truth = wcxb_page(file_id)
        gt = truth["ground_truth"]
        text = extract(html, truth["url"]).text
        scores.append(word_prf(text, gt["main_content"]).f1)
        absent += sum(_norm(s) not in _norm(text) for s in gt["without"])
        total += len(gt["without"])
    assert absent / total > 0.8
    # In-sample for the shipped model (0540, a phpBB thread, is its known weak page).
    assert statistics.fmean(scores) > 0.8
    assert min(scores) > 0.3


@needs_shared
def test_learned_scores_well_on_a_slice_of_the_dataset():
    from scrapy_declutter.lab.dataset import load_dataset

    samples = load_dataset(SHARED_WCXB)[::90]
    scores = [word_prf(extract(s.html_bytes(), s.url).text, s.main_content).f1 for s in samples]
    assert len(scores) >= 15
    # In-sample (the shipped model saw these pages), so only a floor: CV figures are in the README.
    assert statistics.fmean(scores) > 0.8


def test_block_model_threshold_defaults_when_meta_lacks_it():
    model = load_model()
    bare = BlockModel(trees=model.trees, odds={}, meta={})
    assert bare.threshold == 0.5 and bare.feature_names == []
