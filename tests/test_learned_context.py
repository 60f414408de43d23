"""The learned step's second stage: context columns of the first stage's probabilities, model file."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scrapy_declutter.errors import ModelError
from scrapy_declutter.page import Page
from scrapy_declutter.steps.learned.context import (
    CONFIDENT,
    LEVELS,
    context_features,
    context_names,
)
from scrapy_declutter.steps.learned.features import feature_names
from scrapy_declutter.steps.learned.model import load_model
from scrapy_declutter.steps.learned.step import _checked_model, score_page
from scrapy_declutter.steps.learned.trees import TreeEnsemble

PAGE = (
    "<html><head><title>Budget approved</title></head><body>"
    "<nav><ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li>"
    "<li><a href='/sport'>Sport</a></li></ul></nav>"
    "<article><h1>Budget approved</h1>"
    + "".join(f"<p>Paragraph {i}: the committee approved the new budget after a long debate "
              f"on Tuesday evening.</p>" for i in range(4))
    + "</article><footer><p>Copyright 2026 Example Ltd.</p></footer></body></html>"
)


def _page_and_probs():
    page = Page.from_html(PAGE, "https://example.com/budget")
    probs = np.array([0.9 if b.text.startswith("Paragraph") else 0.1 for b in page.blocks])
    return page, probs


def test_context_columns_hold_what_their_names_say():
    page, p = _page_and_probs()
    X = context_features(page.blocks, p)
    n = len(page.blocks)
    assert X.shape == (n, len(context_names())) and X.dtype == np.float32
    col = {name: X[:, i] for i, name in enumerate(context_names())}
    assert np.allclose(col["ctx_logit"], np.log(p / (1 - p)), atol=1e-5)
    assert np.allclose(col["ctx_p-1"][1:], p[:-1]) and col["ctx_p-1"][0] == -1.0
    assert np.allclose(col["ctx_p+2"][:-2], p[2:]) and (col["ctx_p+2"][-2:] == -1.0).all()
    paras = [i for i, b in enumerate(page.blocks) if b.text.startswith("Paragraph")]
    home = next(i for i, b in enumerate(page.blocks) if b.text == "Home")
    # The article's subtree is all confident; the menu's all not.
    assert col["ctx_up1_mean"][paras[0]] == col["ctx_up1_mean"][paras[-1]] > 0.8
    assert col["ctx_up2_mean"][home] == pytest.approx(0.1)
    assert col["ctx_up1_mass"][paras[0]] > 0.9  # the article holds the expected content
    words = np.array([b.words for b in page.blocks], dtype=float)
    mass = p * words
    assert col["ctx_page_mass"][0] == pytest.approx(mass.sum() / words.sum(), rel=1e-5)
    assert col["ctx_page_confident"][0] == pytest.approx((p >= CONFIDENT).mean())
    assert col["ctx_mass_before"][paras[0]] + col["ctx_mass_after"][paras[0]] == pytest.approx(
        1 - mass[paras[0]] / mass.sum(), rel=1e-5)
    # Distances to the nearest confident block: 0 on one, counted in blocks elsewhere.
    assert col["ctx_dist_prev"][paras[2]] == 0.0 and col["ctx_dist_next"][paras[2]] == 0.0
    assert col["ctx_dist_next"][home] == pytest.approx(np.log1p(paras[0] - home))
    assert col["ctx_dist_prev"][home] == pytest.approx(np.log1p(n))  # none before it
    assert len(context_names()) == len(set(context_names())) == 11 + 2 * len(LEVELS)


def test_context_of_an_empty_or_unconfident_page():
    assert context_features([], np.zeros(0)).shape == (0, len(context_names()))
    page, p = _page_and_probs()
    X = context_features(page.blocks, np.zeros(len(page.blocks)))
    assert np.isfinite(X).all()
    col = {name: X[:, i] for i, name in enumerate(context_names())}
    assert np.allclose(col["ctx_dist_prev"], np.log1p(len(page.blocks)))


def _stump(feature: int, threshold: float, low: float, high: float) -> TreeEnsemble:
    """One tree of one split: ``low`` at or below ``threshold``, ``high`` above."""
    return TreeEnsemble(
        feature=np.array([feature, 0, 0]), threshold=np.array([threshold, 0.0, 0.0]),
        left=np.array([1, 1, 2]), right=np.array([2, 1, 2]), value=np.array([0.0, low, high]),
        missing_left=np.ones(3, bool), roots=np.array([0]), base=0.0, depth=1)


def test_the_second_stage_gives_the_final_probabilities_and_round_trips(tmp_path):
    shipped = load_model()
    page = Page.from_html(PAGE, "https://example.com/budget")
    one = score_page(dataclasses.replace(shipped, second=None), page)
    # A second stage that reads only the first stage's logit, inverted.
    logit = len(feature_names()) + context_names().index("ctx_logit")
    second = _stump(logit, 0.0, 3.0, -3.0)
    meta = dict(shipped.meta, context_names=context_names())
    model = dataclasses.replace(shipped, second=second, meta=meta)
    two = score_page(model, page)
    assert np.array_equal(two.features, one.features)
    expected = np.where(one.content > 0.5, 1 / (1 + np.exp(3.0)), 1 / (1 + np.exp(-3.0)))
    assert np.allclose(two.content, expected)
    path = tmp_path / "two.npz"
    model.save(path)
    again = load_model(path)
    assert again.meta["context_names"] == context_names()
    assert np.allclose(score_page(again, page).content, two.content)
    # A model whose second stage read other context columns is refused with the remedy.
    stale = dataclasses.replace(model, meta=dict(meta, context_names=["ctx_old"]))
    stale.save(tmp_path / "stale.npz")
    with pytest.raises(ModelError, match="train-model"):
        _checked_model(str(tmp_path / "stale.npz"))
    # ... and one whose trees read past the named columns cannot load.
    wide = dataclasses.replace(model, second=_stump(logit + 100, 0.0, 1.0, -1.0))
    wide.save(tmp_path / "wide.npz")
    with pytest.raises(ModelError, match="second uses feature"):
        load_model(tmp_path / "wide.npz")
