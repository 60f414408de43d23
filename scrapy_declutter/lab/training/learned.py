"""Training the learned step's models: corpus, token odds, page types, blocks, comments, CV.

The corpus is every page of the training sets segmented once, its blocks
labelled on the default's line (``labels``); the page's tree is dropped
after the tree-wide facts the features need are taken (the content
containers and the page-type vector). Token odds and the page-type
classifier are learned from the training pages only, so cross-validation
folds never see the id/class vocabulary or the URLs of the sites they score.

``train`` fits, in order:

1. the page-type classifier (one ensemble per type, softmax), on the pages
   whose set gives a WCXB type; sets of one type only (articles) count
   ``SINGLE_TYPE_WEIGHT`` each, so they add articles without drowning the
   other six types;
2. the block classifier, whose page-type columns hold, for every training
   page, the probabilities of a page-type classifier that did not see the
   page's domain (``INNER_FOLDS``-fold), as the shipped model will meet them;
3. the second stage, on the same rows plus the ``context`` columns of
   first-stage probabilities that, for every training page, come from a
   block classifier that did not see the page's domain (``INNER_FOLDS``-fold,
   token odds learned without it too), as the shipped model will meet them;
4. the comment model, on the blocks in comment boxes of the pages whose
   reference keeps comment text.

Blocks are weighted by their share of the page's labelled words, so every
page counts the same and a long paragraph counts more than a one-word menu
entry, as in the page-level word F1 the benchmarks score.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np

from ...blocks import class_tokens
from ...steps.learned.containers import container_paths
from ...steps.learned.context import context_features, context_names
from ...steps.learned.decide import decide
from ...steps.learned.features import feature_names, page_features
from ...steps.learned.model import BlockModel, softmax_probabilities
from ...steps.learned.pagetype import PAGE_TYPES, PageFacts, page_vector, vector_names
from ...steps.learned.step import PageScores, score_page
from ..alignment import page_of
from ..dataset import Sample
from ..metric import word_prf
from .boosting import COMMENT_PARAMS, PARAMS, TYPE_PARAMS, export_trees, fit_trees
from .labels import BlockLabels, block_labels, block_weights

#: Cuts per favour and page type: a page is cut at the sum of these weighted by its
#: page-type probabilities. Chosen on out-of-fold probabilities of the six sets (5 folds
#: grouped by registrable domain across the sets): for the pages classified as each type,
#: the cut that maximises the mean over the sets of their mean F1 (article 0.45,
#: collection 0.2, documentation 0.25, forum 0.4, listing 0.55, product 0.45, service 0.4),
#: then every cut 0.05 higher: precision first, as the default promises. That step cost
#: at most 0.002 mean F1 on any set and bought 0.004 to 0.008 precision (WCXB-dev 0.854 ->
#: 0.862, Readability 0.938 -> 0.942, trafilatura-eval without-rate 0.899 -> 0.908).
CUTS = {
    "balanced": {"article": 0.5, "collection": 0.25, "documentation": 0.3, "forum": 0.45,
                 "listing": 0.6, "product": 0.5, "service": 0.45},
}
#: How far "precision" raises and "recall" lowers every cut of "balanced".
CUT_STEP = 0.1
#: The favour a model applies when the step is given none.
DEFAULT_FAVOR = "balanced"
#: Id/class tokens seen on fewer training domains than this get no odds (site-specific names).
MIN_TOKEN_DOMAINS = 3
#: At most this many tokens keep odds (the most frequent), bounding the model file.
MAX_TOKENS = 4000
#: Prior strength of the token odds, in page-weight units.
ODDS_PRIOR = 2.0
#: Weight of a block with no words (it cannot change the score, but shapes its neighbours).
EMPTY_WEIGHT = 0.01
#: Weight of a page of a set whose pages all have one type, in the page-type classifier.
SINGLE_TYPE_WEIGHT = 0.3
#: Folds of the inner cross-validation that gives training pages their page-type columns.
INNER_FOLDS = 5
CITATION = (
    "WCXB, the Web Content eXtraction Benchmark, by Murrough Foley (2026), dev split, CC-BY-4.0; "
    "L3S-GN1 (Kohlschütter, Fankhauser, Nejdl, WSDM 2010), research use; Mozilla Readability's "
    "test pages, Apache-2.0; CleanEval 2007 (Baroni et al., LREC 2008), research use; "
    "CleanPortalEval (Endrédy and Novák, Polibits 48, 2013), research use; trafilatura's "
    "evaluation set (snippets), Apache-2.0 repository, pages for research use"
)
COMMAND = ("scrapy-declutter train-model ../shared/data/wcxb-dev ../shared/data/l3s-gn1 "
           "../shared/data/readability-tests ../shared/data/cleaneval ../shared/data/sites-dev "
           "../shared/data/trafilatura-eval --cv 0")


def all_cuts() -> dict[str, dict[str, float]]:
    """``CUTS`` with the precision and recall settings derived from the balanced one."""
    balanced = CUTS["balanced"]
    return {
        "precision": {t: round(min(c + CUT_STEP, 0.95), 3) for t, c in balanced.items()},
        "balanced": dict(balanced),
        "recall": {t: round(max(c - CUT_STEP, 0.05), 3) for t, c in balanced.items()},
    }


@dataclass
class Corpus:
    """Segmented, labelled pages ready for feature extraction (trees dropped)."""

    pages: list = field(default_factory=list)
    containers: list[dict] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    facts: list[PageFacts] = field(default_factory=list)
    labels: list[BlockLabels] = field(default_factory=list)
    weights: list[np.ndarray] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.pages)

    @classmethod
    def build(cls, samples: Iterable[Sample], *, progress: bool = False) -> "Corpus":
        corpus = cls()
        for i, sample in enumerate(samples):
            page = page_of(sample)
            facts = PageFacts.of(page)
            corpus.containers.append(container_paths(page))
            corpus.facts.append(facts)
            corpus.vectors.append(page_vector(page, facts))
            page.root = None  # the blocks carry everything else the features read
            labels = block_labels(page.blocks, sample.main_content, title=page.title,
                                  page_type=sample.page_type, present=sample.with_snippets,
                                  absent=sample.without_snippets)
            corpus.pages.append(page)
            corpus.labels.append(labels)
            corpus.weights.append(block_weights(page.blocks, labels.content, EMPTY_WEIGHT))
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
        page, labels, weights = corpus.pages[i], corpus.labels[i].content, corpus.weights[i]
        domain = corpus.samples[i].domain
        cache: dict[int, frozenset] = {}
        for b, label, w in zip(page.blocks, labels, weights):
            if label < 0:
                continue
            toks: set[str] = set()
            for a in b.ancestors:
                got = cache.get(id(a))
                if got is None:
                    got = cache[id(a)] = frozenset(class_tokens(a.id, a.classes))
                toks |= got
            target = content if label else boiler
            for t in toks:
                target[t] += w
                domains[t].add(domain)
            if label:
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


def fit_page_types(corpus: Corpus, indices: Sequence[int]) -> tuple:
    """One ensemble per page type, from the pages of ``indices`` whose set gives their type."""
    typed = [i for i in indices if corpus.samples[i].page_type in PAGE_TYPES]
    kinds: dict[str, set[str]] = defaultdict(set)
    for i in typed:
        kinds[corpus.samples[i].dataset].add(corpus.samples[i].page_type)
    present = sorted({corpus.samples[i].page_type for i in typed})
    if len(present) < 2:
        return ()
    V = np.array([corpus.vectors[i] for i in typed])
    y = np.array([PAGE_TYPES.index(corpus.samples[i].page_type) for i in typed])
    w = np.array([SINGLE_TYPE_WEIGHT if len(kinds[corpus.samples[i].dataset]) == 1 else 1.0
                  for i in typed])
    # Every type needs a column even when absent from these pages: one page each, no weight.
    missing = [k for k in range(len(PAGE_TYPES)) if k not in set(y)]
    if missing:
        V = np.vstack([V, np.zeros((len(missing), V.shape[1]))])
        y = np.concatenate([y, missing])
        w = np.concatenate([w, np.full(len(missing), 1e-6)])
    clf = fit_trees(V, y, w, TYPE_PARAMS, subsample=True)
    return tuple(export_trees(clf, k) for k in range(len(PAGE_TYPES)))


def inner_type_probabilities(corpus: Corpus, indices: Sequence[int]) -> dict[int, np.ndarray]:
    """P(page type) of each training page from a classifier that did not see its domain."""
    folds = domain_folds([corpus.samples[i] for i in indices], INNER_FOLDS)
    out: dict[int, np.ndarray] = {}
    for f in range(INNER_FOLDS):
        fit_on = [i for i, g in zip(indices, folds) if g != f]
        scored = [i for i, g in zip(indices, folds) if g == f]
        ensembles = fit_page_types(corpus, fit_on)
        for i in scored:
            out[i] = softmax_probabilities(ensembles, corpus.vectors[i]) if ensembles else None
    return out


def matrix(corpus: Corpus, indices: Sequence[int], odds: dict[str, float],
           types: Mapping[int, np.ndarray | None]):
    """Stacked features, labels and weights of some pages, with each page's row range."""
    xs, ys, cs, ws, spans = [], [], [], [], []
    start = 0
    for i in indices:
        X = page_features(corpus.pages[i], odds, corpus.containers[i], page_type=types.get(i))
        xs.append(X)
        ys.append(corpus.labels[i].content)
        cs.append(corpus.labels[i].comment)
        ws.append(corpus.weights[i])
        spans.append((start, start + len(X)))
        start += len(X)
    width = len(feature_names())
    X = np.vstack(xs) if xs else np.zeros((0, width), dtype=np.float32)
    y = np.concatenate(ys) if ys else np.zeros(0, dtype=np.int8)
    c = np.concatenate(cs) if cs else np.zeros(0, dtype=np.int8)
    w = np.concatenate(ws) if ws else np.zeros(0)
    return X, y, c, w, spans


