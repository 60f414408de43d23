"""The compiled encoder (``_utf8``) gives ``str.encode("utf-8")``'s bytes, and None where
that raises (a surrogate); ``page.encode_utf8`` then raises ``str.encode``'s error."""

from __future__ import annotations

import gzip
import random
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from conftest import SHARED_WCXB, WCXB_SAMPLES, needs_shared, require_compiled

from scrapy_declutter import page
from scrapy_declutter.page import decode_html, encode_utf8

COMPILED = page._compiled_utf8


@pytest.fixture(scope="module", autouse=True)
def compiled_encoder():
    require_compiled(COMPILED, "UTF-8 encoding")


def _agree(texts) -> int:
    count = 0
    for text in texts:
        assert COMPILED(text) == text.encode("utf-8"), repr(text[:200])
        count += 1
    return count


#: One character of each UTF-8 length and Python storage width, and markup.
_CHARS = ("a", "<", "\x00", "\x7f", "\x80", "é", "\u07ff", "\u0800", "’", "\u4e00", "\uffff",
          "\U00010000", "\U0001f600", "\U0010ffff")


def test_every_width_and_length_of_character_at_every_offset_of_a_run():
    # One wide character in ASCII, at each place of a sixteen-character run and of the tail.
    texts = [f"{'x' * at}{c}{'y' * tail}" for c in _CHARS for at in range(40) for tail in (0, 1, 15, 16, 33)]
    rng = random.Random(17)
    texts += ["".join(rng.choice(_CHARS[:rng.randint(1, len(_CHARS))]) if rng.random() < 0.2 else "x"
                      for _ in range(rng.randint(0, 90))) for _ in range(3000)]
    assert _agree(texts) == len(texts)


@pytest.mark.parametrize("text", ["\ud800", "x" * 20 + "\udfff", "’" * 17 + "\udc80" + "x" * 40,
                                  "\U0001f600" + "a" * 30 + "\ud83d"])
def test_a_surrogate_gives_none_and_str_encodes_error(text):
    assert COMPILED(text) is None
    with pytest.raises(UnicodeEncodeError):
        encode_utf8(text)


def test_the_bundled_pages_encode_as_str_encode_does():
    texts = [decode_html(gzip.decompress(p.read_bytes())) for p in sorted(WCXB_SAMPLES.glob("*.html.gz"))]
    assert _agree(texts) == len(texts) > 0


@needs_shared
def test_every_page_of_the_development_set_encodes_as_str_encode_does():
    paths = sorted((SHARED_WCXB / "html").glob("*.html.gz"))
    assert _agree(decode_html(gzip.decompress(p.read_bytes())) for p in paths) == len(paths) > 1000


_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    uint16_t a[16]; uint32_t b[16]; uint8_t out[16] = {0};
    srand(17);
    for (int trial = 0; trial < 20000; trial++) {
        for (int k = 0; k < 16; k++) {
            int r = rand() % 20;  /* mostly ASCII; now and then a wider unit, at any lane */
            a[k] = r ? (uint16_t)(rand() % 0x80) : (uint16_t)(0x80 + rand() % 0xFF80);
            b[k] = r ? (uint32_t)(rand() % 0x80) : (uint32_t)(0x80 + rand() % 0x10FF80);
        }
        printf("%d", ascii_run16(a, out));
        for (int k = 0; k < 16; k++) printf(" %d", out[k]);
        printf(" %d", ascii_run32(b, out));
        for (int k = 0; k < 16; k++) printf(" %d", out[k]);
        printf("\n");
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_plain_c_runs_take_and_copy_what_the_sse2_runs_do(tmp_path):
    # The plain loop is what a build without SSE2 (aarch64 wheels) runs; x86 never does. So
    # both branches of the module's C are compiled here on their own, the plain one with
    # __SSE2__ undefined, and run over the same random runs of sixteen units.
    # The checkout's source (a wheel installs the module, not its .pyx), beside the tests.
    source = (Path(__file__).resolve().parents[1] / "scrapy_declutter" / "_utf8.pyx").read_text()
    block = textwrap.dedent(source.split('cdef extern from *:\n    """\n', 1)[1].split('    """', 1)[0])
    (tmp_path / "runs.c").write_text(block + _HARNESS)
    outputs = []
    for flags in ([], ["-U__SSE2__"]):
        exe = tmp_path / f"runs{len(outputs)}"
        subprocess.run(["gcc", "-O1", "-std=c99", *flags, "-o", str(exe), str(tmp_path / "runs.c")],
                       check=True)
        outputs.append(subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout)
    lines = outputs[0].splitlines()
    assert outputs[0] == outputs[1] and len(lines) == 20000
    taken = sum(line.startswith("1") for line in lines)
    assert 0 < taken < len(lines)  # both answers were given


def _decodes(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_is_utf8_answers_as_the_strict_decoder_on_every_two_byte_and_each_lead_of_four():
    from scrapy_declutter._utf8 import is_utf8

    pairs = [bytes((a, b)) for a in range(256) for b in range(256)]
    # Every lead byte, every second byte, and third and fourth bytes at each edge of the
    # continuation range: overlong forms, surrogates, past U+10FFFF, cut sequences.
    edges = (0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF)
    quads = [bytes((a, b, c, d)) for a in range(0xC0, 0x100) for b in range(256)
             for c in edges for d in (0x41, 0x80, 0xBF, 0xC0)]
    wrong = [body for body in pairs + quads if is_utf8(body) != _decodes(body)]
    assert wrong == [] and len(pairs) + len(quads) > 600_000


def test_is_utf8_finds_a_bad_byte_at_every_offset_of_the_ascii_words():
    from scrapy_declutter._utf8 import is_utf8

    rng = random.Random(23)
    chars = "a<é’\u4e00\U0001f600"
    bodies = []
    for at in range(40):
        for bad in (b"\x80", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff", b"\xe2\x80"):
            for good in ("", "é", "\U0001f600"):
                bodies.append(("x" * at + good).encode() + bad + b"y" * rng.randint(0, 20))
                bodies.append(("x" * at + good + "y" * rng.randint(0, 20)).encode())
    bodies += ["".join(rng.choice(chars) for _ in range(rng.randint(0, 60))).encode()[
        rng.randint(0, 3):] for _ in range(5000)]
    bodies += [bytes(rng.randrange(256) for _ in range(rng.randint(0, 12))) for _ in range(5000)]
    assert [b for b in bodies if is_utf8(b) != _decodes(b)] == []
    assert 0 < sum(map(is_utf8, bodies)) < len(bodies)


@needs_shared
def test_is_utf8_answers_as_the_strict_decoder_on_every_page_of_the_development_set():
    from scrapy_declutter._utf8 import is_utf8

    bodies = [gzip.decompress(p.read_bytes()) for p in sorted((SHARED_WCXB / "html").glob("*.html.gz"))]
    assert [i for i, b in enumerate(bodies) if is_utf8(b) != _decodes(b)] == []
    assert len(bodies) > 1000
