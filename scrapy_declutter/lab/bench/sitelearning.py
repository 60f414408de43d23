"""Benchmarks of site learning, as commands that print numbers (never timed tests).

``python -m scrapy_declutter.lab.bench.sitelearning ngram`` — CPU time to score a
1,000-character block with a trained classifier.

``python -m scrapy_declutter.lab.bench.sitelearning site --pages 1000 FILES...`` —
run one site's pages through ``Declutter`` (cycling the files under new URLs
when there are fewer than ``--pages``), then print the model's size (stored
bytes, in-memory arrays, fingerprint table) and the CPU ms/page site learning
adds to the same extractor without it.

``python -m scrapy_declutter.lab.bench.sitelearning rules DATASET`` — CPU ms/page
of the site step's rules alone (``SiteLearner.apply`` and ``learn``) over a
dataset's multi-page sites, pages in order, a fresh model per site, with the
template by text only, with the defaults, and with the shared-template vote:
interleaved runs, each rule set's fastest, so a loaded machine slows all alike.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from ...api import extract
from ...page import decode_html
from ...sitelearning.declutter import Declutter
from ...sitelearning.learner import SiteLearner
from ...sitelearning.ngram import DISCARD, KEEP, NGramClassifier

SAMPLE = ("The committee met on Tuesday to discuss the library budget, which has been cut "
          "three years running; residents asked whether opening hours would shrink again. ")


def bench_ngram(repeat: int = 2000) -> dict[str, float]:
    clf = NGramClassifier()
    for i in range(200):
        clf.train(KEEP, f"{SAMPLE} Item {i}: " + SAMPLE[i % 50:])
        clf.train(DISCARD, f"Home | News | Sport | Contact us | Privacy | Terms | Page {i}")
    block = (SAMPLE * 8)[:1000]
    clf.classify(block)  # compile the look-up tables once
    start = time.process_time()
    for _ in range(repeat):
        clf.classify(block)
    cpu = (time.process_time() - start) / repeat
    return {"ms_per_1000_char_block": 1000 * cpu, "ngrams_keep": len(clf.lms[KEEP]),
            "ngrams_discard": len(clf.lms[DISCARD])}


def _fingerprint_bytes(model) -> int:
    return sys.getsizeof(model.fingerprints) + sum(
        sys.getsizeof(k) + sys.getsizeof(v) for k, v in model.fingerprints.items()) + \
        sys.getsizeof(model.urls) + sum(sys.getsizeof(k) for k in model.urls)


def bench_site(paths: Sequence[str], pages: int, extractor: str = "default",
               site: str = "bench.example") -> dict[str, float]:
    texts = [decode_html(open(p, "rb").read()) for p in paths]
    dec = Declutter(extractor, store="memory:")
    learn_cpu = plain_cpu = 0.0
    for i in range(pages):
        text = texts[i % len(texts)]
        url = f"https://{site}/{i // len(texts)}/{i % len(texts)}.html"
        start = time.process_time()
        extract(text, url, extractor=extractor)
        plain_cpu += time.process_time() - start
        start = time.process_time()
        dec.extract(text, url)
        learn_cpu += time.process_time() - start
    dec.flush()
    model = dec.model(site)
    out = {
        "pages": pages,
        "model_pages": model.pages,  # after decay
        "fingerprints": len(model.fingerprints),
        "ngrams": sum(len(lm) for lm in model.classifier.lms.values()),
        "stored_bytes": len(model.to_bytes()),
        "classifier_memory_bytes": model.classifier.estimated_bytes(),
        "fingerprint_memory_bytes": _fingerprint_bytes(model),
        "plain_ms_per_page": 1000 * plain_cpu / pages,
        "site_learning_ms_per_page": 1000 * learn_cpu / pages,
    }
    out["added_ms_per_page"] = out["site_learning_ms_per_page"] - out["plain_ms_per_page"]
    dec.close()
    return out


#: The rule sets ``bench_rules`` compares: what each adds over the one before.
RULE_SETS = {
    "defaults": {},
    "defaults + n-gram training": {"train": True},
}


def bench_rules(folder: str, extractor: str = "default", runs: int = 5) -> dict[str, float]:
    """CPU ms/page of the generic chain once, then of each of ``RULE_SETS`` (fastest of ``runs``)."""
    from ...lab.dataset import iter_by_site, load_texts
    from ...page import Page
    from ...registry import build_extractor
    from ...sitelearning.model import SiteModel

    chain = build_extractor(extractor)
    sites, generic = [], 0.0
    for _, group in iter_by_site(load_texts(folder)):
        if len(group) < 3:
            continue
        pages = []
        for sample in group:
            start = time.process_time()
            page = Page.from_html(decode_html(sample.html_bytes()), sample.url)
            chain.run(page)
            generic += time.process_time() - start
            pages.append((page, [(b.label, b.score, b.step) for b in page.blocks]))
        sites.append(pages)
    n = sum(map(len, sites))
    best = {name: float("inf") for name in RULE_SETS}
    for _ in range(runs):
        for name, options in RULE_SETS.items():
            learner = SiteLearner(**options)
            start = time.process_time()
            for pages in sites:
                model = SiteModel("bench")
                for page, labels in pages:
                    for b, (label, score, step) in zip(page.blocks, labels):
                        b.label, b.score, b.step = label, score, step  # the generic labels again
                    learner.learn([model], learner.apply(page, model), page.url)
            best[name] = min(best[name], time.process_time() - start)
    return {"pages": n, "generic_ms_per_page": 1000 * generic / n,
            **{f"{name} ms/page": 1000 * cpu / n for name, cpu in best.items()}}


def bench_training(folder: str, runs: int = 3) -> dict[str, float]:
    """CPU ms/page of ``Declutter`` over a memory store, its writes included, without and with
    the n-gram classifier trained on unsupervised pages (the default before issue 41), in
    alternating rounds (fastest of ``runs``)."""
    from ...lab.dataset import iter_by_site, load_texts
    from ...sitelearning.declutter import Declutter

    sites = [[(decode_html(s.html_bytes()), s.url) for s in group]
             for site, group in iter_by_site(load_texts(folder)) if site and len(group) >= 3]
    n = sum(map(len, sites))
    best = {"untrained": float("inf"), "trained": float("inf")}
    for _ in range(runs):
        for name in best:
            start = time.process_time()
            for i, pages in enumerate(sites):
                learner = SiteLearner(train=True) if name == "trained" else None
                with Declutter(learner=learner, site_key=f"fixed:s{i}") as dec:
                    for html, url in pages:
                        dec.extract(html, url)
            best[name] = min(best[name], time.process_time() - start)
    return {"pages": n, **{f"{name} ms/page": 1000 * cpu / n for name, cpu in best.items()},
            "trained / untrained": best["trained"] / best["untrained"]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scrapy_declutter.lab.bench.sitelearning")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("ngram", help="CPU ms to classify a 1,000-character block")
    site = sub.add_parser("site", help="model size and ms/page after N pages of one site")
    site.add_argument("--pages", type=int, default=1000)
    site.add_argument("--extractor", default="default")
    site.add_argument("paths", nargs="+")
    rules = sub.add_parser("rules", help="CPU ms/page of the site step's rule sets on a dataset")
    rules.add_argument("--extractor", default="default")
    rules.add_argument("--runs", type=int, default=5)
    rules.add_argument("dataset")
    training = sub.add_parser("training", help="Declutter's CPU ms/page without and with n-gram "
                                               "training on unsupervised pages")
    training.add_argument("--runs", type=int, default=3)
    training.add_argument("dataset")
    args = parser.parse_args(argv)
    if args.cmd == "training":
        result = bench_training(args.dataset, args.runs)
    elif args.cmd == "rules":
        result = bench_rules(args.dataset, args.extractor, args.runs)
    elif args.cmd == "ngram":
        result = bench_ngram()
    else:
        result = bench_site(sorted(args.paths), args.pages, args.extractor)
    for key, value in result.items():
        print(f"{key:<28} {value:,.3f}" if isinstance(value, float) else f"{key:<28} {value:,}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
