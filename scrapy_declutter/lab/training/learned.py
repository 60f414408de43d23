"""Training the learned block classifier: corpus, token odds, boosting, export, grouped CV.

The corpus is every dataset page segmented once, its blocks labelled by
``alignment.align_blocks``; the page's tree is dropped after the few
tree-wide facts the features need are taken (memory stays at the blocks).
Token odds are learned from the training pages only, so cross-validation
folds never see the id/class vocabulary of the sites they score.

Model: scikit-learn's HistGradientBoostingClassifier (train time only),
exported node by node into ``steps.learned.model.TreeEnsemble`` arrays. Blocks are
weighted by their share of the page's words, so every page counts the same
and a long paragraph counts more than a one-word menu entry, as in the
page-level word F1 the benchmark scores.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from ...blocks import class_tokens
from ...steps.learned.decide import decide
from ...steps.learned.features import container_paths, feature_names, page_features
from ...steps.learned.model import BlockModel, TreeEnsemble
from ..alignment import align_blocks, page_of
from ..dataset import Sample
from ..metric import word_prf

#: Boosting parameters of the shipped model (CV-checked; see README "Default (learned)").
#: Chosen by 5-fold CV by domain on a quarter of the pages (mean word F1 at the best
#: threshold): 80 trees of depth 6 0.826, these 120 of depth 7 0.832, 150 of depth 8 with
#: learning rate 0.1 about the same as 80/6 at twice the NumPy evaluation time.
PARAMS = dict(max_iter=120, learning_rate=0.12, max_leaf_nodes=31, max_depth=7,
              min_samples_leaf=40, l2_regularization=1.0, early_stopping=False)
#: Decision threshold stored in the model: content is the minority of blocks and
#: recall costs the word F1 more than precision, so the CV optimum is below 0.5
#: (0.25 on the same quarter; 0.2 to 0.35 are within 0.004 of it).
THRESHOLD = 0.25
#: Id/class tokens seen on fewer training domains than this get no odds (site-specific names).
MIN_TOKEN_DOMAINS = 3
#: At most this many tokens keep odds (the most frequent), bounding the model file.
MAX_TOKENS = 4000
#: Prior strength of the token odds, in page-weight units.
ODDS_PRIOR = 2.0
#: Weight of a block with no words (it cannot change the score, but shapes its neighbours).
EMPTY_WEIGHT = 0.01
CITATION = ("WCXB, the Web Content eXtraction Benchmark, by Murrough Foley (2026), dev split, "
            "CC-BY-4.0")


@dataclass
class Corpus:
    """Segmented, labelled pages ready for feature extraction (trees dropped)."""

    pages: list = field(default_factory=list)
    containers: list[dict] = field(default_factory=list)
    labels: list[np.ndarray] = field(default_factory=list)
    weights: list[np.ndarray] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.pages)

    @classmethod
    def build(cls, samples: Iterable[Sample], *, progress: bool = False) -> "Corpus":
        corpus = cls()
        for i, sample in enumerate(samples):
            page = page_of(sample)
            corpus.containers.append(container_paths(page))
            page.root = None  # the blocks carry everything else the features read
            labels = np.array(align_blocks(page.blocks, sample.main_content), dtype=bool)
            words = np.array([b.words for b in page.blocks], dtype=float)
            total = words.sum() or 1.0
            corpus.pages.append(page)
            corpus.labels.append(labels)
            corpus.weights.append(np.where(words > 0, words / total, EMPTY_WEIGHT / max(len(words), 1)))
            corpus.samples.append(sample)
            if progress and (i + 1) % 100 == 0:
                print(f"  segmented and aligned {i + 1} pages", file=sys.stderr)
        return corpus


def learn_odds(corpus: Corpus, indices: Sequence[int]) -> dict[str, float]:
    """Log-odds of content for id/class tokens over the blocks below them (training pages only)."""
    content: dict[str, float] = defaultdict(float)
    boiler: dict[str, float] = defaultdict(float)
    domains: dict[str, set] = defaultdict(set)
    total_c = total_b = 0.0
    for i in indices:
        page, labels, weights = corpus.pages[i], corpus.labels[i], corpus.weights[i]
        domain = corpus.samples[i].domain
        cache: dict[int, frozenset] = {}
        for b, is_content, w in zip(page.blocks, labels, weights):
            toks: set[str] = set()
            for a in b.ancestors:
                got = cache.get(id(a))
                if got is None:
                    got = cache[id(a)] = frozenset(class_tokens(a.id, a.classes))
                toks |= got
            target = content if is_content else boiler
            for t in toks:
                target[t] += w
                domains[t].add(domain)
            if is_content:
                total_c += w
            else:
                total_b += w
    prior = total_c / ((total_c + total_b) or 1.0)
    prior = min(max(prior, 1e-3), 1 - 1e-3)
    base = math.log(prior / (1 - prior))
    kept = [t for t in domains if len(domains[t]) >= MIN_TOKEN_DOMAINS]
    kept.sort(key=lambda t: -(content[t] + boiler[t]))
    odds = {}
    for t in kept[:MAX_TOKENS]:
        c = content[t] + ODDS_PRIOR * prior
        b = boiler[t] + ODDS_PRIOR * (1 - prior)
        odds[t] = round(math.log(c / b) - base, 4)
    return odds


def matrix(corpus: Corpus, indices: Sequence[int], odds: dict[str, float]):
    """Stacked features, labels and weights of some pages, with each page's row range."""
    xs, ys, ws, spans = [], [], [], []
    start = 0
    for i in indices:
        X = page_features(corpus.pages[i], odds, corpus.containers[i])
        xs.append(X)
        ys.append(corpus.labels[i])
        ws.append(corpus.weights[i])
        spans.append((start, start + len(X)))
        start += len(X)
    width = len(feature_names())
    X = np.vstack(xs) if xs else np.zeros((0, width), dtype=np.float32)
    y = np.concatenate(ys) if ys else np.zeros(0, dtype=bool)
    w = np.concatenate(ws) if ws else np.zeros(0)
    return X, y, w, spans


