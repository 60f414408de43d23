"""Benchmarks of site learning, as commands that print numbers (never timed tests).

``python -m scrapy_declutter.lab.bench.sitelearning ngram`` — CPU time to score a
1,000-character block with a trained classifier.

``python -m scrapy_declutter.lab.bench.sitelearning site --pages 1000 FILES...`` —
run one site's pages through ``Declutter`` (cycling the files under new URLs
when there are fewer than ``--pages``), then print the model's size (stored
bytes, in-memory arrays, fingerprint table) and the CPU ms/page site learning
adds to the same extractor without it.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from ...api import extract
from ...page import decode_html
from ...sitelearning.declutter import Declutter
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
        "classifier_memory_bytes": model.classifier.nbytes,
        "fingerprint_memory_bytes": _fingerprint_bytes(model),
        "plain_ms_per_page": 1000 * plain_cpu / pages,
        "site_learning_ms_per_page": 1000 * learn_cpu / pages,
    }
    out["added_ms_per_page"] = out["site_learning_ms_per_page"] - out["plain_ms_per_page"]
    dec.close()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scrapy_declutter.lab.bench.sitelearning")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("ngram", help="CPU ms to classify a 1,000-character block")
    site = sub.add_parser("site", help="model size and ms/page after N pages of one site")
    site.add_argument("--pages", type=int, default=1000)
    site.add_argument("--extractor", default="default")
    site.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    result = bench_ngram() if args.cmd == "ngram" else bench_site(sorted(args.paths), args.pages,
                                                                   args.extractor)
    for key, value in result.items():
        print(f"{key:<28} {value:,.3f}" if isinstance(value, float) else f"{key:<28} {value:,}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
