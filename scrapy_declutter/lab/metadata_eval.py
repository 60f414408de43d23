"""Scoring metadata against a WCXB-format dataset's ground truth, ours and trafilatura's in one run.

WCXB's ground truth holds ``title``, ``author`` and ``publish_date``. Scores,
each over the pages whose ground truth has the field:

- title: exact match after Unicode NFKC, case folding and whitespace collapsing;
- date: the same calendar day (the first ten characters of ISO 8601);
- author: the WCXB word F1 (``lab.metric.word_prf``) of all authors joined, a
  missing prediction scoring 0.

Our cost is the time ``Result.metadata`` takes on an extracted page (the tree
is already parsed, extruct already imported); trafilatura's is
``extract_metadata`` on the page's text (it parses the page itself, so its
time includes its own parse of the page). ``--sources a,b`` scores ours with
other markup sources than the default; ``--costs`` times each source on its own, so a source is enabled only if what it
adds is worth its cost. The confidence line gives the Spearman correlation
of ``metadata.confidence`` with the page's word F1.

Run: ``python -m scrapy_declutter.lab.metadata_eval DATASET [LIMIT]``.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from .dataset import Sample, load_dataset
from .metric import word_prf

if TYPE_CHECKING:
    from ..result import Result



@dataclass
class Truth:
    title: str | None
    author: str | None
    date: str | None


@dataclass
class Guess:
    """One system's metadata for one page, and what it cost."""

    title: str | None
    author: str | None
    date: str | None
    seconds: float
    #: The modification date, for ``date*`` (ours only; trafilatura gives one date).
    modified: str | None = None


def truth_of(sample: Sample) -> Truth:
    """The metadata ground truth of a sample (read beside its HTML folder)."""
    path = sample.html_path.parent.parent / "ground-truth" / f"{sample.file_id}.json"
    gt = json.loads(path.read_text(encoding="utf-8")).get("ground_truth", {})
    return Truth(gt.get("title") or None, gt.get("author") or None, gt.get("publish_date") or None)


def norm_title(text: str | None) -> str:
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


def norm_date(text: str | None) -> str:
    from ..metadata import iso_date

    iso = iso_date(text) if text else None
    return iso[:10] if iso else ""


def score(guess: Guess, truth: Truth) -> dict[str, float | None]:
    """Per field: 1/0 (title, date) or token F1 (author); None where the truth is empty."""
    return {
        "title": float(norm_title(guess.title) == norm_title(truth.title)) if truth.title else None,
        "author": word_prf(guess.author or "", truth.author).f1 if truth.author else None,
        "date": float(norm_date(guess.date) == norm_date(truth.date)) if truth.date else None,
        "date*": float(norm_date(truth.date) in {norm_date(guess.date), norm_date(guess.modified or guess.date)})
        if truth.date else None,
    }


def ours(html: str, url: str | None,
         sources: tuple[str, ...] | None = None) -> tuple[Guess, float, "Result"]:
    """Our metadata of a page: (guess, its confidence, the extraction's Result)."""
    from ..api import extract
    from ..metadata import read_metadata

    result = extract(html, url)
    start = time.perf_counter()
    if not sources:
        meta = result.metadata
    else:
        meta = read_metadata(result.root, url, title=result.title, language=result.language,
                             blocks=result.blocks, sources=sources)
    seconds = time.perf_counter() - start
    guess = Guess(meta.title, meta.author, meta.date_published, seconds, meta.date_modified)
    return guess, result.confidence, result


def trafilatura_guess(html: str, url: str | None) -> Guess:
    from trafilatura import extract_metadata

    start = time.perf_counter()
    doc = extract_metadata(html, default_url=url)
    seconds = time.perf_counter() - start
    return Guess(doc.title, doc.author, doc.date, seconds)


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    try:
        fn()
    except Exception:  # noqa: BLE001 - a source failing on a page costs what it cost
        pass
    return time.perf_counter() - start