def fit_trees(X: np.ndarray, y: np.ndarray, w: np.ndarray, params: dict | None = None):
    """Fit the boosted trees (LightGBM when installed, else scikit-learn; train time only).

    LightGBM is the faster of the two by far with sample weights: scikit-learn
    1.9 bins weighted data with one weighted percentile per bin edge.
    """
    params = {**PARAMS, **(params or {})}
    try:
        import lightgbm
    except ImportError:
        from sklearn.ensemble import HistGradientBoostingClassifier

        clf = HistGradientBoostingClassifier(**params, random_state=0)
        clf.fit(X.astype(np.float64), y.astype(int), sample_weight=w)
        return clf
    clf = lightgbm.LGBMClassifier(
        n_estimators=params["max_iter"], learning_rate=params["learning_rate"],
        num_leaves=params["max_leaf_nodes"], max_depth=params["max_depth"],
        min_child_samples=params["min_samples_leaf"], reg_lambda=params["l2_regularization"],
        subsample_for_bin=200_000, random_state=0, n_jobs=1, verbose=-1,
    )
    clf.fit(X.astype(np.float64), y.astype(int), sample_weight=w)
    return clf


def export_trees(clf) -> TreeEnsemble:
    """Copy a fitted binary booster (LightGBM or HistGradientBoosting) into plain node arrays."""
    if hasattr(clf, "booster_"):
        return _export_lightgbm(clf.booster_.dump_model())
    feats, thrs, lefts, rights, vals, miss, roots = [], [], [], [], [], [], []
    offset, depth = 0, 0
    for (predictor,) in clf._predictors:
        nodes = predictor.nodes
        if nodes["is_categorical"].any():
            raise ValueError("categorical splits are not supported by the NumPy evaluator")
        k = len(nodes)
        idx = np.arange(k)
        leaf = nodes["is_leaf"].astype(bool)
        feats.append(np.where(leaf, 0, nodes["feature_idx"]))
        thrs.append(np.where(leaf, 0.0, nodes["num_threshold"]))
        lefts.append(np.where(leaf, idx, nodes["left"]) + offset)
        rights.append(np.where(leaf, idx, nodes["right"]) + offset)
        vals.append(np.where(leaf, nodes["value"], 0.0))
        miss.append(nodes["missing_go_to_left"].astype(bool))
        roots.append(offset)
        depth = max(depth, int(nodes["depth"].max()))
        offset += k
    base = float(np.ravel(clf._baseline_prediction)[0])
    return TreeEnsemble(
        feature=np.concatenate(feats).astype(np.intp), threshold=np.concatenate(thrs),
        left=np.concatenate(lefts).astype(np.intp), right=np.concatenate(rights).astype(np.intp),
        value=np.concatenate(vals), missing_left=np.concatenate(miss),
        roots=np.array(roots, dtype=np.intp), base=base, depth=depth,
    )


