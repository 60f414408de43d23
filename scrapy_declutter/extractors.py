"""Extractors: named chains of steps (Boilerpipe's filter-pipeline idea).

The registry maps a name to the import path of a factory that returns the
chain's steps, so importing the package loads no algorithm it does not use.
Names compose with ``+``: ``boilerpipe-article+tree`` runs the Boilerpipe
article chain and then the tree filter. A part may carry keyword parameters,
``tree(depth=1)``; values are read as JSON (numbers, booleans, strings).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import import_module
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .errors import UnknownExtractorError

if TYPE_CHECKING:
    from .page import Page
    from .steps import Step

#: name -> "module:factory"; the factory takes keyword parameters and returns a list of Steps.
REGISTRY: dict[str, str] = {
    "density": "scrapy_declutter.steps.density:density_chain",
    "ngram": "scrapy_declutter.steps.ngram:ngram_chain",
    "justext": "scrapy_declutter.steps.justext:justext_chain",
    "boilerpipe-default": "scrapy_declutter.steps.boilerpipe.chains:default_chain",
    "boilerpipe-article": "scrapy_declutter.steps.boilerpipe.chains:article_chain",
    "tree": "scrapy_declutter.steps.tree:tree_chain",
    "dragnet": "scrapy_declutter.steps.dragnet.step:dragnet_chain",
    "learned": "scrapy_declutter.steps.learned.step:learned_chain",
    "title": "scrapy_declutter.steps.title:title_chain",
}
#: What ``default`` means: the learned classifier, then the page's title heading kept.
DEFAULT = "learned+title"

_PART = re.compile(r"^\s*([\w.-]+)\s*(?:\((.*)\))?\s*$")


class Extractor:
    """A named, immutable chain of steps; safe to share between pages and threads."""

    def __init__(self, name: str, steps: Sequence["Step"]) -> None:
        self.name = name
        self.steps = tuple(steps)

    def run(self, page: "Page") -> "Page":
        """Apply every step in order to the page's blocks."""
        for step in self.steps:
            step.process(page)
        return page

    def __repr__(self) -> str:
        return f"Extractor({self.name!r}, {list(self.steps)!r})"


def extractors() -> list[str]:
    """The names accepted by ``extract(..., extractor=NAME)``; parts join with ``+``."""
    return sorted({*REGISTRY, "default"})


def _parse_params(raw: str | None, name: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in (raw or "").split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise UnknownExtractorError(f"parameter {item!r} of {name!r} must be key=value")
        try:
            params[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[key.strip()] = value.strip()
    return params


def _factory(name: str) -> Callable[..., list["Step"]]:
    target = REGISTRY.get(name)
    if target is None:
        raise UnknownExtractorError(
            f"unknown extractor or step {name!r}; valid names: {', '.join(extractors())}"
        )
    module, _, attr = target.partition(":")
    return getattr(import_module(module), attr)


@lru_cache(maxsize=64)
def build_extractor(spec: str = "default") -> Extractor:
    """Build (once per spec) the chain a name like ``boilerpipe-article+tree(depth=1)`` denotes."""
    steps: list["Step"] = []
    for part in spec.split("+"):
        match = _PART.match(part)
        if not match:
            raise UnknownExtractorError(f"cannot read extractor part {part!r} in {spec!r}")
        name, raw = match.groups()
        if name == "default" and not raw:
            steps.extend(build_extractor(DEFAULT).steps)
        else:
            steps.extend(_factory(name)(**_parse_params(raw, name)))
    return Extractor(spec, steps)
