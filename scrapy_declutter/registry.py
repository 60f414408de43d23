"""The extractor registry: named chains of steps (Boilerpipe's filter-pipeline idea).

The registry maps a name to the import path of a factory, so importing the
package loads no algorithm it does not use. A factory is a function that
returns the chain's steps, or a Step class (a one-step part). Names compose
with ``+``: ``boilerpipe-article+tree`` runs the Boilerpipe article chain and
then the tree filter. A part may carry keyword parameters, ``tree(depth=1)``;
values are read as JSON (numbers, booleans, strings), and a name the
factory's signature does not have is refused with the ones it has.

(This module is ``registry``, not ``extractors``: the package exports the
function ``extractors()``, which would shadow a submodule of that name.)
"""

from __future__ import annotations

import inspect
import json
import re
from functools import lru_cache
from importlib import import_module
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .errors import UnknownExtractorError
from .steps import Step

if TYPE_CHECKING:
    from .page import Page

#: name -> "module:factory"; the factory takes keyword parameters and returns a list of
#: Steps, or is a Step class (a part of one step).
REGISTRY: dict[str, str] = {
    "density": "scrapy_declutter.steps.density:DensityFilter",
    "ngram": "scrapy_declutter.sitelearning.ngramstep:ngram_chain",
    "justext": "scrapy_declutter.steps.justext:JusText",
    "boilerpipe-default": "scrapy_declutter.steps.boilerpipe.chains:default_chain",
    "boilerpipe-article": "scrapy_declutter.steps.boilerpipe.chains:article_chain",
    "tree": "scrapy_declutter.steps.tree:tree_chain",
    "dragnet": "scrapy_declutter.steps.dragnet.step:dragnet_chain",
    "learned": "scrapy_declutter.steps.learned.step:LearnedClassifier",
    "title": "scrapy_declutter.steps.title:TitleHeading",
    "datatable": "scrapy_declutter.steps.datatable:DataTable",
    "teasers": "scrapy_declutter.steps.teasers:Teasers",
    "itemlist": "scrapy_declutter.steps.itemlist:MainList",
    "thread": "scrapy_declutter.steps.thread:CommentThread",
    "overlays": "scrapy_declutter.steps.overlays:Overlays",
    "specs": "scrapy_declutter.steps.specs:SpecLists",
    "rails": "scrapy_declutter.steps.rails:Rails",
    "productdata": "scrapy_declutter.steps.productdata:ProductData",
}
#: What ``default`` means: the learned classifier, then the rules that look at a page whole
#: (a data table and a listing's item list kept, teasers and a reply thread left out; on a
#: product page its overlay boxes and recommendation rails left out, its specification lists
#: kept whole, its structured description added when the text lacks it), then the headline rule.
DEFAULT = "learned+datatable+teasers+itemlist+thread+overlays+specs+rails+productdata+title"

_PART = re.compile(r"^\s*([\w.-]+)\s*(?:\((.*)\))?\s*$")


class Extractor:
    """A named, immutable chain of steps; safe to share between pages and threads."""

    def __init__(self, name: str, steps: Sequence[Step]) -> None:
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


def _factory(name: str) -> Callable[..., Any]:
    target = REGISTRY.get(name)
    if target is None:
        raise UnknownExtractorError(
            f"unknown extractor or step {name!r}; valid names: {', '.join(extractors())}"
        )
    module, _, attr = target.partition(":")
    return getattr(import_module(module), attr)


def _steps(name: str, params: dict[str, Any]) -> list[Step]:
    """The steps of one part, its parameters checked against the factory's signature first.

    Checked before the call, so a misspelt name (``tree(dept=1)``) is refused
    with the part's valid parameters rather than a ``TypeError`` from deep inside.
    """
    factory = _factory(name)
    signature = inspect.signature(factory)
    try:
        signature.bind(**params)
    except TypeError:
        valid = [p.name for p in signature.parameters.values()
                 if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        wrong = sorted(set(params) - set(valid)) or sorted(params)
        raise UnknownExtractorError(
            f"{name!r} has no parameter {', '.join(map(repr, wrong))}; "
            f"its parameters: {', '.join(valid) or 'none'}"
        ) from None
    if isinstance(factory, type) and issubclass(factory, Step):
        return [factory(**params)]
    return factory(**params)


def with_headline_rule(spec: str, in_text: bool) -> str:
    """``spec`` with its ``title`` step (the default's too) putting the headline in the text
    or not; unchanged when that is what it does already (``steps.title.IN_TEXT``). A
    ``title(in_text=...)`` the spec writes out keeps its own value."""
    from .steps.title import IN_TEXT

    if in_text == IN_TEXT:
        return spec
    rule = f"title(in_text={json.dumps(in_text)})"
    parts = []
    for part in spec.split("+"):
        match = _PART.match(part)
        name = match.group(1) if match else ""
        if name == "default":
            first, _, rest = DEFAULT.partition("+")
            raw = match.group(2)
            parts.append(f"{first}({raw})" if raw else first)
            parts.extend(rule if p == "title" else p for p in rest.split("+"))
        else:
            parts.append(rule if name == "title" and not match.group(2) else part)
    return "+".join(parts)


@lru_cache(maxsize=64)
def build_extractor(spec: str = "default") -> Extractor:
    """Build (once per spec) the chain a name like ``boilerpipe-article+tree(depth=1)`` denotes."""
    steps: list[Step] = []
    for part in spec.split("+"):
        match = _PART.match(part)
        if not match:
            raise UnknownExtractorError(f"cannot read extractor part {part!r} in {spec!r}")
        name, raw = match.groups()
        if name == "default" and not raw:
            steps.extend(build_extractor(DEFAULT).steps)
        elif name == "default":
            # ``default(favor="recall")``: the parameters go to the default's first part
            # (the learned classifier), the parts after it run as they are.
            first, _, rest = DEFAULT.partition("+")
            steps.extend(_steps(first, _parse_params(raw, first)))
            if rest:
                steps.extend(build_extractor(rest).steps)
        else:
            steps.extend(_steps(name, _parse_params(raw, name)))
    return Extractor(spec, steps)
