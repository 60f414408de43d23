"""Order independence: does a page's text depend on the order its site's pages arrive in?

``python -m scrapy_declutter.lab.evaluation.orders DATASET [--orders 5]``
runs every site of a dataset (pages grouped by ``domain``, three or more a
site) through a fresh ``Declutter`` once per shuffled order and prints how
many pages got a different text in some order and the mean word F1 of each
order. A site learns as it goes, so its first pages get little help and the
text moves with the order. ``--recrawl`` checks the re-crawl instead: after
each shuffled first pass, the same pages again, in file order, with what the
whole site taught.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ...page import Page, decode_html
from ...sitelearning.declutter import Declutter
from ..dataset import Sample, iter_by_site, load_texts
from ..metric import word_prf

#: Sites with fewer pages have nothing to learn across pages.
MIN_PAGES = 3


@dataclass(frozen=True)
class OrderCheck:
    """Several orders: pages whose text moved, mean F1 per order."""

    pages: int
    differing: int
    f1: list[float]


def first_pass(samples: Sequence[Sample], order_seed: int, *,
               extractor: str = "default", recrawl: bool = False) -> dict[str, str]:
    """Each page's text (by file id) from one first pass, every site's pages shuffled by the
    seed; ``recrawl``: from a second pass over them in file order instead."""
    texts: dict[str, str] = {}
    for site, group in iter_by_site(list(samples)):
        if len(group) < MIN_PAGES or not site:
            continue
        order = list(group)
        random.Random(order_seed).shuffle(order)
        # The dataset's grouping, whatever the URLs say.
        with Declutter(extractor, store="memory:", site_key=lambda _url: site) as dec:
            for s in order:
                page = Page.from_html(decode_html(s.html_bytes()), s.url)
                texts[s.file_id] = dec.extract_page(page).text
            for s in group if recrawl else ():
                page = Page.from_html(decode_html(s.html_bytes()), s.url)
                texts[s.file_id] = dec.extract_page(page).text
    return texts


def recrawl_differences(samples: Sequence[Sample], *, orders: int = 5,
                        extractor: str = "default") -> list[str]:
    """The pages (file ids) whose re-crawl text differs after ``orders`` shuffled first passes."""
    runs = [first_pass(samples, seed, extractor=extractor, recrawl=True)
            for seed in range(orders)]
    return [p for p in sorted(runs[0]) if len({run[p] for run in runs}) > 1]


def check_orders(samples: Sequence[Sample], *, orders: int = 5,
                 extractor: str = "default") -> OrderCheck:
    """Run ``orders`` shuffled first passes and compare their texts."""
    runs = [first_pass(samples, seed, extractor=extractor) for seed in range(orders)]
    gold = {s.file_id: s.main_content or "" for s in samples}
    pages = sorted(runs[0])
    differing = sum(len({run[p] for run in runs}) > 1 for p in pages)
    f1 = [statistics.mean(word_prf(run[p], gold[p]).f1 for p in pages) if pages else 0.0
          for run in runs]
    return OrderCheck(len(pages), differing, f1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("--orders", type=int, default=5)
    parser.add_argument("-e", "--extractor", default="default")
    parser.add_argument("--recrawl", action="store_true",
                        help="compare the re-crawls after the shuffled first passes")
    args = parser.parse_args(argv)
    samples = load_texts(args.dataset)
    if args.recrawl:
        moved = recrawl_differences(samples, orders=args.orders, extractor=args.extractor)
        print(f"re-crawl: {len(moved)} pages differ across {args.orders} first-crawl orders"
              + (f": {' '.join(moved)}" if moved else ""))
        return 0
    check = check_orders(samples, orders=args.orders, extractor=args.extractor)
    print(f"first pass: {check.differing} of {check.pages} pages differ across {args.orders} "
          "orders; mean F1 per order " + " ".join(f"{f:.3f}" for f in check.f1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
