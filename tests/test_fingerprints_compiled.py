"""The compiled folding, name test and name folding (``sitelearning._fingerprints``) are the reference's
(``fingerprints.fold_words``, ``places.names_someone``, ``places.fold_names``), on tricky texts and on every block
of a bundled page."""

from __future__ import annotations

import pytest
from conftest import require_compiled

from scrapy_declutter import extract
from scrapy_declutter.sitelearning import fingerprints, places

try:
    from scrapy_declutter.sitelearning import _fingerprints as compiled
except ImportError:
    compiled = None

TRICKY = ["", " ", "© 2024 Foo", "Page 3 of 12", "Archived on 3 March 2024", "MAY", "Mayday",
          "may_", "May-June", "sept.", "Septembers", "dec_2", "jan1", "_jan_", "jan\u0301",
          "oct\u200b", "İstanbul Σ ΟΔΟΣ", "a\u00a0b\u2003c\n\td", "١٢٣ ٤", "x²³", "𝟘𝟙 jan 𝟚",
          "hello\x1cworld\x1d", "\ud800abc", "ǅ", "a  b   ", "  jan  ", "2024may", "ａｐｒ",
          "Posted on 3 May by Jane Roe", "filed under Town Council", "The Best Laptops For Students",
          "by\u00a0Jane", "by\u2003\nJane", "by_x Jane", "x-by Jane", "l'auteur Jean", "don't Stop",
          "\u00e9by Jane", "_by Jane", "1by Jane", "by Émile", "by É", "by ", "by J", "a B", "aB",
          "-a B", "a-b-c  D", "a\u200bb C", "ab\u0301 C", "ÀB cD e F", "BY Jane", "x.by Jane",
          "xBy Jane", "a\u2028B", "a\x85B", "a'-' B", "'a B", "a ' B", "by\u3000Jane", "x'a B",
          "by Jane Roe Smith and Tom", "by Jane  Roe\u00a0Ann ", "a B c D e F", "a B-c D", "by J.R. Tolkien",
          "x-y Z z", "by  Émile Zola", "a Bb\u0301 Cc"]


@pytest.fixture(scope="module", autouse=True)
def built():
    require_compiled(compiled, "site learning's fingerprints")


def _agree(texts: list[str]) -> None:
    for text in texts:
        lowered = text.lower()
        assert compiled.fold(lowered) == fingerprints.fold_words(lowered), repr(text)
        assert compiled.names_someone(text) == places.names_someone(text), repr(text)
        assert compiled.fold_names(text) == places.fold_names(text), repr(text)


def test_tricky_texts_fold_and_name_as_the_regular_expressions_do():
    _agree(TRICKY)
    assert compiled.fold("archived on 3 march 2024") == "archived on 0 <month> 0"
    assert compiled.names_someone("Posted on 3 May by Jane Roe")
    assert not compiled.names_someone("The Best Laptops For Students")
    assert compiled.fold_names("Posted on 3 May by Jane Roe, filed under Town  Council x") \
        == "Posted on 3 May by <name>, filed under <name> x"


def test_every_block_of_a_bundled_page_agrees(wcxb):
    html, _ = wcxb("4297")
    texts = [b.text for b in extract(html, "https://example.org/").blocks]
    assert len(texts) > 50
    _agree(texts)
