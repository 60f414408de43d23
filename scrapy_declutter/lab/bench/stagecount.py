"""Counting the stages of ``extract()`` apart, for ``bench-compiled --stages``.

``lab.bench.instructions`` run under callgrind by ``bench-compiled --stages``
with a ``group`` in its job calls ``route`` first. Callgrind counts C functions, not Python ones,
so each stage of one ``GROUPS`` entry is called through a C function of the
interpreter of its own (``VIA``: ``itertools.starmap``'s ``starmap_next``,
``filter``'s ``filter_next``...), and that function's inclusive count is the
stage's instructions. A group is one process, run twice (``warm_only``: what the
stages spend once, taken off); its stages may nest (an indented label is a part of
the one above it), as each has a C function of its own. With ``--site-learning``
the pages go through one ``Declutter`` and ``SITE_GROUP``, the site step's parts,
is counted too.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import itertools
import re
import subprocess
import sys
from pathlib import Path

_L = "scrapy_declutter.steps.learned."
#: (label, module, function): the stages counted in one process each.
GROUPS = (
    (("parse", "scrapy_declutter.page", "parse_utf8"),
     ("segmentation", "scrapy_declutter.segment", "segment"),
     ("tree facts", "scrapy_declutter.treefacts", "tree_facts"),
     ("language", "scrapy_declutter.language", "page_language"),
     ("stop words", "scrapy_declutter.language", "page_stopword_counts"),
     ("page-type vector", _L + "pagetype", "page_vector"),
     ("block features", _L + "features", "page_features"),
     ("context features", _L + "context", "context_features")),
    (("decisions", _L + "decide", "decide"),
     ("tree scan", _L + "pagetype", "tree_scan"),
     ("containers", _L + "containers", "container_paths"),
     ("Result", "scrapy_declutter.api", "result_of"),
     ("  text columns", _L + "features", "text_columns"),
     ("  chain columns", _L + "features", "chain_columns"),
     ("  region columns", _L + "features", "region_columns"),
     ("  block columns", _L + "features", "block_columns")),
    # The parts around those (a ``Class.method`` is routed on its class): what the first two
    # groups leave out, so the table adds up to extract()'s instructions.
    (("input checks (size, blank, binary)", "scrapy_declutter.page", "Page.refused"),
     ("UTF-8 check", "scrapy_declutter.page", "decodes_as_utf8"),
     ("page build (from its tree)", "scrapy_declutter.page", "Page.from_tree"),
     ("chain of steps", "scrapy_declutter.registry", "Extractor.run"),
     ("  learned step", _L + "step", "LearnedClassifier.process"),
     ("    scores (before decisions)", _L + "step", "score_page"),
     ("      page-type probabilities", _L + "model", "BlockModel.type_probabilities"),
     ("    labels written", _L + "columns", "set_labels")),
)
_S = "scrapy_declutter.sitelearning."
#: The site step's parts (a ``Class.method`` is routed on its class), each called once a page:
#: a ``VIA`` wrapper costs a few thousand instructions a call, too much for a part per block.
SITE_GROUP = (
    ("site step", _S + "step", "SiteStep.process"),
    ("  page keys", _S + "learner", "page_keys"),
    ("    content container", _S + "pagekeys", "containers"),
    ("  rules", _S + "learner", "SiteLearner.apply"),
    ("learning (both models)", _S + "learner", "SiteLearner.learn"),
)


def _through(next_of):
    """A wrapper calling ``f`` inside one C iterator step (``next_of(g)`` runs ``g()`` once)."""
    def wrap(f):
        def called(*args, **kwargs):
            out = []
            next_of(lambda *_: out.append(f(*args, **kwargs)))
            return out[0]
        return called
    return wrap


#: The C function of the interpreter each position of a group is called through, with how.
VIA = (
    ("starmap_next", _through(lambda g: next(itertools.starmap(g, [()])))),
    ("filter_next", _through(lambda g: next(filter(g, [0]), None))),
    ("takewhile_next", _through(lambda g: next(itertools.takewhile(g, [0]), None))),
    ("dropwhile_next", _through(lambda g: next(itertools.dropwhile(g, [0]), None))),
    ("filterfalse_next", _through(lambda g: next(itertools.filterfalse(g, [0]), None))),
    ("functools_reduce", _through(lambda g: functools.reduce(g, [0], None))),
    ("accumulate_next", _through(lambda g: list(itertools.accumulate([0, 0], g)))),
    ("groupby_next", _through(lambda g: next(itertools.groupby([0], key=g)))),
)


#: Compiled functions whose inclusive counts are stages of their own, counted in every group's
#: process (the first group's is taken): (label, a unique part of the function's name).
COMPILED = (
    ("  block trees (float32 walk)", "leaf_values_f32"),
    ("  page-type trees (float64 walk)", "leaf_values_f64"),
    ("freeing trees (xmlFreeDoc)", "xmlFreeDoc"),
)


def inclusive_counts(out: Path) -> dict[str, int]:
    """Each function's inclusive instructions in a callgrind file, by the name
    ``callgrind_annotate`` gives it (``file:function``; the object file dropped)."""
    shown = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
                           capture_output=True, text=True, check=True).stdout
    counts: dict[str, int] = {}
    for m in re.finditer(r"^\s*([\d,]+) \([^)]*\)\s+(\S+?)(?: \[[^]]*\])?$", shown, re.MULTILINE):
        name = m.group(2)
        if "'" not in name:  # a recursion level of a function counted already
            counts[name] = counts.get(name, 0) + int(m.group(1).replace(",", ""))
    return counts


def stage_table(found: list[tuple[int, dict[str, int]]], pages: int,
                groups: tuple = GROUPS, what: str = "extract()") -> str:
    """The table ``bench-compiled --stages`` prints from its runs (per group of ``groups``: warm
    only, then over the pages; each (total, inclusive counts)): M instructions a page of each
    stage and its share of ``what``'s (group 0's total less its warm run)."""
    def per_page(warm: dict[str, int], full: dict[str, int], key: str) -> float:
        def of(counts: dict[str, int]) -> int:
            return sum(v for name, v in counts.items() if name.endswith(key) or f"{key} " in name)
        return (of(full) - of(warm)) / pages

    total = (found[1][0] - found[0][0]) / pages
    rows = []
    for group, stages in enumerate(groups):
        warm, full = found[2 * group][1], found[2 * group + 1][1]
        for (label, _, _), (via, _) in zip(stages, VIA):
            rows.append((label, per_page(warm, full, f":{via}")))
    for label, name in COMPILED:
        rows.append((label, per_page(found[0][1], found[1][1], name)))
    lines = [f"{'stage':<34} {'M/page':>8} {'share':>7}",
             f"{what + ', all of it':<34} {total / 1e6:>8.2f} {100.0:>6.1f}%"]
    lines += [f"{label:<34} {n / 1e6:>8.2f} {100 * n / total:>6.1f}%" for label, n in rows]
    return "\n".join(lines)


def route(group: int) -> None:
    """Send every caller of the group's stages (of ``GROUPS``, then ``SITE_GROUP``) through
    ``VIA``: a module-level name in every module that holds it, a method on its class."""
    for (_, module, name), (_, wrap) in zip((*GROUPS, SITE_GROUP)[group], VIA):
        owner, _, name = name.rpartition(".")
        if owner:
            cls = getattr(importlib.import_module(module), owner)
            static = isinstance(inspect.getattr_static(cls, name), staticmethod)
            wrapped = wrap(getattr(cls, name))
            setattr(cls, name, staticmethod(wrapped) if static else wrapped)
            continue
        stage = getattr(importlib.import_module(module), name)
        wrapped = wrap(stage)
        for loaded in list(sys.modules.values()):
            if (getattr(loaded, "__name__", "").startswith("scrapy_declutter")
                    and getattr(loaded, name, None) is stage):
                setattr(loaded, name, wrapped)
