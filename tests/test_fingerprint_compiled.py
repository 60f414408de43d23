"""The compiled fingerprints (``_fingerprint``) are the reference's (``model.python_normalise``,
``model.python_fingerprint``, ``model.hash_text``): the same normalised strings and the same
hashes; and its test for
a name (``names_someone``) and its folding of names (``fold_names``) are the regular
expression's (``places.python_names_someone``, ``places.python_fold_names``)."""

from __future__ import annotations

import gzip
import random

import pytest
from conftest import SAMPLE_DATA, SHARED_WCXB, require_compiled

from scrapy_declutter.page import Page
from scrapy_declutter.sitelearning import model, places

COMPILED = model._compiled


@pytest.fixture(scope="module", autouse=True)
def compiled_fingerprints():
    require_compiled(COMPILED, "fingerprinting")


def _agree(texts: list[str]) -> None:
    for text in texts:
        assert COMPILED.normalise(text) == model.python_normalise(text), repr(text)
        assert COMPILED.fingerprint(text) == model.python_fingerprint(text), repr(text)
        assert COMPILED.names_someone(text) == places.python_names_someone(text), repr(text)
        assert COMPILED.fold_names(text) == places.python_fold_names(text), repr(text)
        assert COMPILED.hash_text(text) == model.hash_text(text), repr(text)


def test_urls_months_digits_and_whitespace_fold_as_the_regular_expressions_fold_them():
    texts = ["", " ", "© 2024 Foo", "Page 3 of 12", "Archived on 3 March 2024 from http://x.org/a b",
             "https:// x", "http://", "www.", "www.a", "xhttp://a may", "MAY", "Mayday", "may_",
             "May-June", "sept.", "Septembers", "dec_2", "jan1", "_jan_", "jan\u0301", "oct\u200b",
             "HTTPS://Example.com/Jan", "ＷＷＷ.x", "www.x.com/jan http://a\u2028b",
             # Unicode lower case (İ becomes two characters, final sigma), spaces, digits
             "İstanbul Σ ΟΔΟΣ", "a\u00a0b\u2003c\n\td", "١٢٣ ٤", "x²³", "𝟘𝟙 jan 𝟚",
             "hello\x1cworld\x1d", "\ud800abc", "ǅ", "a  b   "]
    _agree(texts)
    assert COMPILED.normalise("Archived on 3 March 2024 from http://x.org/a b") \
        == "archived on 0 <month> 0 from <url> b"
    assert COMPILED.normalise("xhttp://a  May\u2003") == "x<url> <month>"


def test_names_are_found_where_the_regular_expression_finds_them():
    texts = ["Posted on 3 May by Jane Roe", "filed under Town Council", "The Best Laptops For Students",
             "by\u00a0Jane", "by\u2003\nJane", "by_x Jane", "x-by Jane", "l'auteur Jean", "don't Stop",
             "éby Jane", "\u00e9by Jane", "_by Jane", "1by Jane", "by Émile", "by É", "by", "by ", "by J",
             "a B", "aB", " a B", "-a B", "a-b-c  D", "a\u200bb C", "ab\u0301 C", "a\tb C", "ÀB cD e F",
             "by jane", "BY Jane", "x.by Jane", "xBy Jane", "", "a", "A", "a\u2028B", "a\x1cB", "a\x85B",
             "a'-' B", "a' B", "'a B", "a ' B", "by\u3000Jane"]
    _agree(texts)
    assert COMPILED.names_someone("Posted on 3 May by Jane Roe")
    assert not COMPILED.names_someone("The Best Laptops For Students")
    assert COMPILED.fold_names("Posted on 3 May by Jane Roe, filed under Town  Council x") \
        == "Posted on 3 May by <name>, filed under <name> x"