def fit_blocks(corpus: Corpus, indices: Sequence[int], odds: dict[str, float],
               types: Mapping[int, np.ndarray | None], params: dict | None = None):
    """The first-stage block classifier of some pages, with their features, labels and weights."""
    X, y, c, w, _ = matrix(corpus, indices, odds, types)
    rows = w > 0
    return export_trees(fit_trees(X[rows], y[rows], w[rows], params)), (X, y, c, w)


def inner_block_probabilities(corpus: Corpus, indices: Sequence[int],
                              types: Mapping[int, np.ndarray | None],
                              params: dict | None = None) -> dict[int, np.ndarray]:
    """First-stage P(content) of each training page's blocks from a classifier (and token
    odds) that did not see its domain: what the second stage is trained to read."""
    folds = domain_folds([corpus.samples[i] for i in indices], INNER_FOLDS)
    out: dict[int, np.ndarray] = {}
    for f in range(INNER_FOLDS):
        fit_on = [i for i, g in zip(indices, folds) if g != f]
        odds = learn_odds(corpus, fit_on)
        trees, _ = fit_blocks(corpus, fit_on, odds, types, params)
        for i, g in zip(indices, folds):
            if g == f:
                X = page_features(corpus.pages[i], odds, corpus.containers[i],
                                  page_type=types.get(i))
                out[i] = trees.probabilities(X)
    return out


