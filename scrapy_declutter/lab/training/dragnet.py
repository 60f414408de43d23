"""Training the Dragnet classifier: token odds, logistic regression, grouped cross-validation.

Labels come from ``alignment.align_blocks`` (block text aligned with the
WCXB ``main_content``). Each page is parsed and featurised once
(``PageData``); the id/class token odds are then learned from the training
pages only, per fold, so the cross-validated figures never see a scored
site's class names.

Block weights follow the metric: it averages per-page word scores, so a
block weighs its share of its page's words and every page weighs the same.
The logistic regression is fitted by Newton's method with an L2 penalty on
standardised features, in NumPy: deterministic, and no scikit-learn needed to
rebuild the shipped model.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from ...steps.dragnet.features import (
    CETR_FEATURES,
    FEATURE_NAMES,
    SHALLOW_FEATURES,
    TOKEN_FEATURES,
    base_features,
    page_tokens,
)
from ...steps.dragnet.model import DragnetModel
from ..alignment import align_blocks, page_of
from ..dataset import Sample
from ..metric import Score, word_prf

#: Pseudo-count (in pages' worth of words) that pulls rare tokens' odds towards 0.
TOKEN_PRIOR = 1.0
#: A token must occur on this many domains to get odds: single-site names do not generalise.
MIN_DOMAINS = 3
#: Size cap of the shipped token table (the tokens with the largest |odds| stay).
MAX_TOKENS = 3000
#: L2 penalty of the logistic regression, on standardised features, per unit of page weight.
L2 = 1.0
#: Newton iterations at most.
MAX_NEWTON = 50
FOLDS = 5
SEED = 13

CITATION = {
    "training_data": "WCXB development split (1,358 pages), the Web Content eXtraction "
    "Benchmark by Murrough Foley (2026)",
    "license": "CC-BY-4.0",
    "reproduce": "scrapy-declutter train-dragnet ../shared/data/wcxb-dev",
}


class Vocabulary:
    """Token → integer id, grown as pages are featurised, so token sums become NumPy bincounts."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def tokens(self) -> list[str]:
        return list(self.ids)

    def index(self, token_sets: Sequence[tuple[frozenset[str], frozenset[str]]]):
        """(block row, token id, near flag) of every token occurrence, as three arrays."""
        rows: list[int] = []
        ids: list[int] = []
        near: list[bool] = []
        for i, (all_tokens, near_tokens) in enumerate(token_sets):
            for t in sorted(all_tokens):
                rows.append(i)
                ids.append(self.ids.setdefault(t, len(self.ids)))
                near.append(t in near_tokens)
        return np.array(rows, dtype=np.int64), np.array(ids, dtype=np.int64), np.array(near, dtype=bool)


@dataclass
class PageData:
    """One page, featurised once: base features, token occurrences, aligned labels, weights."""

    sample: Sample
    texts: list[str]
    base: np.ndarray
    rows: np.ndarray
    token_ids: np.ndarray
    near: np.ndarray
    labels: np.ndarray
    weights: np.ndarray

    @property
    def domain(self) -> str:
        return self.sample.domain

    def token_features(self, odds_vec: np.ndarray) -> np.ndarray:
        """``features.token_features`` with the odds as a vector indexed by token id."""
        n = len(self.texts)
        vals = odds_vec[self.token_ids]
        pos = np.bincount(self.rows, weights=np.maximum(vals, 0.0), minlength=n)
        neg = np.bincount(self.rows, weights=np.minimum(vals, 0.0), minlength=n)
        near = np.bincount(self.rows, weights=np.where(self.near, vals, 0.0), minlength=n)
        return np.column_stack([pos, neg, near]).reshape(n, 3)


def featurise(sample: Sample, vocab: Vocabulary) -> PageData:
    """Parse, align and featurise one dataset page."""
    page = page_of(sample)
    blocks = page.blocks
    words = np.array([b.words for b in blocks], dtype=float)
    total = words.sum()
    rows, ids, near = vocab.index(page_tokens(blocks))
    return PageData(
        sample=sample,
        texts=[b.text for b in blocks],
        base=base_features(blocks),
        rows=rows,
        token_ids=ids,
        near=near,
        labels=np.array(align_blocks(blocks, sample.main_content), dtype=bool),
        weights=words / total if total else words,
    )


