"""Saved runs: every registered extractor over a dataset, compared against an earlier run.

A refactor that must not change behaviour is checked by saving a run before
it and comparing after it. A run records, per page and per system, a digest
of the clean text and of every block's (label, exact score, step), plus the
labels as a compact string so a difference can be located. Systems are every
registered extractor, ``default``, the seed's ``density+ngram`` and the
precision chain ``boilerpipe-article+tree``, and two site-learning runs
(``site:NAME``: ``Declutter`` over a memory store, pages in file order).

The file is gzip'd JSON lines, one line per (system, page): data, never pickle.
``scrapy-declutter regress save|compare`` runs this from the command line;
the format must stay readable by earlier saved runs (a baseline is only
useful if a later version can compare against it).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Collection, Iterable, Iterator

from .dataset import Sample, load_dataset

#: Compositions checked beside the registered names: the seed's pipeline and the precision mode.
COMPOSED = ("default", "density+ngram", "boilerpipe-article+tree")
#: Chains also run through ``Declutter`` with site learning, pages in file order.
SITE_RUNS = ("site:default", "site:density+ngram")


def systems() -> list[str]:
    """Every system a saved run holds, in a fixed order."""
    from ..registry import REGISTRY

    return sorted(REGISTRY) + list(COMPOSED) + list(SITE_RUNS)


def _digest(parts: Iterable[str]) -> str:
    h = hashlib.sha1()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def _record(system: str, sample: Sample, result) -> dict:
    blocks = result.blocks
    return {
        "system": system,
        "page": sample.file_id,
        "text": _digest([result.text]),
        "labels": "".join("C" if b.is_content else "B" for b in blocks),
        "scores": _digest(f"{b.label}|{b.score!r}|{b.step}" for b in blocks),
        "blocks": len(blocks),
    }


def run_system(system: str, samples: list[Sample]) -> list[dict]:
    """One system's records over the samples, in order."""
    if system.startswith("site:"):
        from .. import Declutter

        dec = Declutter(extractor=system[5:], store="memory:")
        out = [_record(system, s, dec.extract(s.html_bytes(), s.url)) for s in samples]
        dec.close()
        return out
    from ..api import extract

    return [_record(system, s, extract(s.html_bytes(), s.url, extractor=system)) for s in samples]


def _run_one(args: tuple[str, str, int | None]) -> list[dict]:
    system, folder, limit = args
    return run_system(system, load_dataset(folder, limit))


def save_run(folder: str, out: str | Path, *, limit: int | None = None, jobs: int = 2,
             names: list[str] | None = None) -> int:
    """Run every system over the dataset and write the records; return the records written."""
    names = names or systems()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(_run_one, [(n, folder, limit) for n in names]))
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        for records in results:
            for r in records:
                fh.write(json.dumps(r) + "\n")
    return sum(map(len, results))


def read_run(path: str | Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def compare_runs(old: str | Path, new: str | Path, *, pages: Collection[str] | None = None,
                 names: Collection[str] | None = None) -> dict[str, dict[str, int]]:
    """Per system: pages compared, pages whose text, labels or scores differ, pages missing.

    ``pages`` and ``names`` restrict the comparison to those page ids and
    systems (a run over the first N pages, or over some systems, against a
    full saved run); a record of them that only one run has counts as missing.
    """
    def wanted(r: dict) -> bool:
        return (pages is None or r["page"] in pages) and (names is None or r["system"] in names)

    before = {(r["system"], r["page"]): r for r in read_run(old) if wanted(r)}
    after = {(r["system"], r["page"]): r for r in read_run(new) if wanted(r)}
    table: dict[str, dict[str, int]] = {}
    for key in sorted(before.keys() | after.keys()):
        row = table.setdefault(key[0], {"pages": 0, "text": 0, "labels": 0, "scores": 0,
                                        "missing": 0})
        a, b = before.get(key), after.get(key)
        if a is None or b is None:
            row["missing"] += 1
            continue
        row["pages"] += 1
        for field in ("text", "labels", "scores"):
            row[field] += a[field] != b[field]
    return table


def differences(table: dict[str, dict[str, int]]) -> int:
    """Pages that differ or are missing, over all systems: 0 means the runs agree."""
    return sum(row[f] for row in table.values() for f in ("text", "labels", "scores", "missing"))


def format_comparison(table: dict[str, dict[str, int]]) -> str:
    lines = [f"{'system':<28} {'pages':>6} {'text≠':>6} {'labels≠':>8} {'scores≠':>8} {'missing':>8}"]
    for system, row in table.items():
        lines.append(f"{system:<28} {row['pages']:>6} {row['text']:>6} {row['labels']:>8} "
                     f"{row['scores']:>8} {row['missing']:>8}")
    return "\n".join(lines)


if __name__ == "__main__":  # how the first baseline was taken; ``scrapy-declutter regress`` now
    import sys

    folder, out = sys.argv[1], sys.argv[2]
    print(save_run(folder, out, limit=int(sys.argv[3]) if len(sys.argv) > 3 else None))