def train(corpus: Corpus, indices: Sequence[int], *, params: dict | None = None,
          second_stage: bool = True, type_stage: bool = True,
          progress: bool = False) -> BlockModel:
    """The page-type (unless not ``type_stage``), block (one or two stages) and comment models
    from some pages of the corpus, as a BlockModel."""
    indices = list(indices)
    page_types = fit_page_types(corpus, indices) if type_stage else ()
    types = inner_type_probabilities(corpus, indices) if page_types else {}
    odds = learn_odds(corpus, indices)
    trees, (X, y, c, w) = fit_blocks(corpus, indices, odds, types, params)
    rows = w > 0
    second = None
    if second_stage:
        first = inner_block_probabilities(corpus, indices, types, params)
        ctx = np.vstack([context_features(corpus.pages[i].blocks, first[i]) for i in indices])
        X2 = np.hstack([X[rows], ctx[rows]])
        del ctx
        second = export_trees(fit_trees(X2, y[rows], w[rows], params))
        del X2
    boxed = c >= 0
    comments = None
    if boxed.sum() and len(set(c[boxed].tolist())) == 2:
        comments = export_trees(fit_trees(X[boxed], c[boxed], np.ones(int(boxed.sum())),
                                          COMMENT_PARAMS))
    if progress:
        print(f"  trained on {len(indices)} pages, {int(rows.sum())} blocks, "
              f"{int(boxed.sum())} in comment boxes", file=sys.stderr)
    meta = {
        "feature_names": feature_names(),
        "type_vector_names": vector_names(),
        "cuts": all_cuts(),
        "favor": DEFAULT_FAVOR,
        "training": {"data": CITATION, "pages": len(indices), "blocks": int(rows.sum()),
                     "params": {**PARAMS, **(params or {})}, "command": COMMAND},
    }
    if second is not None:
        meta["context_names"] = context_names()
    return BlockModel(trees=trees, odds=odds, meta=meta, page_types=page_types,
                      comments=comments, second=second)


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
                progress: bool = True) -> list[PageScores]:
    """Each page's scores from the models trained on the other folds' domains."""
    folds = domain_folds(corpus.samples, k)
    scores: list[PageScores] = [None] * len(corpus)  # type: ignore[list-item]
    for f in range(k):
        train_idx = [i for i, g in enumerate(folds) if g != f]
        model = train(corpus, train_idx, params=params)
        for i, g in enumerate(folds):
            if g == f:
                scores[i] = score_page(model, corpus.pages[i], facts=corpus.facts[i],
                                       containers=corpus.containers[i])
        if progress:
            print(f"  fold {f + 1}/{k}: trained on {len(train_idx)} pages", file=sys.stderr)
    return scores


def page_scores(corpus: Corpus, scores: Sequence[PageScores],
                favor: str = DEFAULT_FAVOR) -> list[float]:
    """Word F1 of each page with its blocks kept at its cut for ``favor``."""
    cuts = all_cuts()[favor]
    out = []
    for page, s, sample in zip(corpus.pages, scores, corpus.samples):
        if not sample.has_text:
            out.append(float("nan"))
            continue
        types = s.types if s.types is not None else np.eye(len(PAGE_TYPES))[0]
        threshold = float(sum(p * cuts[t] for p, t in zip(types, PAGE_TYPES)))
        keep = decide(page.blocks, s.content, threshold=threshold)
        text = "\n".join(b.text for b, kept in zip(page.blocks, keep) if kept)
        out.append(word_prf(text, sample.main_content or "").f1)
    return out


def by_type(corpus: Corpus, scores: Sequence[float]) -> dict[str, float]:
    """Mean F1 per dataset and page type (pages with a reference text)."""
    groups: dict[str, list[float]] = defaultdict(list)
    for s, f1 in zip(corpus.samples, scores):
        if s.has_text:
            groups[f"{s.dataset}/{s.page_type}"].append(f1)
    return {t: statistics.fmean(v) for t, v in sorted(groups.items())}
