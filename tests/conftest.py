"""Shared fixtures: the bundled real pages, and the optional dataset beside the repository."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

SAMPLE_DATA = Path(__file__).parent / "sample_data"
WCXB_SAMPLES = SAMPLE_DATA / "wcxb"
#: The full WCXB dev split, present in CI and developer checkouts, absent in a user's clone.
SHARED_WCXB = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wcxb-dev"


def wcxb_page(file_id: str) -> tuple[bytes, dict]:
    """One bundled WCXB page: its raw bytes and its ground-truth record."""
    html = gzip.decompress((WCXB_SAMPLES / f"{file_id}.html.gz").read_bytes())
    truth = json.loads((WCXB_SAMPLES / f"{file_id}.json").read_text(encoding="utf-8"))
    return html, truth


@pytest.fixture
def wcxb():
    """Loader for bundled WCXB pages: ``html, truth = wcxb("4297")``."""
    return wcxb_page


needs_shared = pytest.mark.skipif(
    not SHARED_WCXB.is_dir(), reason=f"dataset-wide check: {SHARED_WCXB} is absent"
)