def test_every_code_point_lowers_as_str_lower_lowers_it():
    """The compiled lowering maps one character at a time (but for İ and Σ, which it leaves
    to ``str.lower``): every other code point, in runs of 64, folds as the reference."""
    points = [c for c in range(0x110000) if c not in (0x130, 0x3A3)]
    for start in range(0, len(points), 64):
        text = "".join(map(chr, points[start:start + 64]))
        assert COMPILED.normalise(text) == model.python_normalise(text), hex(points[start])
    _agree(["\u0130", "\u03a3", "x\u0130y", "\u03a3\u03a3 \u03b1\u03a3", "a\u00c0\u0130\u0100"])


def test_random_texts_fold_as_the_reference_folds_them():
    rnd = random.Random(1)
    alphabet = "abcjfmsondyegptuvrhw:/.- _0123\u00a0\u2003İΣς٣²\n\t𝟘<>ßﬁABJ'\u00c9\u2028"
    words = ["http://a.b", "www.c", "jan", "January", "may", "sept", "Sep", "x1", "12", "  ",
             "\n", "İ", "ΑΣ", "https://", "_", "dec2", "by", "Jane", "Roe", "o'Neil", "-", "l'x"]
    texts = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 30))) for _ in range(3000)]
    texts += [rnd.choice(["", " "]).join(rnd.choice(words) for _ in range(rnd.randint(0, 8)))
              for _ in range(3000)]
    _agree(texts)


def test_ascii_texts_fold_as_the_reference_folds_them():
    """ASCII texts: months in any case, digit runs inside words, every ASCII white space,
    texts long past the stack's room."""
    rnd = random.Random(3)
    words = ["jan", "JAN", "January", "mAy", "may5", "Sept", "sept_", "9dec", "dec", "x1y22",
             "123", "_", "-", "Jane", "ab.", "http", "wwwx", "Www", "<month>", "\x1c", "\x1f",
             "\x0b", "\r\n", " ", "\t", "\x00", "~", "\x7f", "Z9", "JUNE", "jun3"]
    seps = ["", " ", "  ", "\n", "\x1d", ".", ","]
    texts = ["".join(rnd.choice(words) + rnd.choice(seps) for _ in range(rnd.randint(0, 12)))
             for _ in range(4000)]
    texts += [" ".join(rnd.choice(["may", "May", "12", "x"]) for _ in range(n))
              for n in (100, 300, 1000, 5000)]  # "<month>" grows the text: past the stack
    assert all(t.isascii() for t in texts)
    _agree(texts)


def test_hashes_are_hashlibs_blake2b_at_every_length_around_its_block_boundaries():
    """``_blake2b.pxi`` is BLAKE2b in C: texts whose UTF-8 is 0-400 bytes (one, two and three
    128-byte blocks, each boundary exactly) and one of 20,000 hash as ``hashlib`` does."""
    rnd = random.Random(2)
    for n in [*range(0, 401), 20_000]:
        text = "".join(rnd.choice("abcxyz!?;") for _ in range(n))  # all kept as they are
        assert COMPILED.normalise(text) == text
        assert COMPILED.fingerprint(text) == model.hash_text(text), n
        assert COMPILED.hash_text(text) == model.hash_text(text), n
    assert COMPILED.fingerprint("é" * 64) == model.hash_text("é" * 64)  # 128 bytes of UTF-8


def _block_texts(path) -> list[str]:
    data = path.read_bytes()
    return [b.text for b in Page.from_html(gzip.decompress(data) if path.suffix == ".gz"
                                           else data).blocks]


@pytest.mark.parametrize("path", sorted(p for p in SAMPLE_DATA.rglob("*")
                                        if p.name.endswith((".html", ".html.gz")))[:40],
                         ids=lambda p: str(p.relative_to(SAMPLE_DATA)))
def test_bundled_pages_blocks_fingerprint_as_the_reference(path):
    _agree(_block_texts(path))


@pytest.mark.skipif(not SHARED_WCXB.is_dir(), reason="needs ../shared/data/wcxb-dev")
def test_every_block_of_wcxb_dev_fingerprints_as_the_reference():
    for path in sorted((SHARED_WCXB / "html").glob("*.html*")):
        _agree(_block_texts(path))
