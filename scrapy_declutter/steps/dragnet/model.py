"""The Dragnet classifier and its model file (seed 001).

The classifier is a logistic regression, as in the Dragnet paper, so
inference is one standardised dot product per block in NumPy.

The model is plain JSON (``models/dragnet.json``): a format version, the
feature names, standardisation, weights, and the learned token odds table,
with the training data cited and the command that rebuilds it
(``scrapy-declutter train-dragnet``). It is validated field by field on
load, so a corrupted or foreign file fails with a message that says what is
wrong instead of a shape error deep inside NumPy. The training code
(``scrapy_declutter.lab.training``) is never imported here.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ModelError
from ...modelfile import read_model_file
from .features import FEATURE_NAMES, page_features

if TYPE_CHECKING:
    from ...page import Page

#: What the ``format`` field of a Dragnet model file must say.
MODEL_FORMAT = "scrapy-declutter/dragnet"
#: The model file layout this code reads; bump it when the features change.
MODEL_VERSION = 1
#: The model shipped inside the package.
DEFAULT_MODEL = "dragnet.json"
#: The command that rebuilds the shipped model.
REBUILD = "scrapy-declutter train-dragnet"


@dataclass(frozen=True)
class DragnetModel:
    """A trained Dragnet classifier: standardisation, weights and the token odds table."""

    feature_names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    token_odds: Mapping[str, float]
    meta: Mapping[str, Any]

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """P(content) of each row of a feature matrix in ``feature_names`` order."""
        if features.shape[0] == 0:
            return np.zeros(0)
        z = ((features - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))

    def predict_page(self, page: Page) -> np.ndarray:
        """P(content) of every block of a page, in block order."""
        return self.probabilities(page_features(page.blocks, self.token_odds))

    def to_dict(self) -> dict[str, Any]:
        """The model in the JSON layout ``from_dict`` reads."""
        return {
            "format": MODEL_FORMAT,
            "version": MODEL_VERSION,
            **dict(self.meta),
            "feature_names": list(self.feature_names),
            "mean": [round(float(v), 6) for v in self.mean],
            "scale": [round(float(v), 6) for v in self.scale],
            "weights": [round(float(v), 6) for v in self.weights],
            "bias": round(float(self.bias), 6),
            "token_odds": {t: round(float(v), 4) for t, v in sorted(self.token_odds.items())},
        }

    @classmethod
    def from_dict(cls, data: Any, source: str = "model") -> DragnetModel:
        """Validate a parsed model file (format, version, types, sizes) and build the model."""
        if not isinstance(data, dict):
            raise ModelError(f"{source}: a Dragnet model is a JSON object, not {type(data).__name__}")
        if data.get("format") != MODEL_FORMAT:
            raise ModelError(f"{source}: format is {data.get('format')!r}, expected {MODEL_FORMAT!r}")
        if data.get("version") != MODEL_VERSION:
            raise ModelError(
                f"{source}: model version {data.get('version')!r}, this code reads version "
                f"{MODEL_VERSION}; rebuild it with `{REBUILD}`"
            )
        names = data.get("feature_names")
        if names != list(FEATURE_NAMES):
            raise ModelError(f"{source}: feature_names {names!r} differ from this code's {list(FEATURE_NAMES)}")
        n = len(FEATURE_NAMES)
        mean, scale, weights = (_vector(data, key, n, source) for key in ("mean", "scale", "weights"))
        if np.any(scale <= 0):
            raise ModelError(f"{source}: every scale must be positive")
        bias = data.get("bias")
        if not _is_number(bias):
            raise ModelError(f"{source}: bias must be a finite number, not {bias!r}")
        odds = data.get("token_odds")
        if not isinstance(odds, dict) or not all(
            isinstance(k, str) and _is_number(v) for k, v in odds.items()
        ):
            raise ModelError(f"{source}: token_odds must map strings to finite numbers")
        skip = {"format", "version", "feature_names", "mean", "scale", "weights", "bias", "token_odds"}
        meta = {k: v for k, v in data.items() if k not in skip}
        return cls(tuple(names), mean, scale, weights, float(bias), dict(odds), meta)

    @classmethod
    def load(cls, path: str | Path | None = None) -> DragnetModel:
        """Read a model file (``.json`` or ``.json.gz``); None reads the one shipped in the package."""
        raw, source = read_model_file(path, DEFAULT_MODEL, rebuild=REBUILD)
        try:
            if raw[:2] == b"\x1f\x8b":
                raw = gzip.decompress(raw)
            data = json.loads(raw.decode("utf-8"))
        except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
            raise ModelError(f"{source} is not a JSON Dragnet model: {exc}") from exc
        return cls.from_dict(data, source)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _vector(data: Mapping[str, Any], key: str, n: int, source: str) -> np.ndarray:
    v = data.get(key)
    if not isinstance(v, list) or len(v) != n or not all(_is_number(x) for x in v):
        raise ModelError(f"{source}: {key} must be a list of {n} finite numbers")
    return np.asarray(v, dtype=float)
