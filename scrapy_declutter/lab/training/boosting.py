"""Fitting boosted trees at train time and copying them into the NumPy evaluator's arrays.

LightGBM when installed (far faster with sample weights: scikit-learn 1.9
bins weighted data with one weighted percentile per bin edge), else
scikit-learn's HistGradientBoosting; both export to the same
``steps.learned.trees.TreeEnsemble``, so the runtime never imports either.
A multiclass booster exports one ensemble per class (its scores go through
a softmax at run time).
"""

from __future__ import annotations

import numpy as np

from ...steps.learned.trees import TreeEnsemble

#: Boosting parameters of the block classifier (CV-checked; see README "Default (learned)").
#: Chosen by 5-fold CV by domain on a quarter of WCXB (mean word F1 at the best threshold):
#: 80 trees of depth 6 0.826, these 120 of depth 7 0.832, 150 of depth 8 with learning rate
#: 0.1 about the same as 80/6 at twice the NumPy evaluation time.
PARAMS = dict(max_iter=120, learning_rate=0.12, max_leaf_nodes=31, max_depth=7,
              min_samples_leaf=40, l2_regularization=1.0, early_stopping=False)
#: The page-type classifier: a few hundred pages, so small trees, strongly subsampled.
TYPE_PARAMS = dict(max_iter=150, learning_rate=0.05, max_leaf_nodes=15, max_depth=5,
                   min_samples_leaf=10, l2_regularization=1.0, early_stopping=False)
#: The comment classifier: a few thousand blocks in comment boxes.
COMMENT_PARAMS = dict(max_iter=40, learning_rate=0.1, max_leaf_nodes=15, max_depth=5,
                      min_samples_leaf=20, l2_regularization=1.0, early_stopping=False)
#: LightGBM's row and column subsampling for the page-type classifier (no effect with sklearn).
_TYPE_SUBSAMPLING = dict(subsample=0.8, subsample_freq=1, colsample_bytree=0.7)


def fit_trees(X: np.ndarray, y: np.ndarray, w: np.ndarray, params: dict | None = None,
              *, subsample: bool = False):
    """Fit a booster on rows ``X`` with integer labels ``y`` (two classes or more)."""
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
        **(_TYPE_SUBSAMPLING if subsample else {}),
    )
    clf.fit(X.astype(np.float64), y.astype(int), sample_weight=w)
    return clf


def export_trees(clf, klass: int | None = None) -> TreeEnsemble:
    """Copy a fitted booster into node arrays: the binary one, or class ``klass`` of a multiclass one."""
    if hasattr(clf, "booster_"):
        dump = clf.booster_.dump_model()
        trees = dump["tree_info"]
        if klass is not None:
            per = dump["num_tree_per_iteration"]
            trees = trees[klass::per]
        return _export_lightgbm(trees)
    return _export_sklearn(clf, klass or 0)


def _export_sklearn(clf, klass: int) -> TreeEnsemble:
    feats, thrs, lefts, rights, vals, miss, roots = [], [], [], [], [], [], []
    offset, depth = 0, 0
    for predictors in clf._predictors:
        nodes = predictors[klass].nodes
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
    base = float(np.ravel(clf._baseline_prediction)[klass])
    return TreeEnsemble(
        feature=np.concatenate(feats).astype(np.intp), threshold=np.concatenate(thrs),
        left=np.concatenate(lefts).astype(np.intp), right=np.concatenate(rights).astype(np.intp),
        value=np.concatenate(vals), missing_left=np.concatenate(miss),
        roots=np.array(roots, dtype=np.intp), base=base, depth=depth,
    )


def _export_lightgbm(tree_info: list[dict]) -> TreeEnsemble:
    feats, thrs, lefts, rights, vals, miss, roots = [], [], [], [], [], [], []
    depth = 0
    for info in tree_info:
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
