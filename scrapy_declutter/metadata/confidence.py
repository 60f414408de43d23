"""How far to trust an extraction: one number in [0, 1] that predicts the page's word F1.

A few shallow boosted trees over the page's ``signals`` (how decided the
labels were, how much was kept and how scattered, how link-heavy the kept
text is and how much of it is sentences, the page type and the classifier's
certainty), fitted out of fold on the public sets to each page's F1 as a
soft target (each page a positive of weight F1 and a negative of weight
1 − F1, so the output is the expected F1) by
``scrapy-declutter train-confidence``. It is calibrated on the learned
extractor's labels: a page labelled by another extractor (no page type) gets
the plain ``margin_substance`` instead, which ranks pages but is no F1.

The model is a JSON file of names and tree arrays (``models/confidence.json``),
evaluated with the learned step's NumPy tree walk and read once per process;
docs/output.md has the table of what a value means.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..errors import ModelError
from ..modelfile import read_model_file
from ..steps.learned.trees import NODE_ARRAYS, TreeEnsemble
from .signals import SIGNAL_NAMES, margin_substance, page_signals

if TYPE_CHECKING:
    from ..blocks import Block

#: The model shipped with the package.
DEFAULT_MODEL = "confidence.json"
#: The command that rebuilds the shipped model.
REBUILD = "scrapy-declutter train-confidence"
#: Version of the file layout; a loader refuses any other.
FORMAT_VERSION = 2
#: The signal that is 0 when nothing was kept: then the confidence is 0.
_KEPT = SIGNAL_NAMES.index("log_content_words")


@dataclass(frozen=True, eq=False)
class ConfidenceModel:
    """Boosted trees over ``names`` (the signals) whose probability is the expected F1."""

    names: tuple[str, ...]
    trees: TreeEnsemble
    #: Data citation, the rebuilding command, the pages it was fitted on.
    meta: dict[str, Any] = field(default_factory=dict)

    def predict(self, signals: np.ndarray) -> np.ndarray:
        """The expected F1 of each row of ``signals`` (``SIGNAL_NAMES`` columns); 0 for a page
        that kept nothing."""
        rows = np.atleast_2d(np.asarray(signals, dtype=np.float64))
        return np.where(rows[:, _KEPT] > 0, self.trees.probabilities(rows), 0.0)

    def as_dict(self) -> dict[str, Any]:
        """The model in plain JSON types (the file's content)."""
        t = self.trees
        return {"format": FORMAT_VERSION, "names": list(self.names),
                "trees": {**{k: getattr(t, k).tolist() for k in (*NODE_ARRAYS, "roots")},
                          "base": t.base, "depth": t.depth},
                "meta": self.meta}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.as_dict()) + "\n", encoding="utf-8")


def load_confidence_model(path: str | Path | None = None) -> ConfidenceModel:
    """Read and validate a confidence model file (the shipped one when ``path`` is None)."""
    raw, source = read_model_file(path, DEFAULT_MODEL, rebuild=REBUILD)
    try:
        data = json.loads(raw.decode("utf-8"))
        version, names, t = data.get("format"), tuple(data["names"]), data["trees"]
        trees = TreeEnsemble(
            feature=np.asarray(t["feature"], dtype=np.intp),
            threshold=np.asarray(t["threshold"], dtype=np.float64),
            left=np.asarray(t["left"], dtype=np.intp), right=np.asarray(t["right"], dtype=np.intp),
            value=np.asarray(t["value"], dtype=np.float64),
            missing_left=np.asarray(t["missing_left"], dtype=bool),
            roots=np.asarray(t["roots"], dtype=np.intp), base=float(t["base"]),
            depth=int(t["depth"]))
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError,
            ModelError) as exc:
        raise ModelError(f"{source} is not a confidence model file: {exc}") from exc
    if version != FORMAT_VERSION:
        raise ModelError(f"{source} has confidence format {version!r}; this version reads "
                         f"{FORMAT_VERSION} (rebuild it with `{REBUILD}`)")
    if names != SIGNAL_NAMES or (len(trees.feature) and trees.feature.max() >= len(names)):
        raise ModelError(f"{source} was made for other signals than this version's "
                         f"(rebuild it with `{REBUILD}`)")
    return ConfidenceModel(names, trees, meta=dict(data.get("meta") or {}))


@lru_cache(maxsize=1)
def shipped_model() -> ConfidenceModel:
    """The shipped model, read on the first page that asks for a confidence."""
    return load_confidence_model()


def extraction_confidence(blocks: Sequence["Block"], page_type: str = "",
                          type_probability: float = 0.0,
                          model: ConfidenceModel | None = None) -> float:
    """The expected word F1 of a labelled page, in [0, 1], 4 decimals (0.0 when it kept no
    words).

    ``page_type`` and ``type_probability`` are the learned step's; without a
    page type the page is scored by ``margin_substance`` (module docstring).
    ``model``: the shipped one when None.
    """
    if not page_type:
        return round(margin_substance(blocks), 4)
    signals = page_signals(blocks, page_type, type_probability)
    return round(float((model or shipped_model()).predict(signals)[0]), 4)
