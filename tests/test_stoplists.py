"""Stop lists: jusText's files, read without importing jusText (and its HTML cleaner)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from scrapy_declutter.language import ISO_TO_STOPLIST, stoplist

GERMAN = (
    "Die Kommission hat erklärt, dass sie den Bericht nicht vor dem Ende des Jahres "
    "fertigstellen kann, weil viele der Personen, die als Zeugen geladen waren, im Sommer "
    "nicht zur Verfügung standen und einige von ihnen inzwischen eine andere Stelle haben."
)


@pytest.mark.parametrize("code", sorted(ISO_TO_STOPLIST))
def test_stop_lists_equal_the_ones_jusText_gives(code):
    justext = pytest.importorskip("justext")
    expected = frozenset(w.lower() for w in justext.get_stoplist(ISO_TO_STOPLIST[code]))
    assert stoplist(code) == expected and len(expected) > 10


def test_unknown_language_has_no_stop_list():
    assert stoplist("xx") == frozenset()


# lxml >= 5.2 moved lxml.html.clean to the lxml_html_clean package; an install without it
# (the pip that Python 3.11 ships resolves one) cannot import jusText at all.
_WITHOUT_HTML_CLEAN = textwrap.dedent(
    """
    import importlib.abc, json, sys

    class NoHtmlClean(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "lxml_html_clean" or name == "lxml.html.clean":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoHtmlClean())
    try:
        import justext  # noqa: F401
        justext_imports = True
    except ImportError:
        justext_imports = False
    for name in [m for m in sys.modules if m == "justext" or m.startswith("justext.")]:
        del sys.modules[name]  # a half-imported package must not help the code under test

    from scrapy_declutter import extract
    from scrapy_declutter.page import Page

    html = sys.stdin.read()
    page = Page.from_html(html)
    out = {
        "justext_imports": justext_imports,
        "language": page.language,
        "stopwords": [b.stopwords for b in page.blocks],
        "bare_stopwords": [b.bare_stopwords for b in page.blocks],
        "texts": {name: extract(html, extractor=name).text for name in ("default", "justext")},
        "reasons": {name: extract(html, extractor=name).reason for name in ("default", "justext")},
        "justext_loaded": "justext" in sys.modules,
    }
    print(json.dumps(out))
    """
)


def test_extraction_keeps_its_stop_words_without_lxml_html_clean():
    html = (
        "<html><body><nav><a href='/'>Start</a> <a href='/a'>Archiv</a></nav>"
        f"<article><p>{GERMAN}</p><p>{GERMAN}</p></article></body></html>"
    )
    run = subprocess.run([sys.executable, "-c", _WITHOUT_HTML_CLEAN], input=html,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["justext_imports"] is False  # the simulation takes: jusText itself is broken
    assert out["language"] == "de"  # guessed from the stop lists
    assert sum(out["stopwords"]) > 20 and sum(out["bare_stopwords"]) > 20
    for name in ("default", "justext"):
        assert "Kommission" in out["texts"][name], (name, out["reasons"][name])
        assert out["reasons"][name] == ""
    assert out["justext_loaded"] is False