def learn_token_odds(
    pages: Sequence[PageData],
    vocab: Vocabulary,
    *,
    prior: float = TOKEN_PRIOR,
    min_domains: int = MIN_DOMAINS,
    max_tokens: int = MAX_TOKENS,
) -> dict[str, float]:
    """Per token: log-odds of content vs boilerplate words carrying it, minus the overall log-odds.

    Counts are page-normalised word shares (a page adds at most 1 in total),
    smoothed with ``prior`` pages' worth on each side, so a token seen on a
    handful of blocks stays near 0 and a big site cannot dominate. Tokens
    found on fewer than ``min_domains`` domains get no odds; of the rest the
    ``max_tokens`` with the largest |odds| are kept.
    """
    v = len(vocab)
    content = np.zeros(v)
    boiler = np.zeros(v)
    per_domain: dict[str, list[np.ndarray]] = defaultdict(list)
    total_c = total_b = 0.0
    for pd in pages:
        w = pd.weights[pd.rows]
        is_c = pd.labels[pd.rows]
        content += np.bincount(pd.token_ids, weights=np.where(is_c, w, 0.0), minlength=v)
        boiler += np.bincount(pd.token_ids, weights=np.where(is_c, 0.0, w), minlength=v)
        per_domain[pd.domain].append(pd.token_ids)
        total_c += float(pd.weights[pd.labels].sum())
        total_b += float(pd.weights[~pd.labels].sum())
    domains = np.zeros(v, dtype=np.int64)
    for ids in per_domain.values():
        domains[np.unique(np.concatenate(ids))] += 1
    odds = np.log((content + prior) / (boiler + prior)) - math.log((total_c + prior) / (total_b + prior))
    names = vocab.tokens()
    eligible = [i for i in np.flatnonzero(domains >= min_domains)]
    eligible.sort(key=lambda i: (-abs(odds[i]), names[i]))
    return {names[i]: float(odds[i]) for i in eligible[:max_tokens]}


def odds_vector(odds: dict[str, float], vocab: Vocabulary) -> np.ndarray:
    """The odds table as a vector over the vocabulary (0 for tokens without odds)."""
    vec = np.zeros(len(vocab))
    for t, value in odds.items():
        i = vocab.ids.get(t)
        if i is not None:
            vec[i] = value
    return vec


def design(
    pages: Sequence[PageData], odds_vec: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stack features (``FEATURE_NAMES`` order), labels and weights of many pages."""
    if not pages:
        return np.zeros((0, len(FEATURE_NAMES))), np.zeros(0), np.zeros(0)
    x = np.vstack([np.hstack([pd.base, pd.token_features(odds_vec)]) for pd in pages])
    y = np.concatenate([pd.labels for pd in pages]).astype(float)
    w = np.concatenate([pd.weights for pd in pages])
    return x, y, w


def fit_logistic(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, *, l2: float = L2, max_iter: int = MAX_NEWTON
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Weighted L2 logistic regression by Newton's method: (mean, scale, weights, bias)."""
    mean = np.average(x, axis=0, weights=w) if w.sum() > 0 else x.mean(axis=0)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=w)) if w.sum() > 0 else x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = np.hstack([(x - mean) / scale, np.ones((x.shape[0], 1))])
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -50, 50)))
        grad = z.T @ (w * (p - y)) + penalty * beta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(z.shape[1])
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return mean, scale, beta[:-1], float(beta[-1])


def train(
    pages: Sequence[PageData],
    vocab: Vocabulary,
    *,
    l2: float = L2,
    min_domains: int = MIN_DOMAINS,
    max_tokens: int = MAX_TOKENS,
    features: Collection[str] | None = None,
    meta: dict | None = None,
) -> DragnetModel:
    """Learn token odds, then the classifier, from labelled pages.

    ``features`` limits the classifier to some feature families for the
    ablation report: the other columns are zeroed, so their weights come out
    0 and the model still has the full layout.
    """
    odds = learn_token_odds(pages, vocab, min_domains=min_domains, max_tokens=max_tokens)
    x, y, w = design(pages, odds_vector(odds, vocab))
    if features is not None:
        unknown = set(features) - set(FEATURE_NAMES)
        if unknown:
            raise ValueError(f"unknown Dragnet features {sorted(unknown)}")
        x = x * np.array([name in features for name in FEATURE_NAMES], dtype=float)
    mean, scale, weights, bias = fit_logistic(x, y, w, l2=l2)
    return DragnetModel(FEATURE_NAMES, mean, scale, weights, bias, odds, dict(meta or {}))


