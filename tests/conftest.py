"""Shared fixtures: the bundled real pages, and the optional dataset beside the repository."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

SAMPLE_DATA = Path(__file__).parent / "sample_data"
WCXB_SAMPLES = SAMPLE_DATA / "wcxb"
#: The full WCXB dev split, present in CI and developer checkouts, absent in a user's clone.
#: The example project's page with no main text: the FAQ's table of contents, whose links all
#: score under 0.25. The default gives it no text (``decide.MIN_CHARS``), not a line of chrome.
NO_MAIN_TEXT = "/docs.python.org/3.11/faq/index.html"
SHARED_WCXB = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wcxb-dev"


def wcxb_page(file_id: str) -> tuple[bytes, dict]:
    """One bundled WCXB page: its raw bytes and its ground-truth record."""
    html = gzip.decompress((WCXB_SAMPLES / f"{file_id}.html.gz").read_bytes())
    truth = json.loads((WCXB_SAMPLES / f"{file_id}.json").read_text(encoding="utf-8"))
    return html, truth


def require_compiled(module: object, what: str) -> None:
    """Skip where no C compiler is (the package then runs ``what`` in pure Python); fail
    where one is but the compiled module was not built (``module`` is None)."""
    if module is None:
        if shutil.which(os.environ.get("CC", "cc")) is None:
            pytest.skip(f"no C compiler here: the package runs {what} in pure Python")
        pytest.fail(f"the compiled {what} is not built although a compiler is here: pip install -e .")


@pytest.fixture
def wcxb():
    """Loader for bundled WCXB pages: ``html, truth = wcxb("4297")``."""
    return wcxb_page


def make_dataset(folder: Path, ids: list[str], *, snippets_only: bool = False) -> Path:
    """A dataset folder in the WCXB layout made of bundled pages (each page its own domain).

    ``snippets_only`` writes ``main_content`` null, as a set that gives only
    ``with``/``without`` snippets (trafilatura's evaluation set) does.
    """
    (folder / "html").mkdir(parents=True)
    (folder / "ground-truth").mkdir()
    files = {}
    for i in ids:
        shutil.copy(WCXB_SAMPLES / f"{i}.html.gz", folder / "html")
        truth = json.loads((WCXB_SAMPLES / f"{i}.json").read_text(encoding="utf-8"))
        if snippets_only:
            truth["ground_truth"]["main_content"] = None
        (folder / "ground-truth" / f"{i}.json").write_text(json.dumps(truth), encoding="utf-8")
        files[i] = {"page_type": truth["_internal"]["page_type"]["primary"], "domain": i, "spa": False}
    (folder / "metadata.json").write_text(json.dumps({"files": files}), encoding="utf-8")
    return folder


@pytest.fixture
def tiny_dataset(tmp_path):
    """A WCXB-format folder made of three bundled pages."""
    return make_dataset(tmp_path / "tiny", ["4297", "0540", "0688"])


needs_shared = pytest.mark.skipif(
    not SHARED_WCXB.is_dir(), reason=f"dataset-wide check: {SHARED_WCXB} is absent"
)
