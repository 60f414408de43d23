"""The optional dependencies of the lab, and the one message a command gives when one is missing.

The lab's tools need packages the plugin does not (peers for comparison,
scikit-learn to train, Hypothesis to fuzz). They come with the package's
extras; a command checks for what it needs before doing any work, so a
missing package is one line naming the extra to install, not a traceback or
a run where every page silently failed.
"""

from __future__ import annotations

from importlib import import_module

from ..errors import MissingExtraError

#: Importable module -> (distribution to install, the scrapy-declutter extra that brings it).
EXTRAS: dict[str, tuple[str, str]] = {
    "trafilatura": ("trafilatura", "bench"),
    "readability": ("readability-lxml", "bench"),
    "boilerpy3": ("boilerpy3", "bench"),
    "tqdm": ("tqdm", "bench"),
    "sklearn": ("scikit-learn", "train"),
    "lightgbm": ("lightgbm", "train"),
    "hypothesis": ("hypothesis", "test"),
}


def require(command: str, module: str) -> None:
    """Import ``module`` or stop ``command`` with the install line of its extra."""
    try:
        import_module(module)
    except ImportError as exc:
        package, extra = EXTRAS.get(module, (module, ""))
        fix = f"pip install 'scrapy-declutter[{extra}]'" if extra else f"pip install {package}"
        raise MissingExtraError(
            f"scrapy-declutter {command} needs {package}: {fix} ({exc})") from exc
