"""What a body really is: binary sniffing, and decoding that survives a lying charset.

Servers send PNGs, PDFs and gzip streams as ``text/html``, and label
windows-1251 or Shift_JIS pages ``charset=utf-8``. Parsed as HTML, the first
give a page of control characters, the second a page of U+FFFD.

Binary: a known file signature at offset 0, or, in the first ``SNIFF_BYTES``,
more than ``MAX_CONTROL_RATIO`` of C0 control bytes other than NUL (tab,
newlines, form feed and ESC, which ISO-2022-JP uses, excluded; random or
compressed bytes have about 10 %), or more than ``MAX_NUL_RATIO`` of NULs.
NULs are counted apart because HTML sprinkled with them is still HTML (the
parser drops them), and a UTF-16 body, whose every other byte is NUL, is
recognised first and decoded, not refused.

Decoding follows the browser's order through w3lib (BOM, HTTP header,
``<meta charset>``, then UTF-8), with two repairs where the declared encoding
is evidently false; a browser shows mojibake there, but an extractor's text
is meant to be read:

* declared UTF-8, and the bytes have more invalid UTF-8 sequences than valid
  multi-byte ones: the page's own ``<meta>`` charset if it decodes the bytes
  cleanly, else charset-normalizer's guess if it does; one stray byte in a
  UTF-8 page keeps UTF-8 (and its U+FFFD);
* declared any charset but a Unicode one (Latin-1, windows-1251, GBK, Big5,
  Shift_JIS, ...), by the header or by the page's ``<meta>``, and the bytes are
  valid UTF-8 with non-ASCII characters: UTF-8. Text in those encodings is
  practically never valid UTF-8 (their non-ASCII bytes do not come in UTF-8's
  lead-and-continuation runs), while pages re-saved as UTF-8 that kept their
  old ``<meta charset>`` are common: 112 of L3S-GN1's 621 pages (ISO-8859-1
  mostly, one Big5-HKSCS, one windows-1251, one windows-1256) and a Chinese
  page of Readability's tests declared GB2312. trafilatura, too, reads valid
  UTF-8 as UTF-8 whatever the page declares.
"""

from __future__ import annotations

import codecs
import logging

from w3lib.encoding import html_body_declared_encoding, html_to_unicode, http_content_type_encoding

try:
    from ._utf8 import is_utf8 as _is_utf8
except ImportError:  # built without a compiler: every body is decoded (``decode_html``)
    _is_utf8 = None

logger = logging.getLogger(__name__)

#: Bytes looked at to decide whether a body is binary.
SNIFF_BYTES = 4096
#: Share of control bytes (NUL aside) above which a body is binary, not text.
MAX_CONTROL_RATIO = 0.05
#: Share of NUL bytes above which a body is binary.
MAX_NUL_RATIO = 0.30
#: Bytes given to charset detection (it is linear and slow: ~0.1 s per MB).
DETECT_BYTES = 256 * 1024

