"""Reading a dataset folder in the WCXB layout, the one format every lab tool reads.

A dataset folder holds:

* ``metadata.json`` with ``"files"``: page id (``NNNN``) -> ``page_type``,
  ``domain``, ...;
* ``html/NNNN.html.gz`` (or ``html/NNNN.html``): the page bytes as crawled;
* ``ground-truth/NNNN.json``: ``url`` and ``ground_truth`` with
  ``main_content`` (the reference text), ``with`` / ``without`` snippets and
  ``title``.

A set may give snippets only (``main_content`` null on every page, as
trafilatura's evaluation set): its pages keep ``main_content=None`` so that
scoring uses the snippet rates alone and training leaves them out, instead of
taking them for pages whose content is empty. In a set with reference texts a
null ``main_content`` reads as an empty reference, as the WCXB metric has
always scored it (two wcxb-dev pages), so published figures stay comparable.

A folder that is not a dataset, or a dataset with no usable page, is refused
with what was expected, so a typo never looks like a run over zero pages.
``docs/evaluation.md`` describes the format.
"""

from __future__ import annotations

import gzip
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..errors import DeclutterError

logger = logging.getLogger(__name__)

#: What a dataset folder must hold, quoted by every refusal.
LAYOUT = ('a dataset folder holds metadata.json with "files" (page id -> page_type, domain), '
          "and per page html/NNNN.html.gz (or .html) and ground-truth/NNNN.json")


@dataclass
class Sample:
    """One benchmark page with its ground truth.

    ``main_content`` is ``None`` when the set has no reference text for the
    page (snippets only), and ``""`` when the reference says the page has no
    content. ``dataset`` names the folder the page came from, so pages of
    several sets stay apart (cross-validation groups by dataset and domain).
    """

    file_id: str
    url: str
    page_type: str
    domain: str
    html_path: Path
    main_content: str | None
    with_snippets: list[str] = field(default_factory=list)
    without_snippets: list[str] = field(default_factory=list)
    title: str = ""
    dataset: str = ""

    @property
    def has_text(self) -> bool:
        """Whether the page has a reference text, so word P/R/F1 and aligned labels exist."""
        return self.main_content is not None

    def html_bytes(self) -> bytes:
        data = self.html_path.read_bytes()
        return gzip.decompress(data) if self.html_path.suffix == ".gz" else data


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DeclutterError(f"cannot read {path}: {exc}") from exc


def _files(root: Path) -> dict[str, dict]:
    if not root.is_dir():
        raise DeclutterError(f"{root} is not a folder; {LAYOUT}")
    meta_path = root / "metadata.json"
    if not meta_path.is_file():
        raise DeclutterError(f"{root} is not a dataset: {meta_path} is missing; {LAYOUT}")
    meta = _read_json(meta_path)
    files = meta.get("files") if isinstance(meta, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise DeclutterError(f"{meta_path} has no \"files\" object of page id -> page facts; "
                             f"{LAYOUT}")
    return files


def load_dataset(folder: str | Path, limit: int | None = None) -> list[Sample]:
    """Every page of the folder that has both its HTML and its ground truth, in file-id order.

    Raises ``DeclutterError`` when the folder is not a dataset or has no such
    page; listed pages without their files are skipped with a warning.
    """
    root = Path(folder)
    files = _files(root)
    samples: list[Sample] = []
    missing = 0
    for file_id in sorted(files):
        html = root / "html" / f"{file_id}.html.gz"
        if not html.is_file():
            html = root / "html" / f"{file_id}.html"
        truth_path = root / "ground-truth" / f"{file_id}.json"
        if not (html.is_file() and truth_path.is_file()):
            missing += 1
            continue
        truth = _read_json(truth_path)
        if not isinstance(truth, dict):
            raise DeclutterError(f"{truth_path} is not a JSON object")
        gt = truth.get("ground_truth") or {}
        info = files[file_id]
        samples.append(
            Sample(
                file_id=file_id,
                url=truth.get("url") or "",
                page_type=info.get("page_type")
                or truth.get("_internal", {}).get("page_type", {}).get("primary", "unknown"),
                domain=info.get("domain", ""),
                html_path=html,
                main_content=gt.get("main_content"),
                with_snippets=list(gt.get("with") or []),
                without_snippets=list(gt.get("without") or []),
                title=gt.get("title") or "",
                dataset=root.resolve().name,
            )
        )
        if limit and len(samples) >= limit:
            break
    if any(s.has_text for s in samples):
        for s in samples:
            s.main_content = s.main_content or ""
    if not samples:
        raise DeclutterError(f"{root} has no page with both its html and its ground truth "
                             f"({len(files)} listed in metadata.json); {LAYOUT}")
    if missing:
        logger.warning("%s: %d of %d listed pages lack html/%s or ground-truth/%s and are skipped",
                       root, missing, len(files), "NNNN.html[.gz]", "NNNN.json")
    return samples


def load_texts(folder: str | Path, limit: int | None = None) -> list[Sample]:
    """``load_dataset`` for tools that need reference texts (training, site learning).

    Refuses a snippet-only set rather than train or score against empty references.
    """
    samples = load_dataset(folder, limit)
    if not samples[0].has_text:  # a set has reference texts on all its pages or on none
        raise DeclutterError(f"{folder} gives snippets only (main_content is null on every page); "
                             "this needs reference texts")
    return samples


def page_bytes(folder: str | Path, limit: int | None = None,
               max_bytes: int | None = None) -> list[tuple[str, bytes]]:
    """(URL, bytes) of a dataset's pages, or of every ``.html`` file under a folder that is
    not a dataset (its URL ``https://`` and its path there), in order; with ``max_bytes``
    only the pages that long at most, the first ``limit`` of those. The benchmarks read
    this: they time pages, not scores, so any folder of pages will do."""
    root = Path(folder)
    if root.is_dir() and not (root / "metadata.json").is_file():
        pages = ((f"https://{path.relative_to(root).as_posix()}", path.read_bytes())
                 for path in sorted(root.rglob("*.html")))
    else:
        pages = ((s.url, s.html_bytes())
                 for s in load_dataset(root, None if max_bytes is not None else limit))
    kept = [(url, body) for url, body in pages if max_bytes is None or len(body) <= max_bytes]
    kept = kept[:limit] if limit else kept
    if not kept:
        raise DeclutterError(f"{root} has no page" + ("" if max_bytes is None
                                                      else f" of at most {max_bytes} bytes"))
    return kept


def iter_by_site(samples: list[Sample]) -> Iterator[tuple[str, list[Sample]]]:
    """Samples grouped by domain, in a fixed order (domain name, then file id)."""
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(s.domain, []).append(s)
    for domain in sorted(groups):
        yield domain, sorted(groups[domain], key=lambda s: s.file_id)
