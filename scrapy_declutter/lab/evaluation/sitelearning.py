"""Site-learning evaluation: the same pages scored without and with site learning, in one run.

Pages are grouped by site (``iter_by_site``: domain, then file id) and, for
each site with at least ``min_pages`` pages, processed in that fixed order by
a fresh ``Declutter`` over a memory store:

* ``generic`` — the extractor alone (stateless ``extract``);
* ``first``   — first pass: each page sees only what the pages before it taught;
* ``recrawl`` — second pass over the same pages with the learned store (the
  URLs were counted already, so the model is not changed by this pass).

The headline figures are the boilerplate share of the output (1 − mean
precision) and mean F1 of each, and the worst per-page F1 change.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ...api import extract
from ...page import Page, decode_html
from ...sitelearning.declutter import Declutter
from ..dataset import Sample, iter_by_site
from ..metric import word_prf

if TYPE_CHECKING:
    from ...sitelearning.learner import SiteLearner

MODES = ("generic", "first", "recrawl")


@dataclass
class SitePageScore:
    """One page's precision/recall/F1 under each mode, and the time each took."""

    site: str
    file_id: str
    precision: dict[str, float]
    recall: dict[str, float]
    f1: dict[str, float]
    seconds: dict[str, float]


def run_site_learning(samples: Sequence[Sample], extractor: str = "default", *,
                      min_pages: int = 3, store: str = "memory:",
                      learner: "SiteLearner | None" = None) -> list[SitePageScore]:
    """Score every page of every site with ``min_pages`` or more pages under the three modes
    (``learner``: the site step's rules, default ``Declutter``'s)."""
    out: list[SitePageScore] = []
    for site, group in iter_by_site(list(samples)):
        if len(group) < min_pages or not site:
            continue
        texts = [decode_html(s.html_bytes()) for s in group]
        rows = [SitePageScore(site, s.file_id, {}, {}, {}, {}) for s in group]
        for s, text, row in zip(group, texts, rows):
            start = time.process_time()
            prediction = extract(text, s.url, extractor=extractor).text
            _record(row, "generic", prediction, s, time.process_time() - start)
        # The dataset's grouping, whatever the URLs say.
        with Declutter(extractor, store=store, site_key=lambda _url: site,
                       learner=learner) as dec:
            for mode in ("first", "recrawl"):
                for s, text, row in zip(group, texts, rows):
                    start = time.process_time()
                    prediction = dec.extract_page(Page.from_html(text, s.url)).text
                    _record(row, mode, prediction, s, time.process_time() - start)
        out.extend(rows)
    return out


def _record(row: SitePageScore, mode: str, prediction: str, sample: Sample, seconds: float) -> None:
    score = word_prf(prediction, sample.main_content)
    row.precision[mode], row.recall[mode], row.f1[mode] = score.precision, score.recall, score.f1
    row.seconds[mode] = seconds


