"""Reading a WCXB-format folder: ``html/NNNN.html.gz``, ``ground-truth/NNNN.json``, ``metadata.json``."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..errors import DeclutterError


@dataclass
class Sample:
    """One benchmark page with its ground truth."""

    file_id: str
    url: str
    page_type: str
    domain: str
    html_path: Path
    main_content: str
    with_snippets: list[str] = field(default_factory=list)
    without_snippets: list[str] = field(default_factory=list)
    title: str = ""

    def html_bytes(self) -> bytes:
        data = self.html_path.read_bytes()
        return gzip.decompress(data) if self.html_path.suffix == ".gz" else data


def load_dataset(folder: str | Path, limit: int | None = None) -> list[Sample]:
    """Every page of the folder that has both its HTML and its ground truth, in file-id order."""
    root = Path(folder)
    meta_path = root / "metadata.json"
    if not meta_path.is_file():
        raise DeclutterError(f"{root} is not a WCXB-format folder: {meta_path} is missing")
    files = json.loads(meta_path.read_text(encoding="utf-8")).get("files", {})
    samples: list[Sample] = []
    for file_id in sorted(files):
        html = root / "html" / f"{file_id}.html.gz"
        if not html.is_file():
            html = root / "html" / f"{file_id}.html"
        truth_path = root / "ground-truth" / f"{file_id}.json"
        if not (html.is_file() and truth_path.is_file()):
            continue
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        gt = truth.get("ground_truth", {})
        info = files[file_id]
        samples.append(
            Sample(
                file_id=file_id,
                url=truth.get("url", ""),
                page_type=info.get("page_type")
                or truth.get("_internal", {}).get("page_type", {}).get("primary", "unknown"),
                domain=info.get("domain", ""),
                html_path=html,
                main_content=gt.get("main_content") or "",
                with_snippets=list(gt.get("with") or []),
                without_snippets=list(gt.get("without") or []),
                title=gt.get("title") or "",
            )
        )
        if limit and len(samples) >= limit:
            break
    return samples


def iter_by_site(samples: list[Sample]) -> Iterator[tuple[str, list[Sample]]]:
    """Samples grouped by domain, in a fixed order (domain name, then file id)."""
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(s.domain, []).append(s)
    for domain in sorted(groups):
        yield domain, sorted(groups[domain], key=lambda s: s.file_id)
