"""The WCXB word-level metric, exactly as the dataset's README defines it.

Tokens are the maximal runs of word characters of the lower-cased text;
precision and recall use the multiset (Counter) intersection; an empty
reference scores 1.0 against an empty prediction and 0.0 otherwise.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    f1: float


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def word_prf(prediction: str, reference: str) -> Score:
    """Word precision, recall and F1 of one page."""
    pred, ref = Counter(tokens(prediction)), Counter(tokens(reference))
    if not ref:
        return Score(1.0, 1.0, 1.0) if not pred else Score(0.0, 0.0, 0.0)
    if not pred:
        return Score(0.0, 0.0, 0.0)
    common = sum((pred & ref).values())
    p = common / sum(pred.values())
    r = common / sum(ref.values())
    f = 2 * p * r / (p + r) if p + r else 0.0
    return Score(p, r, f)


def snippet_hits(prediction: str, snippets: Iterable[str], *, present: bool) -> tuple[int, int]:
    """(passed, total) snippet checks: ``present`` ones must be found, the others absent."""
    text = prediction.lower()
    items = [s for s in snippets if s]
    passed = sum((s.lower() in text) == present for s in items)
    return passed, len(items)
