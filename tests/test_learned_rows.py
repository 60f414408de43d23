"""The feature matrix's block and tail rows in C (``_columns.block_rows``, ``tail_rows``)
against their NumPy references (``columns.python_block_rows``, ``python_tail_rows``).

Every cell the references write must hold the same bits, and every cell they leave
alone must stay as it was: the matrix starts full of NaN, which only an equal-NaN
comparison passes, so a cell written by one and not the other fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import require_compiled, wcxb_page

from scrapy_declutter.page import Page
from scrapy_declutter.steps.learned import columns, features
from scrapy_declutter.steps.learned.features import (
    _LAYOUT, _TAG_GROUP, BASE_NAMES, CONTEXT_NAMES, GROUP_LEVELS, NUMBER_FIELDS, PAGE_NAMES,
    _rows, chain_columns, page_features)
from scrapy_declutter.steps.learned.model import load_model

BUNDLED = ("0082", "0540", "0619", "0688", "2860")


@pytest.fixture(scope="module")
def model():
    return load_model()


def _inputs(page, model):
    gathered = columns.block_columns(page.blocks, NUMBER_FIELDS, _TAG_GROUP, GROUP_LEVELS)
    chains = chain_columns(gathered.ancestry, model.odds, {})
    words = gathered.numbers[:, NUMBER_FIELDS.index("words")].copy()
    return gathered, chains, words, words.sum() or 1.0


def _both(blocks, model):
    """The matrix after the rows in C and after the references, from the same NaN start."""
    page = Page(root=None, blocks=blocks)
    r = _rows(tuple(BASE_NAMES), tuple(CONTEXT_NAMES), tuple(PAGE_NAMES), tuple(GROUP_LEVELS))
    gathered, chains, words, total = _inputs(page, model)
    tail = np.linspace(-1.0, 1.0, r.width - r.page)
    got, want = (np.full((len(blocks), r.width), np.nan) for _ in range(2))
    require_compiled(columns._compiled, "the feature matrix's rows")
    columns.block_rows(got, r, gathered, chains, words, total, _LAYOUT)
    columns.python_block_rows(want, r, gathered, chains, words, total, _LAYOUT)
    # The context sources must be numbers before they are copied.
    for m in (got, want):
        m[:, r.sources] = np.arange(len(blocks))[:, None] + np.arange(len(r.sources))
    columns.tail_rows(got, r, tail, _LAYOUT)
    columns.python_tail_rows(want, r, tail, _LAYOUT)
    return got, want


@pytest.mark.parametrize("file_id", BUNDLED)
def test_rows_in_c_equal_the_numpy_references_on_bundled_pages(model, file_id):
    html, truth = wcxb_page(file_id)
    blocks = Page.from_html(html, truth.get("url")).blocks
    got, want = _both(blocks, model)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.isnan(got).any() and not np.isnan(got).all()  # the other columns left alone
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("count", [1, 2, 3])
def test_pages_shorter_than_the_neighbour_offsets_keep_zeros_there(model, count):
    html, truth = wcxb_page("0540")
    blocks = Page.from_html(html, truth.get("url")).blocks[:count]
    got, want = _both(blocks, model)
    assert np.array_equal(got, want, equal_nan=True)
    r = _rows(tuple(BASE_NAMES), tuple(CONTEXT_NAMES), tuple(PAGE_NAMES), tuple(GROUP_LEVELS))
    assert (got[0, r.context:r.context + len(CONTEXT_NAMES) * 2] == 0.0).all()  # none before


@pytest.mark.parametrize("file_id", BUNDLED[:2])
def test_the_feature_matrix_is_the_same_with_the_reference_rows(model, file_id, monkeypatch):
    html, truth = wcxb_page(file_id)
    page = Page.from_html(html, truth.get("url"))
    types = np.linspace(0.05, 0.3, len(features.TYPE_NAMES))
    want = [page_features(page, model.odds, memo={}, page_type=t) for t in (None, types)]
    monkeypatch.setattr(features, "block_rows", columns.python_block_rows)
    monkeypatch.setattr(features, "tail_rows", columns.python_tail_rows)
    got = [page_features(page, model.odds, memo={}, page_type=t) for t in (None, types)]
    assert all(a.tobytes() == b.tobytes() for a, b in zip(got, want))
    assert not np.array_equal(got[0], got[1])  # the page-type columns are written