#: File signatures at offset 0 (a page starting with these bytes is no HTML).
SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"\x1f\x8b", "gzip"),
    (b"%PDF-", "pdf"),
    (b"PK\x03\x04", "zip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"(\xb5/\xfd", "zstd"),
    (b"7z\xbc\xaf'\x1c", "7z"),
    (b"\x7fELF", "elf"),
    (b"wOFF", "woff"),
    (b"wOF2", "woff2"),
    (b"OggS", "ogg"),
    (b"\x1aE\xdf\xa3", "webm"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole"),
    (b"SQLite format 3\x00", "sqlite"),
)
_CONTROL = bytes(b for b in range(1, 32) if b not in b"\t\n\r\x0b\x0c\x1b")
_UTF8 = "utf-8"
#: Encodings whose bytes the UTF-8 check must not second-guess.
_UNICODE = ("utf-8", "utf-16", "utf-32")
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _canonical(encoding: str | None) -> str:
    try:
        return codecs.lookup(encoding).name if encoding else ""
    except LookupError:
        return ""


def _legacy(encoding: str) -> bool:
    """A declared charset that is not a Unicode encoding (``_canonical`` names; "" is none)."""
    return bool(encoding) and not encoding.startswith(_UNICODE)


def utf16_without_bom(sample: bytes) -> str:
    """``"utf-16-le"``/``"utf-16-be"`` when every other byte is NUL (ASCII markup in UTF-16)."""
    if len(sample) < 16:
        return ""
    odd, even = sample[1::2], sample[0::2]
    if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "utf-16-be"
    return ""


def sniff_binary(body: bytes, content_type: str | None = None) -> str:
    """``"binary: <kind>"`` when the body is no text, else ``""``."""
    head = body[:SNIFF_BYTES]
    for magic, kind in SIGNATURES:
        if head.startswith(magic):
            return f"binary: {kind}"
    if head.startswith(_BOMS) or _canonical(http_content_type_encoding(content_type)).startswith(
        ("utf-16", "utf-32")
    ):
        return ""
    if utf16_without_bom(head):
        return ""
    return _ratios(head, len(head) - len(head.translate(None, _CONTROL)), head.count(0), "bytes")


def _ratios(head: bytes | str, control: int, nul: int, unit: str) -> str:
    if control > MAX_CONTROL_RATIO * len(head):
        return f"binary: {control} control {unit} in the first {len(head)}"
    if nul > MAX_NUL_RATIO * len(head):
        return f"binary: {nul} NUL {unit} in the first {len(head)}"
    return ""


def sniff_text(text: str) -> str:
    """``sniff_binary`` for text someone already decoded: the control-character share.

    The control characters (NUL among them) are counted in the head's UTF-8 bytes,
    where each is one byte of its own value and no other character has a byte under
    0x80: the bytes' ``translate`` and ``count`` are C loops, ``str.translate`` with a
    table a dict lookup per character and ``str.count`` of a NUL a loop per character
    on text beyond Latin-1.
    """
    head = text[:SNIFF_BYTES]
    raw = head.encode("utf-8", "surrogatepass")
    return _ratios(head, len(raw) - len(raw.translate(None, _CONTROL)), raw.count(0), "characters")


def _strict(body: bytes, encoding: str) -> str | None:
    try:
        return body.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _utf8_is_a_lie(body: bytes, text: str) -> bool:
    """More invalid UTF-8 sequences than valid multi-byte characters."""
    replaced = text.count("\ufffd")
    if not replaced:  # the usual case: no need to count the body's own U+FFFD
        return False
    bad = replaced - body.count(b"\xef\xbf\xbd")
    if bad <= 0:
        return False
    non_ascii = len(text) - len(text.encode("ascii", "ignore"))
    valid = non_ascii - text.count("\ufffd")
    return bad > valid


def _detected(body: bytes) -> str:
    from charset_normalizer import from_bytes  # a Scrapy dependency; imported when needed

    best = from_bytes(body[:DETECT_BYTES]).best()
    return _canonical(best.encoding) if best is not None else ""


def _repair_utf8(body: bytes) -> tuple[str, str] | None:
    """A better (encoding, text) for a body that is not the UTF-8 it claims to be."""
    guesses = (lambda: _canonical(html_body_declared_encoding(body)), lambda: _detected(body))
    for guess in guesses:  # detection (slow) runs only when the page's own <meta> fails
        encoding = guess()
        if encoding and encoding != _UTF8:
            text = _strict(body, encoding)
            # Detection saw only the head: accept a clean head, replace the rest.
            if text is None and len(body) > DETECT_BYTES and _strict(body[:DETECT_BYTES - 8], encoding) is not None:
                text = body.decode(encoding, errors="replace")
            if text is not None:
                return encoding, text
    return None


def decode_html(body: bytes, content_type: str | None = None) -> str:
    """Decode page bytes as a browser would, repairing an evidently false charset."""
    forced = "" if body.startswith(_BOMS) else utf16_without_bom(body[:SNIFF_BYTES])
    if forced and not http_content_type_encoding(content_type):
        content_type = f"text/html; charset={forced}"
    encoding, text = html_to_unicode(content_type, body)
    encoding = _canonical(encoding)
    if encoding == _UTF8 and _utf8_is_a_lie(body, text):
        repaired = _repair_utf8(body)
        if repaired is not None:
            logger.info("bytes are not the UTF-8 they claim to be; decoded as %s", repaired[0])
            encoding, text = repaired
    else:
        text = _utf8_despite(body, encoding) or text
    return text


def decodes_as_utf8(body: bytes, content_type: str | None = None) -> bool:
    """Whether ``decode_html(body, content_type)`` is ``body.decode("utf-8")``, told without
    decoding: no BOM, not UTF-16 without one, UTF-8 or nothing declared (or a non-Unicode
    charset over non-ASCII bytes, ``_utf8_despite``'s repair, logged as there), and every
    byte sequence valid. Then the text's UTF-8 bytes are ``body`` itself, and the parser
    takes them as they came (``page.parse_utf8``): most pages, and decoding them cost a
    twentieth of ``extract()`` (the text made, searched for U+FFFD, encoded again).

    False, and the body is decoded as before, where the package was built without a
    compiler: only the compiled ``_utf8.is_utf8`` tells validity without making the text.
    """
    if body.startswith(_BOMS) or utf16_without_bom(body[:SNIFF_BYTES]):
        return False
    declared = _declared(body, content_type)
    repaired = _legacy(declared) and not body.isascii()
    if (declared and declared != _UTF8 and not repaired) or not is_utf8(body):
        return False
    if repaired:
        logger.info(_DECLARED_BUT_UTF8, declared)
    return True


def text_is_utf8(body: bytes, content_type: str | None = None) -> bool:
    """Whether a Scrapy response's ``text`` is ``body.decode("utf-8")``: the parser can take
    the body as it came, and there is no charset to repair (``redecoded`` finds nothing
    on such a text).

    Told as Scrapy decodes, without asking ``response.encoding``, which decodes the whole
    body twice on a page that declares nothing: a BOM first (none here), then the
    header's charset, then the ``<meta>``'s; UTF-8 declared, or nothing, over valid UTF-8.
    With nothing declared Scrapy takes the first of ASCII (as windows-1252), UTF-8 and
    windows-1252 that decodes the body, which for valid UTF-8 reads the same characters
    (``tests/test_scrapy_workers.py`` holds the trees to Scrapy's).
    """
    return (not body.startswith(_BOMS) and _declared(body, content_type) in ("", _UTF8)
            and is_utf8(body))


def _declared(body: bytes, content_type: str | None) -> str:
    """The charset the header, else the page's ``<meta>``, declares (``_canonical``; "" for none)."""
    return _canonical(http_content_type_encoding(content_type) or html_body_declared_encoding(body))


def is_utf8(body: bytes) -> bool:
    """Whether ``body`` is valid UTF-8, told without making its text (compiled ``_utf8``);
    False without a compiler, so that callers decode the body as they did before."""
    return _is_utf8 is not None and _is_utf8(body)


#: ``_utf8_despite``'s log line: the repair of a charset the bytes are not in.
_DECLARED_BUT_UTF8 = "bytes declared %s are valid UTF-8; decoded as UTF-8"


def _utf8_despite(body: bytes, declared: str) -> str | None:
    """The body read as UTF-8 when ``declared`` is a non-Unicode charset and the bytes are
    valid UTF-8 with non-ASCII characters (the second repair above); else None."""
    if not _legacy(declared) or body.isascii():
        return None
    as_utf8 = _strict(body, _UTF8)
    if as_utf8 is None:
        return None
    logger.info(_DECLARED_BUT_UTF8, declared)
    return as_utf8.lstrip("\ufeff")


def redecoded(body: bytes, content_type: str | None, text: str) -> str | None:
    """A better decoding of ``body`` than ``text`` (e.g. Scrapy's ``response.text``), or None.

    For callers that decoded with the declared charset alone, as Scrapy does
    (the header's, else the page's ``<meta>``): it applies the two repairs of
    ``decode_html`` and returns the repaired text only when one of them
    applies, so the usual case costs a count of U+FFFD (and, when the
    declared charset is not a Unicode one, an ASCII check). A page in such a
    charset is not decoded again: only its bytes are tried as UTF-8.
    """
    encoding = _declared(body, content_type) or _UTF8
    if "\ufffd" in text and _utf8_is_a_lie(body, text):
        better = decode_html(body, content_type)
    else:
        better = _utf8_despite(body, encoding)
    return better if better is not None and better != text else None