def domain_folds(pages: Sequence[PageData], folds: int = FOLDS, seed: int = SEED) -> list[int]:
    """Fold of each page; all pages of a domain share a fold, fold sizes balanced by pages.

    Domains are shuffled with a fixed seed, then each goes (largest first) to
    the fold with the fewest pages so far.
    """
    sizes: dict[str, int] = defaultdict(int)
    for pd in pages:
        sizes[pd.domain] += 1
    names = sorted(sizes)
    random.Random(seed).shuffle(names)
    names.sort(key=lambda d: -sizes[d])  # stable: ties keep the shuffled order
    load = [0] * folds
    fold_of: dict[str, int] = {}
    for d in names:
        f = min(range(folds), key=lambda i: (load[i], i))
        fold_of[d] = f
        load[f] += sizes[d]
    return [fold_of[pd.domain] for pd in pages]


def predicted_text(
    model: DragnetModel, pd: PageData, odds_vec: np.ndarray, threshold: float = 0.5
) -> str:
    """The text the ``dragnet`` step would keep on a featurised page."""
    x = np.hstack([pd.base, pd.token_features(odds_vec)])
    probs = model.probabilities(x)
    return "\n\n".join(t for t, p in zip(pd.texts, probs) if p >= threshold)


def cross_validate(
    pages: Sequence[PageData],
    vocab: Vocabulary,
    *,
    folds: int = FOLDS,
    progress: Callable[[int], None] | None = None,
    **train_params,
) -> list[Score]:
    """Out-of-fold word P/R/F1 of every page, folds grouped by domain."""
    assignment = domain_folds(pages, folds)
    scores: list[Score | None] = [None] * len(pages)
    for f in range(folds):
        train_pages = [pd for pd, a in zip(pages, assignment) if a != f]
        model = train(train_pages, vocab, **train_params)
        odds_vec = odds_vector(dict(model.token_odds), vocab)
        for i, (pd, a) in enumerate(zip(pages, assignment)):
            if a == f:
                scores[i] = word_prf(predicted_text(model, pd, odds_vec), pd.sample.main_content)
        if progress:
            progress(f)
    return [s for s in scores if s is not None]


def build_corpus(
    samples: Sequence[Sample], *, progress: Callable[[int], None] | None = None
) -> tuple[list[PageData], Vocabulary]:
    """Featurise every sample once (the slow part: parsing and alignment)."""
    vocab = Vocabulary()
    pages = []
    for i, sample in enumerate(samples):
        pages.append(featurise(sample, vocab))
        if progress:
            progress(i)
    return pages, vocab


def mean_scores(scores: Sequence[Score]) -> Score:
    """Mean per-page precision, recall and F1 (the WCXB summary)."""
    n = len(scores) or 1
    return Score(
        sum(s.precision for s in scores) / n,
        sum(s.recall for s in scores) / n,
        sum(s.f1 for s in scores) / n,
    )


def f1_by_type(pages: Sequence[PageData], scores: Sequence[Score]) -> dict[str, tuple[int, float]]:
    """Page type → (pages, mean F1), in the order the types first appear sorted by name."""
    groups: dict[str, list[float]] = defaultdict(list)
    for pd, s in zip(pages, scores):
        groups[pd.sample.page_type].append(s.f1)
    return {t: (len(v), sum(v) / len(v)) for t, v in sorted(groups.items())}


#: Feature families of the ablation report, as in the Dragnet paper's table.
ABLATIONS = {
    "shallow text": SHALLOW_FEATURES,
    "shallow text + id/class": SHALLOW_FEATURES + TOKEN_FEATURES,
    "shallow text + CETR": SHALLOW_FEATURES + CETR_FEATURES,
}