def _summary(rows: Sequence[SitePageScore]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for mode in MODES:
        p = statistics.fmean(r.precision[mode] for r in rows)
        out[mode] = {"boilerplate": 1 - p, "precision": p,
                     "recall": statistics.fmean(r.recall[mode] for r in rows),
                     "f1": statistics.fmean(r.f1[mode] for r in rows),
                     "ms": 1000 * statistics.fmean(r.seconds[mode] for r in rows)}
        if mode != "generic":
            out[mode]["worst_df1"] = min(r.f1[mode] - r.f1["generic"] for r in rows)
    return out


def format_site_table(rows: Sequence[SitePageScore], extractor: str) -> str:
    """Per-site table, then the overall figures and the change site learning makes."""
    head = (f"{'site':<28} {'pages':>5} | {'bp generic':>10} {'first':>6} {'recrawl':>7} | "
            f"{'F1 generic':>10} {'first':>6} {'recrawl':>7} | {'worst dF1':>9}")
    lines = [f"site learning on {extractor!r}: bp = boilerplate share of output (1 - precision)",
             head, "-" * len(head)]
    by_site: dict[str, list[SitePageScore]] = {}
    for r in rows:
        by_site.setdefault(r.site, []).append(r)
    for site, items in by_site.items():
        s = _summary(items)
        worst = min(s["first"]["worst_df1"], s["recrawl"]["worst_df1"])
        lines.append(f"{site[:28]:<28} {len(items):>5} | {s['generic']['boilerplate']:>10.3f} "
                     f"{s['first']['boilerplate']:>6.3f} {s['recrawl']['boilerplate']:>7.3f} | "
                     f"{s['generic']['f1']:>10.3f} {s['first']['f1']:>6.3f} "
                     f"{s['recrawl']['f1']:>7.3f} | {worst:>+9.3f}")
    if not rows:
        return "\n".join(lines + ["(no site with enough pages)"])
    s = _summary(rows)
    lines.append("-" * len(head))
    lines.append(f"{'ALL (' + str(len(by_site)) + ' sites)':<28} {len(rows):>5} | "
                 f"{s['generic']['boilerplate']:>10.3f} {s['first']['boilerplate']:>6.3f} "
                 f"{s['recrawl']['boilerplate']:>7.3f} | {s['generic']['f1']:>10.3f} "
                 f"{s['first']['f1']:>6.3f} {s['recrawl']['f1']:>7.3f} | "
                 f"{min(s['first']['worst_df1'], s['recrawl']['worst_df1']):>+9.3f}")
    g = s["generic"]["boilerplate"]
    for mode in ("first", "recrawl"):
        cut = (g - s[mode]["boilerplate"]) / g if g else 0.0
        lines.append(f"{mode:>8}: boilerplate share cut by {cut:.1%}, mean F1 "
                     f"{s[mode]['f1'] - s['generic']['f1']:+.4f}, worst page dF1 "
                     f"{s[mode]['worst_df1']:+.3f}, pages losing > 0.10 F1: "
                     f"{sum(r.f1[mode] - r.f1['generic'] < -0.10 for r in rows)}")
    lines.append(f"CPU time per page: generic {s['generic']['ms']:.1f} ms, first pass "
                 f"{s['first']['ms']:.1f} ms, re-crawl {s['recrawl']['ms']:.1f} ms "
                 f"(site learning adds {s['first']['ms'] - s['generic']['ms']:+.1f} ms/page learning, "
                 f"{s['recrawl']['ms'] - s['generic']['ms']:+.1f} ms/page applying)")
    return "\n".join(lines)


def make_selector_dataset(pages: Sequence[tuple[str, str]], folder: str, *, domain: str,
                          selector: str, first_id: int = 0) -> int:
    """Write (url, html path) pages as a WCXB-format folder, the ground truth being the selector's text.

    How the extra multi-page sites (HTML documentation Debian ships) are
    turned into benchmark data: the main content is the text of the blocks
    inside ``selector`` (e.g. Sphinx's ``div.body``). Returns pages written.
    """
    import gzip
    import json
    from pathlib import Path

    from ...sitelearning.supervision import selector_labels

    root = Path(folder)
    (root / "html").mkdir(parents=True, exist_ok=True)
    (root / "ground-truth").mkdir(exist_ok=True)
    meta_path = root / "metadata.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"files": {}}
    n = 0
    for url, path in pages:
        raw = Path(path).read_bytes()
        page = Page.from_html(raw, url)
        labels = selector_labels(page, selector)
        if not labels or not any(labels):
            continue
        fid = f"{first_id + n:04d}"
        content = "\n\n".join(b.text for b, keep in zip(page.blocks, labels) if keep)
        (root / "html" / f"{fid}.html.gz").write_bytes(gzip.compress(raw))
        (root / "ground-truth" / f"{fid}.json").write_text(json.dumps(
            {"url": url, "ground_truth": {"main_content": content, "title": page.title}}))
        meta["files"][fid] = {"domain": domain, "page_type": "documentation"}
        n += 1
    meta_path.write_text(json.dumps(meta, indent=1))
    return n


@dataclass
class SeedExperiment:
    """Seed 000's experiment: block error rate of density+ngram on held-out pages."""

    train_pages: int
    test_pages: int
    blocks: int  # blocks the density filter kept on the test pages (the seed's chunks)
    errors: int  # keep-labelled discarded or discard-labelled kept
    density_only_errors: int  # the same blocks, all kept (no classifier)

    @property
    def error_rate(self) -> float:
        return self.errors / self.blocks if self.blocks else 0.0

    @property
    def density_only_error_rate(self) -> float:
        return self.density_only_errors / self.blocks if self.blocks else 0.0


def seed_experiment(paths: Sequence[str], selector: str, *, train_share: float = 0.9,
                    order: int = 6) -> SeedExperiment:
    """Train density+ngram by selector on the first ``train_share`` of the pages, test on the rest.

    As the seed: the classifier is trained on the chunks (blocks) the density
    filter keeps, labelled keep/discard by the selector (the seed used comment
    markers), and its error rate is counted over the density-kept chunks of
    the held-out pages.
    """
    from ...registry import build_extractor
    from ...sitelearning.model import SiteModel
    from ...sitelearning.ngram import DISCARD, KEEP, NGramClassifier
    from ...sitelearning.step import SITE_MODEL
    from ...sitelearning.supervision import selector_labels

    density, ngram = build_extractor("density"), build_extractor("ngram")
    n_train = int(len(paths) * train_share)
    model = SiteModel("seed", classifier=NGramClassifier(order=order))
    for path in paths[:n_train]:
        page = Page.from_html(open(path, "rb").read())
        labels = selector_labels(page, selector)
        if labels is None:
            continue
        density.run(page)
        for b, keep in zip(page.blocks, labels):
            if b.is_content:
                model.classifier.train(KEEP if keep else DISCARD, b.text)
    blocks = errors = density_errors = 0
    for path in paths[n_train:]:
        page = Page.from_html(open(path, "rb").read())
        labels = selector_labels(page, selector)
        if labels is None:
            continue
        density.run(page)
        kept = [b.is_content for b in page.blocks]
        page.put(SITE_MODEL, model)
        ngram.run(page)
        for b, was_kept, keep in zip(page.blocks, kept, labels):
            if was_kept:
                blocks += 1
                errors += b.is_content != keep
                density_errors += not keep
    return SeedExperiment(n_train, len(paths) - n_train, blocks, errors, density_errors)


def supervised_bound(samples: Sequence[Sample], extractor: str = "default", *, min_pages: int = 3,
                     bits: Sequence[float] = (1.0, 2.0)) -> list[dict[str, float]]:
    """How much boilerplate a site's n-gram classifier could cut if it knew the truth.

    Each page's generic output is filtered by a classifier trained on the
    *ground-truth* block labels (aligned ``main_content``) of the site's other
    pages: blocks kept by the extractor that it calls discard with at least
    ``bits`` bits of log-odds per character are dropped. Self-supervised site
    learning cannot beat this leave-one-out bound. ``blocks`` is the other
    bound: every kept block the ground truth calls boilerplate dropped.
    """
    from ...registry import build_extractor
    from ...sitelearning.ngram import DISCARD, KEEP, NGramClassifier
    from ..alignment import align_blocks

    chain = build_extractor(extractor)
    names = ["generic", "blocks", *(f"ngram {cut:g} bits/char" for cut in bits)]
    outputs: dict[str, list[tuple[Sample, str]]] = {name: [] for name in names}
    for site, group in iter_by_site(list(samples)):
        if len(group) < min_pages or not site:
            continue
        pages = []  # (sample, block texts, kept by the extractor, content by the ground truth)
        for s in group:
            page = Page.from_html(decode_html(s.html_bytes()), s.url)
            chain.run(page)
            pages.append((s, [b.text for b in page.blocks], [b.is_content for b in page.blocks],
                          align_blocks(page.blocks, s.main_content)))
        for i, (sample, texts, kept, truth) in enumerate(pages):
            clf = NGramClassifier()
            for j, (_, other_texts, _, other_truth) in enumerate(pages):
                if j != i:
                    clf.train_many((KEEP if t else DISCARD, x) for x, t in zip(other_texts, other_truth))
            outputs["generic"].append((sample, "\n".join(x for x, k in zip(texts, kept) if k)))
            outputs["blocks"].append((sample, "\n".join(
                x for x, k, t in zip(texts, kept, truth) if k and t)))
            verdicts = [clf.classify(x) if k else None for x, k in zip(texts, kept)]
            for name, cut in zip(names[2:], bits):
                outputs[name].append((sample, "\n".join(
                    x for x, v in zip(texts, verdicts)
                    if v is not None and not (v.category == DISCARD and -v.log_odds >= cut * len(x)))))
    scores = {name: [word_prf(text, s.main_content) for s, text in items]
              for name, items in outputs.items()}
    base = scores["generic"]
    return [{"bound": name, "boilerplate": 1 - statistics.fmean(x.precision for x in got),
             "f1": statistics.fmean(x.f1 for x in got),
             "worst_df1": min(x.f1 - b.f1 for x, b in zip(got, base)), "pages": len(got)}
            for name, got in scores.items()]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m scrapy_declutter.lab.evaluation.sitelearning seed|bound|make-dataset ...``."""
    import argparse
    import os

    parser = argparse.ArgumentParser(prog="python -m scrapy_declutter.lab.evaluation.sitelearning")
    sub = parser.add_subparsers(dest="cmd", required=True)
    seed = sub.add_parser("seed", help="seed 000's 90/10 experiment on one site's pages")
    seed.add_argument("--selector", required=True)
    seed.add_argument("paths", nargs="+")
    bound = sub.add_parser("bound", help="what a site classifier trained on the true labels could cut")
    bound.add_argument("dataset")
    bound.add_argument("-e", "--extractor", default="default")
    bound.add_argument("--min-pages", type=int, default=3)
    rules = sub.add_parser("rules", help="what each site-learning rule did, page by page")
    rules.add_argument("dataset")
    rules.add_argument("-e", "--extractor", default="default")
    rules.add_argument("--min-pages", type=int, default=3)
    rules.add_argument("--worst", type=int, default=0, help="also list the N pages each rule hurt most")
    roles = sub.add_parser("ngram-role", help="site learning with the n-gram classifier voting "
                           "on every site's ambiguous blocks, unsupervised, against the default")
    roles.add_argument("dataset")
    roles.add_argument("--min-pages", type=int, default=3)
    make = sub.add_parser("make-dataset", help="WCXB-format folder from pages and a selector")
    make.add_argument("--out", required=True)
    make.add_argument("--domain", required=True)
    make.add_argument("--selector", required=True)
    make.add_argument("--url-prefix", required=True, help="URL of a page = prefix + file name")
    make.add_argument("--first-id", type=int, default=0)
    make.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    if args.cmd == "seed":
        r = seed_experiment(sorted(args.paths), args.selector)
        print(f"trained on {r.train_pages} pages, tested on {r.test_pages}: {r.blocks} density-kept "
              f"blocks, {r.errors} errors, block error rate {r.error_rate:.2%} "
              f"(density filter alone: {r.density_only_error_rate:.2%})")
        return 0
    if args.cmd == "bound":
        from ..dataset import load_texts

        rows = supervised_bound(load_texts(args.dataset), args.extractor, min_pages=args.min_pages)
        generic = rows[0]["boilerplate"]
        print(f"{rows[0]['pages']} pages of sites with >= {args.min_pages} pages, {args.extractor!r}:")
        for r in rows:
            cut = (generic - r["boilerplate"]) / generic if generic else 0.0
            print(f"{r['bound']:<22} bp {r['boilerplate']:.3f} (cut {cut:6.1%})  F1 {r['f1']:.4f}  "
                  f"worst page dF1 {r['worst_df1']:+.3f}")
        return 0
    if args.cmd == "rules":
        from ..dataset import load_texts
        from .siterules import RULES, format_rule_effects, rule_effects

        effects = rule_effects(load_texts(args.dataset), args.extractor, min_pages=args.min_pages)
        print(f"{len({(e.site, e.file_id) for e in effects})} pages of sites with >= "
              f"{args.min_pages} pages, {args.extractor!r}: dF1 of each rule (F1 with it minus "
              "F1 with its relabels undone)")
        print(format_rule_effects(effects))
        for rule in RULES if args.worst else ():
            hurt = sorted(effects, key=lambda e: e.f1 - e.without[rule])[:args.worst]
            for e in hurt:
                if e.f1 < e.without[rule]:
                    print(f"  {rule} {e.mode} {e.site} {e.file_id}: {e.f1 - e.without[rule]:+.3f} "
                          f"(page vs generic {e.f1 - e.generic_f1:+.3f})")
        return 0
    if args.cmd == "ngram-role":
        from ...sitelearning.learner import SiteLearner
        from ..dataset import load_texts

        samples = load_texts(args.dataset)
        for name, learner in (("default", None),
                              ("vote everywhere", SiteLearner(vote_needs_supervision=False,
                                                              train=True))):
            rows = run_site_learning(samples, min_pages=args.min_pages, learner=learner)
            print(format_site_table(rows, f"default, n-gram classifier: {name}"))
        return 0
    n = make_selector_dataset([(args.url_prefix + os.path.basename(p), p) for p in args.paths],
                              args.out, domain=args.domain, selector=args.selector,
                              first_id=args.first_id)
    print(f"{n} pages written to {args.out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
