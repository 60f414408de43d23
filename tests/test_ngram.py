"""The character n-gram LMs and the keep/discard classifier (seed 000's LingPipe models)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scrapy_declutter.errors import ModelFormatError
from scrapy_declutter.sitelearning import ngramlm
from scrapy_declutter.sitelearning.ngram import DISCARD, KEEP, NGramClassifier, NGramLM
from scrapy_declutter.sitelearning.ngramlm import PRUNE_TO, Scorer, counted, merged


def _probs(lm: NGramLM, text: str) -> np.ndarray:
    return Scorer([lm.table()], [lm.lambda_factor], lm.alphabet_size, lm.order).probs(text)[0]


def prob(lm: NGramLM, char: str, context: str) -> float:
    """P(char | context); only the last ``order - 1`` context characters matter."""
    return float(_probs(lm, (context[-(lm.order - 1):] if lm.order > 1 else "") + char)[-1])


def log2_prob(lm: NGramLM, text: str) -> float:
    return float(np.log2(_probs(lm, text)).sum())


def test_probabilities_sum_to_one_over_the_alphabet():
    lm = NGramLM(order=3, alphabet_size=5)
    lm.train("abracadabra")
    alphabet = "abcdr"
    for context in ["", "a", "ab", "br", "ra", "zz", "cad"]:
        total = sum(prob(lm, c, context) for c in alphabet)
        assert total == pytest.approx(1.0, abs=1e-12), context


def test_witten_bell_on_a_hand_computed_case():
    # "abab", order 2, lambda factor 1, alphabet of 4:
    #   empty context: C=4, E=2 (a, b) -> λ = 4/6; P(a) = 4/6·2/4 + 2/6·1/4 = 5/12
    #   context "a": C=2 (b twice), E=1 -> λ = 2/3; P(b|a) = 2/3·1 + 1/3·5/12 = 29/36
    #   context "b": C=1 (a once), E=1 -> λ = 1/2; P(a|b) = 1/2·1 + 1/2·5/12 = 17/24
    #   context "b" for c: P(c|b) = 1/2·0 + 1/2·(2/6·1/4) = 1/24
    lm = NGramLM(order=2, alphabet_size=4, lambda_factor=1)
    lm.train("abab")
    assert prob(lm, "a", "") == pytest.approx(5 / 12)
    assert prob(lm, "b", "a") == pytest.approx(29 / 36)
    assert prob(lm, "a", "b") == pytest.approx(17 / 24)
    assert prob(lm, "c", "b") == pytest.approx(1 / 24)
    # the process LM: log2 P("ab") = log2 P(a) + log2 P(b|a)
    assert log2_prob(lm, "ab") == pytest.approx(np.log2(5 / 12) + np.log2(29 / 36))


def test_default_lambda_factor_is_the_order_as_in_lingpipe():
    lm = NGramLM(order=6)
    assert lm.lambda_factor == 6.0


def test_unseen_context_backs_off_to_shorter_ones():
    lm = NGramLM(order=4, alphabet_size=10)
    lm.train("hello world")
    assert prob(lm, "o", "qqq") == pytest.approx(prob(lm, "o", ""))


def test_incremental_training_equals_training_at_once():
    a, b = NGramLM(order=4), NGramLM(order=4)
    a.train("the cat sat")
    a.train("on the mat")
    b.train("on the mat")
    b.train("the cat sat")
    for text in ["the mat", "a cat", "xyz"]:
        assert log2_prob(a, text) == pytest.approx(log2_prob(b, text))


def test_merge_equals_training_one_model_on_both():
    one, a, b = NGramLM(order=5), NGramLM(order=5), NGramLM(order=5)
    for t in ["Privacy policy", "Terms of use"]:
        one.train(t)
    a.train("Privacy policy")
    b.train("Terms of use")
    a.merge(b)
    for text in ["Privacy terms", "policy of use"]:
        assert log2_prob(a, text) == pytest.approx(log2_prob(one, text))


def test_size_is_bounded_and_distributions_stay_normalised():
    lm = NGramLM(order=3, alphabet_size=30, max_entries=200)
    rng = np.random.default_rng(1)
    letters = "abcdefghijklmnopqrstuvwxyz   "
    for _ in range(50):
        lm.train("".join(rng.choice(list(letters), 100)))
    assert len(lm) <= 200
    total = sum(prob(lm, c, "ab") for c in letters[:26] + " " + "123")
    assert total == pytest.approx(1.0)


def _trained() -> NGramClassifier:
    clf = NGramClassifier()
    for i in range(5):
        clf.train(KEEP, f"The committee met on day {i} and discussed the budget for the new library.")
        clf.train(DISCARD, "Home | About us | Contact | Privacy policy | Sign in")
    return clf


def test_classifier_picks_the_class_with_the_higher_joint_probability():
    clf = _trained()
    keep = clf.classify("The committee discussed the library budget again.")
    discard = clf.classify("About us | Privacy policy")
    assert keep.category == KEEP and keep.log_odds > 0 and keep.p_keep > 0.5
    assert discard.category == DISCARD and discard.log_odds < 0 and discard.p_keep < 0.5


def test_classifier_stores_as_a_json_header_and_arrays_and_round_trips():
    clf = _trained()
    data = json.loads(json.dumps(clf.header()))
    again = NGramClassifier.from_header(data, clf.arrays())
    assert again.examples == clf.examples
    for text in ["the budget", "Sign in"]:
        assert again.classify(text).log_odds == pytest.approx(clf.classify(text).log_odds)


def test_classifier_merge_adds_examples_and_counts():
    a, b = _trained(), _trained()
    a.merge(b)
    assert a.examples == {KEEP: 10, DISCARD: 10}
    assert len(a.lms[KEEP]) == len(b.lms[KEEP])


@pytest.mark.parametrize("mutate", [
    lambda d, a: d.update(version=99),
    lambda d, a: d.update(version="1"),
    lambda d, a: a.update(keep_keys=a["keep_keys"][::-1]),
    lambda d, a: a.update(keep_counts=a["keep_counts"][:1]),
    lambda d, a: a.pop("discard_keys"),
    lambda d, a: d.pop("examples"),
])
def test_bad_or_newer_data_is_refused(mutate):
    clf = _trained()
    data, arrays = clf.header(), clf.arrays()
    mutate(data, arrays)
    with pytest.raises(ModelFormatError):
        NGramClassifier.from_header(data, arrays)


def test_batched_training_equals_training_text_by_text():
    examples = [(KEEP, "the cat sat"), (DISCARD, "Home | Login"), (KEEP, "on the mat"),
                (DISCARD, "Sign in"), (KEEP, "\ud800 lone surrogate")]
    one, batch = NGramClassifier(order=4), NGramClassifier(order=4)
    for category, text in examples:
        one.train(category, text)
    batch.train_many(examples)
    assert batch.examples == one.examples
    for category in (KEEP, DISCARD):
        assert len(batch.lms[category]) == len(one.lms[category])
    for text in ["the mat", "Login", "sat on"]:
        assert batch.classify(text).log_odds == pytest.approx(one.classify(text).log_odds)


def _reference_fold(keys, counts, batches, max_entries):
    """The tables as a fold built them before ``counts``: np.unique over everything, lexsort to prune."""
    allk = np.concatenate([keys, *batches])
    allc = np.concatenate([counts, np.ones(sum(len(b) for b in batches), dtype=np.int64)])
    uniq, inverse = np.unique(allk, return_inverse=True)
    summed = np.bincount(inverse, weights=allc, minlength=len(uniq)).astype(np.int64)
    if len(uniq) > max_entries:
        idx = np.lexsort((uniq, -summed))[: int(max_entries * PRUNE_TO)]
        idx.sort()
        uniq, summed = uniq[idx], summed[idx]
    return uniq, summed


def test_folds_keep_the_same_counts_and_prune_the_same_ngrams_as_sorting_everything():
    # Few distinct keys, many repeats: pruning cuts through long runs of tied counts.
    rng = np.random.default_rng(7)
    lm = NGramLM(order=3, max_entries=400)
    keys, counts = np.empty(0, np.uint64), np.empty(0, np.int64)
    pending = []
    for step in range(60):
        batch = rng.integers(0, 900 if step % 2 else 2**63, size=int(rng.integers(1, 300)),
                             dtype=np.uint64)
        lm.add_counted(*counted(batch))
        pending.append(batch)
        if sum(map(len, pending)) >= 400:  # FOLD_AT * max_entries: the LM folded
            keys, counts = _reference_fold(keys, counts, pending, 400)
            pending = []
    keys, counts = _reference_fold(keys, counts, pending, 400)
    lm._fold()
    assert np.array_equal(lm._keys, keys) and np.array_equal(lm._counts, counts)
    assert len(keys) > 250  # pruned at least once, and the table was not emptied


def test_merge_of_count_tables_equals_unique_over_both():
    rng = np.random.default_rng(3)
    a = counted(rng.integers(0, 50, 200, dtype=np.uint64))
    b = counted(rng.integers(25, 90, 120, dtype=np.uint64))
    keys, summed = merged(*a, *b)
    ref_keys, ref_counts = counted(np.concatenate([np.repeat(*a), np.repeat(*b)]))
    assert np.array_equal(keys, ref_keys) and np.array_equal(summed, ref_counts)
    assert np.array_equal(merged(*a, *counted(np.empty(0, np.uint64)))[0], a[0])


def test_stale_scoring_tables_are_let_go_when_training_makes_them_stale():
    from scrapy_declutter.sitelearning.ngram import NGramClassifier

    clf = NGramClassifier()
    clf.train_many([("keep", "the long article text about gardens " * 40),
                    ("discard", "home about contact login " * 40)])
    clf.classify("an article about gardens")
    tables = clf._scoring
    assert tables is not None
    clf.train("keep", "tiny")  # far under the stale share: the tables stay and are used
    clf.classify("an article about gardens")
    assert clf._scoring is tables
    clf.train_many([("keep", "fresh words never seen before in this model " * 60)])
    assert clf._scoring is None  # rebuilt on next use, not held meanwhile
    again = NGramClassifier()
    again.train_many([("keep", "the long article text about gardens " * 40),
                      ("discard", "home about contact login " * 40)])
    again.train("keep", "tiny")
    again.train_many([("keep", "fresh words never seen before in this model " * 60)])
    assert clf.classify("an article about gardens") == again.classify("an article about gardens")


def test_text_counts_count_each_position_once_per_order_it_reaches():
    # one text of n characters has min(i, order - 1) + 1 keys at position i
    assert ngramlm.texts_counted(["abcdefgh"], 6)[1].sum() == 1 + 2 + 3 + 4 + 5 + 6 * 3
    # each text on its own: no context reaches into the text before
    assert ngramlm.texts_counted(["ab", "cd"], 3)[1].sum() == (1 + 2) * 2
    assert [len(a) for a in ngramlm.texts_counted([], 6)] == [0, 0]
