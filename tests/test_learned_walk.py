"""The compiled tree walk (``steps.learned._trees``) against the NumPy walk it replaces.

The NumPy walk is the reference (it runs where the package was built without
a compiler); the compiled one must give the very same leaf values, so every
score, label and text stays bit for bit the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import wcxb_page

from scrapy_declutter.page import Page
from scrapy_declutter.steps.learned import trees
from scrapy_declutter.steps.learned.features import page_features
from scrapy_declutter.steps.learned.model import _joined, load_model
from scrapy_declutter.steps.learned.trees import TreeEnsemble

needs_compiled = pytest.mark.skipif(trees._compiled is None,
                                    reason="the compiled tree walk was not built (no compiler)")
BUNDLED = ("0082", "0540", "0619", "0688", "2860")


@pytest.fixture(scope="module")
def model():
    return load_model()


def _ensembles(model):
    return {"blocks": model.trees, "comments": model.comments,
            "page types": _joined(model.page_types)[0]}


@needs_compiled
@pytest.mark.parametrize("which", ["blocks", "comments", "page types"])
def test_compiled_walk_equals_numpy_on_random_rows_with_missing_values(model, which):
    t = _ensembles(model)[which]
    rng = np.random.default_rng(7)
    X = rng.normal(scale=3.0, size=(333, int(t.feature.max()) + 1)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan  # missing values go the way each split says
    X[rng.random(X.shape) < 0.1] = 0.0  # values on common thresholds
    got = t.leaf_values(X)
    assert np.array_equal(got, t.numpy_leaf_values(X))
    assert np.array_equal(t.raw_scores(X), t.numpy_leaf_values(X).sum(axis=1) + t.base)


@needs_compiled
@pytest.mark.parametrize("file_id", BUNDLED)
def test_compiled_walk_equals_numpy_on_bundled_pages(model, file_id):
    html, truth = wcxb_page(file_id)
    X = page_features(Page.from_html(html, truth.get("url")), model.odds)
    assert X.dtype == np.float32 and len(X) > 5
    assert np.array_equal(model.trees.leaf_values(X), model.trees.numpy_leaf_values(X))


@needs_compiled
def test_compiled_walk_stops_at_the_depth_the_numpy_walk_does():
    # A chain of three splits in a model that says depth 2: both walks stop after two.
    t = TreeEnsemble(feature=np.zeros(7, int), threshold=np.array([10.0, 1.0, 0, 2.0, 0, 0, 0]),
                     left=np.array([1, 2, 2, 4, 4, 5, 6]), right=np.array([5, 3, 2, 6, 4, 5, 6]),
                     value=np.arange(7, dtype=float), missing_left=np.ones(7, bool),
                     roots=np.array([0]), base=0.0, depth=2)
    X = np.array([[20.0], [5.0], [1.5], [0.5], [-1.0], [np.nan]], dtype=np.float32)
    assert np.array_equal(t.leaf_values(X), t.numpy_leaf_values(X))
    assert t.leaf_values(X)[:, 0].tolist() == [5.0, 3.0, 3.0, 2.0, 2.0, 2.0]


def test_rows_other_than_float32_and_builds_without_a_compiler_walk_in_numpy(model, monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, len(model.feature_names)))
    assert np.array_equal(model.trees.leaf_values(X), model.trees.numpy_leaf_values(X))
    monkeypatch.setattr(trees, "_compiled", None)
    X32 = X.astype(np.float32)
    assert np.array_equal(model.trees.leaf_values(X32), model.trees.numpy_leaf_values(X32))


@needs_compiled
def test_compiled_walk_refuses_rows_narrower_than_the_features_it_reads(model):
    from scrapy_declutter.errors import ModelError

    with pytest.raises(ModelError):
        model.trees.leaf_values(np.zeros((3, 4), dtype=np.float32))
