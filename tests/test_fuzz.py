"""Property-based fuzzing of ``extract()`` (invariants in ``scrapy_declutter.lab.fuzzing``).

A short, derandomised budget runs in CI (``DECLUTTER_FUZZ_EXAMPLES``, default 100
per test, 15 per other extractor). The long run is a command:
``scrapy-declutter fuzz --examples 5000`` (or this file with
``DECLUTTER_FUZZ_EXAMPLES=5000``).
"""

from __future__ import annotations

import dataclasses
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE_DATA

from scrapy_declutter import DeclutterError, extract, extractors
from scrapy_declutter.lab.fuzzing import (
    HIDDEN_MARK,
    byte_soups,
    check_invariants,
    content_types,
    html_documents,
    visible_text,
)

EXAMPLES = int(os.environ.get("DECLUTTER_FUZZ_EXAMPLES", "100"))
CI = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 200,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@CI
@given(html=html_documents())
def test_generated_html_trees_keep_the_invariants(html):
    check_invariants(html)


@CI
@given(body=byte_soups(), content_type=content_types())
def test_byte_soups_keep_the_invariants(body, content_type):
    check_invariants(body, content_type=content_type)


@pytest.mark.parametrize("name", [n for n in extractors() if n != "default"])
@settings(max_examples=max(15, EXAMPLES // 6), deadline=None, derandomize=EXAMPLES <= 200,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(html=st.one_of(html_documents(), byte_soups()))
def test_every_extractor_keeps_the_invariants(name, html):
    if name in UNTRAINED:
        pytest.skip(f"{name} has no trained model in this checkout")
    check_invariants(html, extractor=name)


def _untrained() -> set[str]:
    """Extractors whose model file is not there (a checkout before training); others must work."""
    from scrapy_declutter import extract

    names = set()
    for name in extractors():
        try:
            missing = "ModelError" in extract("<p>probe</p>", extractor=name).reason
        except DeclutterError as exc:  # a factory that loads its model when the chain is built
            missing = type(exc).__name__ == "ModelError"
        if missing:
            names.add(name)
    return names


UNTRAINED = _untrained()


PARAGRAPH = "<p>" + "plenty of ordinary words in this paragraph " * 20 + "</p>"


@pytest.mark.parametrize(("change", "broken"), [
    (lambda r: dataclasses.replace(r, text=f"{r.text} {HIDDEN_MARK}"), "hidden element"),
    (lambda r: _reversed_blocks(r), "not page text in order"),
])
def test_the_invariant_check_can_fail(monkeypatch, change, broken):
    """The checker itself catches a script's text in the clean text, and blocks out of order."""
    from scrapy_declutter.lab import fuzzing

    real = fuzzing.extract
    monkeypatch.setattr(fuzzing, "extract", lambda *a, **kw: change(real(*a, **kw)))
    page = f"{PARAGRAPH}<script>{HIDDEN_MARK}</script><p>{'and a second one here ' * 20}</p>"
    with pytest.raises(AssertionError, match=broken):
        fuzzing.check_invariants(page)


def _reversed_blocks(result):
    blocks = [dataclasses.replace(b, index=len(result.blocks) - 1 - i) for i, b in enumerate(reversed(result.blocks))]
    return dataclasses.replace(result, blocks=blocks)


FUZZ = SAMPLE_DATA / "fuzz"


@pytest.mark.parametrize(("name", "content_type", "extractor"), [
    ("broken-script-tag.html", "text/html; charset=windows-1251", "default"),
    ("unclosed-title.html", None, "density+ngram"),
    ("text-after-body.html", "text/html; charset=bogus-charset", "default"),
])
def test_fuzzed_byte_soups_keep_the_invariants(name, content_type, extractor):
    """Inputs that ``fuzz`` found failing (``sample_data/fuzz/README.md``)."""
    check_invariants((FUZZ / name).read_bytes(), extractor=extractor, content_type=content_type)


def test_a_splice_into_a_script_tag_shows_its_text():
    """``<scrip\\x8d...t>`` is an unknown element: its text is page text, and extract() keeps it."""
    body = (FUZZ / "broken-script-tag.html").read_bytes()
    content_type = "text/html; charset=windows-1251"
    text = extract(body, "https://fuzz.example/page", content_type=content_type).text
    assert text.count(HIDDEN_MARK) == visible_text(body, content_type).count(HIDDEN_MARK) == 1
    assert f"{HIDDEN_MARK} {{color: red}}" in text  # the unknown element's, not a script's


def test_a_title_that_swallowed_the_page_is_checked_against_the_page_re_read():
    body = (FUZZ / "unclosed-title.html").read_bytes()
    result = extract(body, "https://fuzz.example/page", extractor="density+ngram")
    assert result.reason.startswith("damaged_head: an unclosed <title>")
    assert "123 and of the article" in result.text
    assert "123 and of the article" not in visible_text(body)  # all of it is the title's text
    assert "123 and of the article" in visible_text(body, reopened=True)
    assert HIDDEN_MARK not in visible_text(body, reopened=True)
