"""The two segmentation walks compared: the compiled one must make the reference's pages.

``segment.segment`` takes the compiled walk (``scrapy_declutter._segment``)
when it is built; ``segment.python_segment`` is the reference. A page passes
when, built both ways through ``Page.from_tree``, it has the same blocks
(every field of every Block, structure, links and images included), the
same learned features (the model's block matrix and page-type
probabilities) and, after the default extractor, the same labels, scores and
deciding steps. The reference side runs inside ``reference_walk()``, so the
learned step's compiled parts (tree scan, ancestor chains) run their
pure-Python references there. ``scrapy-declutter check-walk`` runs this over a dataset;
the tests run it over the bundled pages.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields
from typing import Sequence

import numpy as np
from lxml import etree

from ..blocks import Block
from ..page import Page, decode_html, parse_html
from ..registry import build_extractor
from ..segment import COMPILED, python_segment, reference_walk
from ..steps.learned.model import cached_model
from ..steps.learned.step import score_page
from .dataset import Sample

#: Every field of a Block, in declaration order: all of them must agree.
BLOCK_FIELDS = tuple(f.name for f in fields(Block))


def block_difference(compiled: Sequence[Block], reference: Sequence[Block]) -> str:
    """The first difference between two block lists, "" when they are identical."""
    if len(compiled) != len(reference):
        return f"{len(compiled)} blocks, the reference has {len(reference)}"
    for a, b in zip(compiled, reference):
        for name in BLOCK_FIELDS:
            mine, theirs = getattr(a, name), getattr(b, name)
            if mine != theirs or type(mine) is not type(theirs):
                return f"block {b.index} ({b.xpath}): {name} is {mine!r}, the reference has {theirs!r}"
    return ""


def page_difference(root: etree._Element, url: str | None = None, extractor: str = "default") -> str:
    """How the page built on the compiled walk differs from the reference's; "" when it does not.

    Compares the blocks, then the learned model's features, then the labels
    ``extractor`` gives, stopping at the first difference.
    """
    compiled = Page.from_tree(root, url)
    with reference_walk():
        reference = Page.from_tree(root, url)
    found = block_difference(compiled.blocks, reference.blocks)
    if found or not reference.blocks:
        return found
    model = cached_model()
    mine = score_page(model, compiled)
    with reference_walk():  # the learned step's compiled parts on their references too
        theirs = score_page(model, reference)
    for name in ("features", "types", "content"):
        a, b = getattr(mine, name), getattr(theirs, name)
        if (a is None) != (b is None) or (a is not None and not np.array_equal(a, b)):
            return f"learned {name} differ"
    chain = build_extractor(extractor)
    chain.run(compiled)
    with reference_walk():
        chain.run(reference)
    for a, b in zip(compiled.blocks, reference.blocks):
        if (a.label, a.score, a.step, a.trail) != (b.label, b.score, b.step, b.trail):
            return f"block {b.index}: {extractor} says {a.label} ({a.score}), the reference {b.label} ({b.score})"
    return ""


@dataclass
class WalkCheck:
    """A dataset's pages compared, with each walk's segmentation time."""

    pages: int = 0
    #: (page id, first difference) of every page that differs.
    differing: list[tuple[str, str]] = field(default_factory=list)
    #: Pages the compiled walk left to the reference (trees an HTML parse never makes).
    left_to_reference: int = 0
    compiled_seconds: float = 0.0
    reference_seconds: float = 0.0

    def summary(self) -> str:
        same = self.pages - len(self.differing)
        lines = [f"identical on {same}/{self.pages} pages (blocks, learned features, labels)"]
        lines += [f"  {page}: {why}" for page, why in self.differing[:20]]
        if self.left_to_reference:
            lines.append(f"{self.left_to_reference} pages left to the reference walk by the compiled one")
        if self.pages and self.compiled_seconds:
            c, r = (1000 * s / self.pages for s in (self.compiled_seconds, self.reference_seconds))
            lines.append(f"segmentation: compiled {c:.2f} ms/page, pure Python {r:.2f} ms/page "
                         f"({r / c:.1f}x)")
        return "\n".join(lines)


def check_walks(samples: Sequence[Sample], extractor: str = "default") -> WalkCheck:
    """Compare the two walks on every sample (CPU time of each walk alone, from the same trees)."""
    if COMPILED is None:
        raise RuntimeError("the compiled walk is not built: nothing to compare "
                           "(reinstall with a C compiler: pip install -e .)")
    check = WalkCheck()
    clock = time.process_time
    for sample in samples:
        root = parse_html(decode_html(sample.html_bytes()) or "<html/>")
        check.pages += 1
        t0 = clock()
        made = COMPILED.segment(root)
        t1 = clock()
        python_segment(root)
        t2 = clock()
        check.compiled_seconds += t1 - t0
        check.reference_seconds += t2 - t1
        check.left_to_reference += made is None
        why = page_difference(root, sample.url, extractor)
        if why:
            check.differing.append((sample.file_id, why))
    return check