def source_costs(samples: Sequence[Sample]) -> dict[str, float]:
    """Milliseconds per page of each markup source on its own, on the parsed tree
    (rdfa: extruct's own parse included, as it cannot read our tree)."""
    import extruct
    from htmldate import find_date
    from lxml import html as lxml_html

    from ..metadata.markup import read_markup
    from ..page import decode_html, parse_html

    costs: dict[str, list[float]] = {}
    for sample in samples:
        text = decode_html(sample.html_bytes())
        root = parse_html(text)
        for source in ("json-ld", "microdata", "opengraph", "meta"):
            costs.setdefault(source, []).append(_timed(lambda: read_markup(root, sample.url, (source,))))
        costs.setdefault("rdfa (own parse)", []).append(_timed(
            lambda: extruct.extract(text, base_url=sample.url, syntaxes=["rdfa"], errors="ignore")))
        html_root = lxml_html.fromstring(text.encode("utf-8")) if text.strip() else None
        costs.setdefault("htmldate (fast)", []).append(_timed(
            lambda: find_date(html_root, extensive_search=False, original_date=True)))
        costs.setdefault("htmldate (extensive)", []).append(_timed(
            lambda: find_date(html_root, extensive_search=True, original_date=True)))
    return {k: 1000 * statistics.fmean(v) for k, v in costs.items()}


def _spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=v.__getitem__)
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / var if var else float("nan")


def evaluate(samples: Sequence[Sample], *, peers: bool = True,
             sources: tuple[str, ...] | None = None) -> dict[str, dict[str, float]]:
    """Mean score per field and ms/page per system; the pages whose truth has each field
    (``truth``); the confidence/F1 correlation."""
    from ..api import extract
    from ..page import decode_html

    extract("<p>warm-up</p>").metadata  # imports extruct outside the timings
    scores: dict[str, dict[str, list[float]]] = {}
    seconds: dict[str, list[float]] = {}
    confidence, f1 = [], []
    for sample in samples:
        html = decode_html(sample.html_bytes())
        truth = truth_of(sample)
        guess, conf, result = ours(html, sample.url, sources)
        confidence.append(conf)
        f1.append(word_prf(result.text, sample.main_content).f1)
        guesses = {"scrapy-declutter": guess}
        if peers:
            guesses["trafilatura"] = trafilatura_guess(html, sample.url)
        for system, g in guesses.items():
            seconds.setdefault(system, []).append(g.seconds)
            fields = scores.setdefault(system, {})  # a row even where no truth has a field
            for name, value in score(g, truth).items():
                if value is not None:
                    fields.setdefault(name, []).append(value)
    table = {system: {name: statistics.fmean(v) for name, v in fields.items()}
             for system, fields in scores.items()}
    for system, times in seconds.items():
        table[system]["ms/page"] = 1000 * statistics.fmean(times)
        table[system]["pages"] = len(times)
    ours_scored = scores.get("scrapy-declutter", {})
    table["truth"] = {name: len(ours_scored.get(name, ())) for name in ("title", "author", "date")}
    table["confidence"] = {"spearman_vs_f1": _spearman(confidence, f1)}
    return table


def format_table(table: dict[str, dict[str, float]]) -> str:
    head = f"{'system':<18} {'pages':>5} {'title':>6} {'author':>7} {'date':>6} {'date*':>6} {'ms/page':>8}"
    lines = [head, "-" * len(head)]
    for system, row in table.items():
        if "pages" in row:
            lines.append(f"{system:<18} {row['pages']:>5} {row.get('title', float('nan')):>6.3f} "
                         f"{row.get('author', float('nan')):>7.3f} {row.get('date', float('nan')):>6.3f} "
                         f"{row.get('date*', float('nan')) if system != 'trafilatura' else float('nan'):>6.3f} "
                         f"{row['ms/page']:>8.2f}")
    if "truth" in table:
        lines.append("pages whose ground truth has it: " +
                     ", ".join(f"{name} {n}" for name, n in table["truth"].items()))
    lines.append("(date*: the truth is our published or our modified date; trafilatura gives one date)")
    if "confidence" in table:
        lines.append(f"confidence vs page word F1: Spearman {table['confidence']['spearman_vs_f1']:.3f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m scrapy_declutter.lab.metadata_eval DATASET [LIMIT] [--costs] "
              "[--sources=json-ld,opengraph,meta,microdata]", file=sys.stderr)
        return 2
    costs = "--costs" in args
    sources = next((tuple(a.split("=", 1)[1].split(",")) for a in args if a.startswith("--sources=")), None)
    args = [a for a in args if not a.startswith("--")]
    samples = load_dataset(Path(args[0]), int(args[1]) if len(args) > 1 else None)
    print(f"{len(samples)} pages from {args[0]}" + (f", our sources: {sources}" if sources else ""))
    print(format_table(evaluate(samples, sources=sources)))
    if costs:
        print("\nms/page of each metadata source on its own:")
        for source, ms in source_costs(samples).items():
            print(f"  {source:<22} {ms:7.3f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
