"""Rule steps measured against each other on the labels of one classifier run a page.

A rule that runs after the learned step (the default's rule steps: ``datatable``,
``teasers``, ``itemlist``, ``thread``, the product rules, ``title``) changes a few pages
of a data set; ``evaluate`` would run the model once per chain to see them. Here the
model runs once a page, and each
chain's rule steps run on a copy of its labels: the same scores as
``evaluate -e learned+RULES`` (without ``embedded``, which only app shells
need), one model run a page.

Run: ``python -m scrapy_declutter.lab.rules DATASET... [--json-out FILE]``;
the chains are ``CHAINS`` and the first is the one the others are compared with.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Sequence

from ..formats.text import join_blocks
from ..page import Page
from ..registry import DEFAULT, build_extractor
from .dataset import Sample, load_dataset
from .metric import snippet_hits, word_prf

#: The rule steps of the default, after ``learned``, and its product rules among them.
_RULES = DEFAULT.split("+")[1:]
_PRODUCT_RULES = ("overlays", "specs", "rails", "productdata")


def _chain(*left_out: str, title: str = "title") -> str:
    """The default's rule steps without ``left_out``, with ``title`` for its title step."""
    return "+".join(title if step == "title" else step for step in _RULES if step not in left_out)


#: name -> the rule steps after ``learned``; the first is the baseline of the table.
CHAINS: dict[str, str] = {
    "default": _chain(),
    "title-in-text": _chain(title="title(in_text=true)"),
    **{f"no-{step}": _chain(step) for step in ("datatable", "teasers", "itemlist", "thread")},
    "no-product-rules": _chain(*_PRODUCT_RULES),
    "title-only": "title",
}
#: An F1 change smaller than this is no change.
MARGIN = 0.01


@dataclass
class PageScores:
    """Each chain's score of one page: (P, R, F1), or (with found, with, without absent,
    without) on a snippet-only set."""

    dataset: str
    page: str
    scores: dict[str, tuple[float, ...]] = field(default_factory=dict)


def score_chains(samples: Sequence[Sample], chains: dict[str, str]) -> list[PageScores]:
    """Every page scored under every chain (rule steps only, run after ``learned``), the
    learned step run once a page."""
    learned = build_extractor("learned")
    rules = {name: build_extractor(spec).steps for name, spec in chains.items()}
    out = []
    for sample in samples:
        page = Page.from_html(sample.html_bytes(), sample.url)
        learned.run(page)
        saved = [(b.label, b.score, b.step, b.trail) for b in page.blocks]
        row = PageScores(sample.dataset, sample.file_id)
        for name, steps in rules.items():
            for b, (label, score, step, trail) in zip(page.blocks, saved):
                b.label, b.score, b.step, b.trail = label, score, step, trail
            for step in steps:
                step.process(page)
            text = join_blocks([b for b in page.blocks if b.is_content])
            if sample.has_text:
                s = word_prf(text, sample.main_content or "")
                row.scores[name] = (s.precision, s.recall, s.f1)
            else:
                row.scores[name] = (*snippet_hits(text, sample.with_snippets, present=True),
                                    *snippet_hits(text, sample.without_snippets, present=False))
        out.append(row)
    return out


def table(rows: Sequence[PageScores], chains: Sequence[str]) -> str:
    """Mean P/R/F1 (or snippet rates) per chain, and the pages each is better and worse on
    than the first chain by ``MARGIN`` of F1."""
    base = chains[0]
    lines = []
    if all(len(r.scores[base]) == 3 for r in rows):
        lines.append(f"{'chain':<16} {'P':>7} {'R':>7} {'F1':>7} {'better':>7} {'worse':>6}")
        for name in chains:
            p, r, f = (sum(row.scores[name][i] for row in rows) / len(rows) for i in range(3))
            better = sum(row.scores[name][2] > row.scores[base][2] + MARGIN for row in rows)
            worse = sum(row.scores[name][2] < row.scores[base][2] - MARGIN for row in rows)
            lines.append(f"{name:<16} {p:7.4f} {r:7.4f} {f:7.4f} {better:7d} {worse:6d}")
    else:
        lines.append(f"{'chain':<16} {'with':>7} {'without':>7}")
        for name in chains:
            sums = [sum(row.scores[name][i] for row in rows) for i in range(4)]
            lines.append(f"{name:<16} {sums[0] / max(1, sums[1]):7.4f} {sums[2] / max(1, sums[3]):7.4f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scrapy_declutter.lab.rules",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+", metavar="DATASET_DIR")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages of each")
    parser.add_argument("--json-out", metavar="FILE", help="also write every page's scores")
    args = parser.parse_args(argv)
    chains = dict(CHAINS)
    sink = open(args.json_out, "w", encoding="utf-8") if args.json_out else None
    try:
        for folder in args.datasets:
            samples = load_dataset(folder, args.limit)
            rows = score_chains(samples, chains)
            print(f"== {samples[0].dataset} ({len(rows)} pages)\n{table(rows, list(chains))}")
            for row in rows if sink else ():
                sink.write(json.dumps({"dataset": row.dataset, "page": row.page,
                                       "scores": row.scores}) + "\n")
    finally:
        if sink:
            sink.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
