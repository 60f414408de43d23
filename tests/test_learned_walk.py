"""The compiled tree walk (``_trees``), chain walk (``_chains``) and block columns (``_columns``)
against their references.

The NumPy tree walk and the Python ``features._chains`` are the references
(they run where the package was built without a compiler); the compiled ones
must give the very same values, so every score, label and text stays bit
for bit the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import wcxb_page

from scrapy_declutter.page import Page
from scrapy_declutter.steps.learned import columns, features, trees
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


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_float64_and_integer_rows_walk_as_numpy_reads_them(model, dtype):
    # The page-type vector is float64: narrowing it to float32 could flip a split.
    t = _joined(model.page_types)[0]
    rng = np.random.default_rng(5)
    X = rng.normal(scale=1e3, size=(40, int(t.feature.max()) + 1)).astype(dtype)
    assert np.array_equal(t.leaf_values(X), t.numpy_leaf_values(X))


def test_builds_without_a_compiler_walk_in_numpy(model, monkeypatch):
    X = np.random.default_rng(3).normal(size=(20, len(model.feature_names))).astype(np.float32)
    want = model.trees.leaf_values(X)
    monkeypatch.setattr(trees, "_compiled", None)
    assert np.array_equal(model.trees.leaf_values(X), want)


@needs_compiled
def test_compiled_walk_refuses_rows_narrower_than_the_features_it_reads(model):
    from scrapy_declutter.errors import ModelError

    with pytest.raises(ModelError):
        model.trees.leaf_values(np.zeros((3, 4), dtype=np.float32))


needs_compiled_chains = pytest.mark.skipif(
    features._compiled is None, reason="the compiled chain walk was not built (no compiler)")
COMMENTS_PAGE = (
    "<html><body><div id='page' class='site wrap'><header class='masthead'><nav><a href='/'>Home"
    "</a></nav></header><main><article class='post entry-content'><h1>A title here</h1>"
    + "".join(f"<p class='lead'>Paragraph {i} of the story, long enough to read as text.</p>"
              for i in range(4))
    + "</article><section id='comments' class='comments-area'><ol class='comment-list'>"
    "<li class='comment'><div class='comment-body'><p>First!</p></div></li>"
    "<li class='comment'><div class='comment-body'><p>I agree with the article.</p></div></li>"
    "</ol><div id='respond'><h3>Leave a reply</h3></div></section></main>"
    "<aside class='sidebar widget-area'><ul><li><a href='/a'>Latest one</a></li></ul></aside>"
    "<footer class='site-footer'><p>© 2026</p></footer></div></body></html>"
)


def _ancestry(html, url):
    return [b.ancestors for b in Page.from_html(html, url).blocks]


@needs_compiled_chains
@pytest.mark.parametrize("file_id", BUNDLED)
def test_compiled_chains_equal_the_python_reference_on_bundled_pages(model, file_id):
    html, truth = wcxb_page(file_id)
    ancestry = _ancestry(html, truth.get("url"))
    want = features._chains(ancestry, model.odds, {})
    assert np.array_equal(features.chain_columns(ancestry, model.odds, {}), want)
    # With a memo the other path filled first, and then with the same memo again.
    memo: dict = {}
    features._chains(ancestry, model.odds, memo)
    assert np.array_equal(features.chain_columns(ancestry, model.odds, memo), want)
    assert np.array_equal(features.chain_columns(ancestry, model.odds, memo), want)
    # And the reference with the names the compiled walk alone filled in.
    memo = {}
    features.chain_columns(ancestry, model.odds, memo)
    assert np.array_equal(features._chains(ancestry, model.odds, memo), want)


@needs_compiled_chains
def test_compiled_chains_mark_comment_boxes_flags_and_blocks_without_ancestors(model):
    ancestry = _ancestry(COMMENTS_PAGE, "https://example.com/post")
    ancestry = ancestry + [()]  # a block with no ancestor record gets a row of zeros
    got = features.chain_columns(ancestry, model.odds, {})
    assert np.array_equal(got, features._chains(ancestry, model.odds, {}))
    assert not got[-1].any()
    in_comment = (got[:, 0].astype(int) & features._COMMENT_BIT) > 0
    assert 0 < in_comment.sum() < len(ancestry) - 1
    assert (got[:, 3] >= got[:, 4]).all() and got[:, 3].max() > 0 > got[:, 4].min()


def test_features_without_the_compiled_chains_are_the_same(model, monkeypatch):
    html, truth = wcxb_page("0540")
    page = Page.from_html(html, truth.get("url"))
    want = page_features(page, model.odds, memo={})
    monkeypatch.setattr(features, "_compiled", None)
    assert np.array_equal(page_features(page, model.odds, memo={}), want)


@needs_compiled_chains
def test_compiled_chains_read_odd_names_as_the_reference_does(model):
    """Names whose tokens, case or comment words are hard to get right in C."""
    from scrapy_declutter.blocks import Ancestor

    names = ["", "x", "a1", "1ab", "post-content__body", "COL12", "\u212aelvin-nav", "\u0130tem",
             "ΣΑΣ-main", "x_y", "a--b", "comments-open", "comment-body", "https://x.org/comment",
             "disqus_thread", "Respond", "commentary", "navbar\u00e9e", "zz9", "h2"]
    odds = dict(model.odds, zz9=0.0, h2=-0.0, kelvin=0.25)
    ancestry, above = [], ()
    for i, name in enumerate(names):
        above = (*above, Ancestor(("div", "section", "li")[i % 3], name, tuple(names[i:i + 2])))
        ancestry.append(above)
    memo, ref_memo = {}, {}
    got = features.chain_columns(ancestry, odds, memo)
    want = features._chains(ancestry, odds, ref_memo)
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))
    # The compiled walk keeps each name's entry, as the reference does, but not the
    # (id, classes) combinations nor the empty name, which it never looks up.
    assert memo == {k: v for k, v in ref_memo.items() if isinstance(k, str) and k}
    assert (got[:, 0].astype(int) & features._COMMENT_BIT).any()


@pytest.mark.skipif(columns._compiled is None, reason="the compiled block columns were not built")
@pytest.mark.parametrize("file_id", BUNDLED)
def test_compiled_block_columns_equal_the_python_reference_on_bundled_pages(file_id):
    html, truth = wcxb_page(file_id)
    blocks = Page.from_html(html, truth.get("url")).blocks
    args = (blocks, features.NUMBER_FIELDS, features._TAG_GROUP, features.GROUP_LEVELS)
    got, want = columns.block_columns(*args), columns.python_block_columns(*args)
    assert all(a is b for a, b in zip(got.ancestry, want.ancestry))
    assert len(got.ancestry) == len(want.ancestry) == len(blocks)
    for name in ("numbers", "depth", "group", "heading", "level_ids"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), name
    assert (got.group >= 0).any() and got.level_ids.all(axis=0).any()
    # Tags in no group are -1 both ways.
    assert (columns.block_columns(blocks, args[1], {}, args[3]).group == -1).all()
    # Objects of another class than the first block's are read with getattr, not at the
    # first one's slot offsets: the same arrays.
    class Plain:
        def __init__(self, b):
            for name in (*args[1], "xpath", "tag", "ancestors"):
                setattr(self, name, getattr(b, name))

    mixed = columns.block_columns([Plain(b) if k % 2 else b for k, b in enumerate(blocks)],
                                  *args[1:])
    for name in ("numbers", "depth", "group", "heading", "level_ids"):
        assert np.array_equal(getattr(mixed, name), getattr(got, name)), name
    # Blocks with short chains: their ids above the chain's top are 0.
    short = [b for b in blocks if len(b.ancestors) < 3][:1]
    if short:
        assert (columns.block_columns(short, *args[1:]).level_ids[2] == 0).all()


@pytest.mark.skipif(columns._compiled is None, reason="the compiled block columns were not built")
@pytest.mark.parametrize("file_id", BUNDLED)
def test_compiled_set_labels_write_what_set_label_writes_on_bundled_pages(file_id):
    html, truth = wcxb_page(file_id)
    got, want = (Page.from_html(html, truth.get("url")).blocks for _ in range(2))
    n = len(got)
    labels = [("content", "boilerplate", "comment")[k % 3] for k in range(n)]
    scores = [k / n for k in range(n)]
    for blocks in (got, want):  # an earlier decision: the trail grows from it
        blocks[0].set_label("content", 1, "before")
    columns.set_labels(got, labels, scores, "learned")
    for b, label, score in zip(want, labels, scores):
        b.set_label(label, score, "learned")
    fields = ("label", "score", "step", "trail")
    assert [[getattr(b, f) for f in fields] for b in got] == [[getattr(b, f) for f in fields] for b in want]
    assert all(type(b.score) is float for b in got) and got[0].trail[0] == ("before", "content")
    # Trails of strings are left untracked by the collector, as a collection would leave them.
    import gc

    assert not any(gc.is_tracked(b.trail) for b in got[3:])
    # An unknown label fails as set_label fails, on the first block that has it.
    with pytest.raises(ValueError, match="label must be one of"):
        columns.set_labels(got[:2], ["content", "kept"], [0.5, 0.5], "learned")
    # A block of another class gets its own set_label called.
    class Other(type(got[0])):
        __slots__ = ()

        def set_label(self, label, score, step):
            self.step = "other"

    other = Other(**{f: getattr(got[1], f) for f in got[1].__dataclass_fields__})
    columns.set_labels([got[0], other], ["content", "content"], [0.2, 0.3], "learned")
    assert other.step == "other" and got[0].score == 0.2
    with pytest.raises(ValueError):
        columns.set_labels(got[:2], ["content"], [0.5, 0.5], "learned")


@pytest.mark.parametrize("file_id", BUNDLED)
def test_the_whole_feature_matrix_equals_the_pure_python_one_on_bundled_pages(model, file_id):
    """Every compiled part of the learned step at once (tree scan, chains, text, block
    columns, same-kind siblings, tree walk) against the references ``reference_walk()``
    switches to."""
    from scrapy_declutter.segment import reference_walk
    from scrapy_declutter.steps.learned.step import score_page

    html, truth = wcxb_page(file_id)
    page = Page.from_html(html, truth.get("url"))
    got = score_page(model, page)
    with reference_walk():
        want = score_page(model, page)
    assert np.array_equal(got.features, want.features) and got.features.shape[0] > 10
    assert np.array_equal(got.types, want.types) and np.array_equal(got.content, want.content)
    region_in = features.feature_names().index("region_in")
    assert got.features[:, region_in].any()


@needs_compiled
@pytest.mark.parametrize("which", ["blocks", "comments"])
def test_packed_float32_walk_splits_at_the_float64_thresholds(model, which):
    """The walk of float32 rows without NaN (``_trees.leaf_values_f32``, over the trees laid
    out complete) compares with float32 thresholds: rows on each threshold and one float32
    step either side of it go the way the NumPy walk's float64 comparison sends them (the
    integer keys they are compared as order as the floats do, zeros of both signs alike), and
    rows of infinities pass the +inf splits under the leaves above the bottom."""
    t = _ensembles(model)[which]
    width = int(t.feature.max()) + 1
    rng = np.random.default_rng(11)
    X = rng.normal(scale=3.0, size=(600, width)).astype(np.float32)
    thresholds = np.asarray(t.threshold)[rng.integers(0, len(t.threshold), size=X.shape)]
    near = thresholds.astype(np.float32)
    X[:200] = near[:200]
    X[200:400] = np.nextafter(near[200:400], np.float32(np.inf))
    X[400:] = np.nextafter(near[400:], np.float32(-np.inf))
    X[590:595], X[595:] = np.float32(np.inf), np.float32(-np.inf)
    X[580:585], X[585:590] = np.float32(0.0), np.float32(-0.0)  # one key for both zeros
    assert (t._c_arrays.perfect[:, 1] == trees._float32_keys(np.float32(np.inf))).any()
    assert trees._compiled.leaf_values_f32(  # the fast walk takes these rows
        X, t._c_arrays.perfect, t._c_arrays.perfect_value, t.depth, np.empty((len(X), t.n_trees)))
    assert np.array_equal(t.leaf_values(X), t.numpy_leaf_values(X))
    X[3, 0] = np.nan  # one missing value: the whole page takes the general walk
    assert not trees._compiled.leaf_values_f32(
        X, t._c_arrays.perfect, t._c_arrays.perfect_value, t.depth, np.empty((len(X), t.n_trees)))
    assert np.array_equal(t.leaf_values(X), t.numpy_leaf_values(X))


@needs_compiled
def test_packed_float32_walk_refuses_nodes_laid_out_otherwise(model):
    """The float32 walk reads a tree's features and then its thresholds (trees x 2 x nodes):
    node arrays laid out node by node (trees x nodes x 2) are refused, not misread."""
    t = model.trees
    c = t._c_arrays
    X = np.ones((3, int(t.feature.max()) + 1), dtype=np.float32)
    out = np.empty((len(X), t.n_trees))
    assert trees._compiled.leaf_values_f32(X, c.perfect, c.perfect_value, t.depth, out)
    with pytest.raises(ValueError, match="not complete trees"):
        trees._compiled.leaf_values_f32(X, np.ascontiguousarray(c.perfect.transpose(0, 2, 1)),
                                        c.perfect_value, t.depth, out)


@needs_compiled
def test_packed_float32_walk_finds_every_nan(model):
    """The NaN check before the fast walk reads the values' bits in blocks: a NaN of any
    sign and payload, at any place (in a block or in the tail after the last one), sends
    the page to the general walk, and infinities do not."""
    t = model.trees
    rows = int(t.feature.max()) + 1
    X = np.ones((7, rows), dtype=np.float32)  # 7 x width values: blocks and a tail
    c = t._c_arrays

    def fast(rows_):
        return trees._compiled.leaf_values_f32(rows_, c.perfect, c.perfect_value, t.depth,
                                               np.empty((len(rows_), t.n_trees)))

    X[0, 0], X[-1, -1] = np.inf, -np.inf
    assert fast(X)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF],
                    dtype=np.uint32).view(np.float32)  # quiet, negative, signalling, ...
    for at in (0, 255, 256, X.size - 1, X.size - 2):
        for nan in nans:
            Y = X.copy()
            Y.flat[at] = nan
            assert not fast(Y), (at, nan)


@pytest.mark.skipif(columns._compiled is None, reason="the compiled block columns were not built")
@pytest.mark.parametrize("file_id", BUNDLED)
def test_compiled_level_ids_and_subtree_spans_equal_the_references(file_id):
    """``_columns.level_ids`` and ``_columns.subtree_spans`` (a hash table in C) against
    ``columns.python_level_ids`` and ``region.python_subtree_spans`` (NumPy ``unique``)."""
    from scrapy_declutter.steps.learned import region
    from scrapy_declutter.steps.learned.context import LEVELS

    html, truth = wcxb_page(file_id)
    ancestry = [b.ancestors for b in Page.from_html(html, truth.get("url")).blocks]
    ids = columns.level_ids(ancestry, LEVELS)
    assert np.array_equal(ids, columns.python_level_ids(ancestry, LEVELS))
    assert ids.dtype == np.uint64 and (ids == 0).any() and (ids != 0).any()
    got, want = columns._compiled.subtree_spans(ids), region.python_subtree_spans(ids)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    assert (got[1] - got[0] > 1).any()  # subtrees of several blocks
    # Keys that collide in the table's slots, repeat across levels, and 0 (no ancestor).
    rng = np.random.default_rng(2)
    ids = rng.integers(0, 6, size=(3, 500)).astype(np.uint64) << np.uint64(24)
    got, want = columns._compiled.subtree_spans(ids), region.python_subtree_spans(ids)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))


@pytest.mark.skipif(columns._compiled is None, reason="the compiled block columns were not built")
@pytest.mark.parametrize("file_id", BUNDLED)
def test_compiled_under_paths_equal_the_reference(file_id):
    """``_columns.under_paths`` (prefixes compared where each XPath lies) against
    ``columns.python_under_paths`` (``(xpath + "/").startswith``): the page's own
    containers, and paths equal to a block's, one step above it, a sibling whose index
    starts the same (``div[1]`` against ``div[10]``) and longer than any XPath."""
    from scrapy_declutter.blocks import subtree_prefixes
    from scrapy_declutter.steps.learned.pagetype import tree_scan

    html, truth = wcxb_page(file_id)
    page = Page.from_html(html, truth.get("url"))
    blocks = page.blocks
    paths = [p for found in features.container_paths(page, tree_scan(page)).values() for p in found]
    some = [b.xpath for b in blocks[::7]]
    tries = [paths, some, [x.rsplit("/", 1)[0] for x in some], [x + "1" for x in some],
             [x[:-1] for x in some], ["/html/body" + "/div" * 400], []]
    for found in tries:
        prefixes = subtree_prefixes(found)
        got = columns._compiled.under_paths(blocks, prefixes)
        assert np.array_equal(got, columns.python_under_paths(blocks, prefixes))
    assert columns._compiled.under_paths(blocks, subtree_prefixes(some)).sum() >= len(some)


def test_the_in_comment_column_the_step_reads_is_named_so():
    assert features.feature_names()[features.IN_COMMENT] == "in_comment"


@pytest.mark.skipif(columns._compiled is None, reason="the compiled block columns were not built")
@pytest.mark.parametrize("file_id", BUNDLED)
def test_compiled_subtree_sums_and_region_widening_equal_the_references(file_id):
    """``_columns.subtree_sums`` (prefix sums in C) against ``region.python_subtree_sums``
    (NumPy ``cumsum``), bit for bit, and ``_columns.widen`` against the loops of
    ``region._region`` it replaces, from every block and every step of its XPath."""
    from scrapy_declutter.steps.learned import region
    from scrapy_declutter.steps.learned.context import LEVELS

    html, truth = wcxb_page(file_id)
    blocks = Page.from_html(html, truth.get("url")).blocks
    ids = columns.level_ids([b.ancestors for b in blocks], LEVELS)
    rng = np.random.default_rng(3)
    values = np.vstack([rng.random(len(blocks)), rng.integers(0, 50, len(blocks)),
                        np.zeros(len(blocks)), -rng.random(len(blocks))])
    got = columns._compiled.subtree_sums(ids, values)
    assert got.shape == (len(LEVELS), 5, len(blocks)) and (got[:, -1] > 1).any()
    assert got.tobytes() == region.python_subtree_sums(ids, values).tobytes()
    for m in range(0, len(blocks), 7):
        steps = blocks[m].xpath.split("/")
        for keep in range(len(steps), 1, -1):
            path = "/".join(steps[:keep])
            lo = hi = m
            while lo > 0 and region._inside(blocks[lo - 1].xpath, path, path + "/"):
                lo -= 1
            while hi < len(blocks) - 1 and region._inside(blocks[hi + 1].xpath, path, path + "/"):
                hi += 1
            assert columns._compiled.widen(blocks, m, m, path) == (lo, hi)