def _export_lightgbm(dump: dict) -> TreeEnsemble:
    feats, thrs, lefts, rights, vals, miss, roots = [], [], [], [], [], [], []
    depth = 0
    for info in dump["tree_info"]:
        roots.append(len(feats))
        stack = [(info["tree_structure"], None, 0)]  # (node, (parent, is_left), depth)
        while stack:
            node, parent, d = stack.pop()
            i = len(feats)
            if parent is not None:
                (lefts if parent[1] else rights)[parent[0]] = i
            depth = max(depth, d)
            if "leaf_value" in node or "split_feature" not in node:
                feats.append(0), thrs.append(0.0), lefts.append(i), rights.append(i)
                vals.append(float(node.get("leaf_value", 0.0))), miss.append(True)
                continue
            if node.get("decision_type", "<=") != "<=":
                raise ValueError("only numerical '<=' splits are supported by the NumPy evaluator")
            feats.append(int(node["split_feature"])), thrs.append(float(node["threshold"]))
            lefts.append(-1), rights.append(-1), vals.append(0.0)
            miss.append(bool(node.get("default_left", True)))
            stack.append((node["right_child"], (i, False), d + 1))
            stack.append((node["left_child"], (i, True), d + 1))
    return TreeEnsemble(
        feature=np.array(feats, dtype=np.intp), threshold=np.array(thrs),
        left=np.array(lefts, dtype=np.intp), right=np.array(rights, dtype=np.intp),
        value=np.array(vals), missing_left=np.array(miss, dtype=bool),
        roots=np.array(roots, dtype=np.intp), base=0.0, depth=depth,
    )


def train(corpus: Corpus, indices: Sequence[int], *, threshold: float = THRESHOLD,
          params: dict | None = None) -> BlockModel:
    """Odds, features and trees from some pages of the corpus, as a BlockModel."""
    odds = learn_odds(corpus, indices)
    X, y, w, _ = matrix(corpus, indices, odds)
    trees = export_trees(fit_trees(X, y, w, params))
    meta = {
        "feature_names": feature_names(),
        "threshold": threshold,
        "training": {"data": CITATION, "pages": len(indices), "blocks": int(len(y)),
                     "params": {**PARAMS, **(params or {})},
                     "command": "scrapy-declutter train-model ../shared/data/wcxb-dev"},
    }
    return BlockModel(trees=trees, odds=odds, meta=meta)


def domain_folds(samples: Sequence[Sample], k: int) -> list[int]:
    """Fold number of each sample; (dataset, domain) groups are dealt to folds largest first.

    Grouping by dataset too keeps the sets apart when several are pooled; on
    one dataset the folds are those of the domains alone.
    """
    def group(s: Sample) -> tuple[str, str]:
        return s.dataset, s.domain or s.file_id

    sizes: dict[tuple[str, str], int] = defaultdict(int)
    for s in samples:
        sizes[group(s)] += 1
    load = [0] * k
    fold_of: dict[tuple[str, str], int] = {}
    for key in sorted(sizes, key=lambda d: (-sizes[d], d)):
        f = min(range(k), key=lambda j: (load[j], j))
        fold_of[key] = f
        load[f] += sizes[key]
    return [fold_of[group(s)] for s in samples]


def out_of_fold(corpus: Corpus, k: int = 5, *, params: dict | None = None,
                progress: bool = True) -> list[np.ndarray]:
    """P(content) of every block from the model trained on the other folds' domains."""
    folds = domain_folds(corpus.samples, k)
    probs: list[np.ndarray] = [np.zeros(0)] * len(corpus)
    for f in range(k):
        train_idx = [i for i, g in enumerate(folds) if g != f]
        test_idx = [i for i, g in enumerate(folds) if g == f]
        model = train(corpus, train_idx, params=params)
        X, _, _, spans = matrix(corpus, test_idx, model.odds)
        p = model.trees.probabilities(X)
        for i, (a, b) in zip(test_idx, spans):
            probs[i] = p[a:b]
        if progress:
            print(f"  fold {f + 1}/{k}: trained on {len(train_idx)} pages", file=sys.stderr)
    return probs


def page_scores(corpus: Corpus, probs: Sequence[np.ndarray], threshold: float = THRESHOLD,
                **decide_params) -> list[float]:
    """Word F1 of each page when its blocks are kept by ``decide`` on the given probabilities."""
    scores = []
    for page, p, sample in zip(corpus.pages, probs, corpus.samples):
        keep = decide(page.blocks, p, threshold=threshold, **decide_params)
        text = "\n".join(b.text for b, k in zip(page.blocks, keep) if k)
        scores.append(word_prf(text, sample.main_content).f1)
    return scores


def by_type(corpus: Corpus, scores: Sequence[float]) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for s, f1 in zip(corpus.samples, scores):
        groups[s.page_type].append(f1)
    return {t: statistics.fmean(v) for t, v in sorted(groups.items())}
