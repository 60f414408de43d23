"""The stored form of a site model: a small compressed JSON header and its arrays as raw bytes.

Up to format version 2 a model was stored as zlib-compressed JSON, its n-gram
tables as base64 inside it. Writing a 10-page site's model (some 45,000
n-grams) then took 14 ms, three quarters of it compressing base64 of hashed
keys, which hardly compresses (322 KB out of 720), and the rest building and
encoding JSON lists of a few thousand fingerprints: in a crawl of 10-page
sites, a sixth of what site learning cost. Now the texts and small counts go
in a JSON header (compressed: it is small) and every table is one array of
fixed-width integers (counts in the narrowest unsigned type that holds them),
written and read as bytes: a copy, no text, no compression.

Layout: ``MAGIC``, the header's length (4 bytes, little-endian), the header
(zlib-compressed JSON naming each array's name, dtype and length, in order),
then the arrays' bytes one after another. Nothing else is accepted: the
lengths must add up to the blob exactly, the dtypes come from ``DTYPES``,
and the header inflates to at most ``max_bytes``. Plain data, never pickle.
``read`` also reads the JSON of versions 1-2 (whose tables were base64,
``b64``), so stores written by earlier releases load unchanged.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any, Mapping

import numpy as np

from ..errors import ModelFormatError

#: The first bytes of the stored form; a zlib stream (format versions 1-2) never starts so.
MAGIC = b"SDM\x03"
#: The array types a stored model may hold (little-endian integers).
DTYPES = frozenset({"|u1", "<u2", "<u4", "<u8", "<i8"})
_LENGTH = 4


def narrowest(counts: np.ndarray) -> np.ndarray:
    """Non-negative counts in the smallest unsigned little-endian type that holds them all."""
    top = int(counts.max()) if len(counts) else 0
    for dtype in ("|u1", "<u2", "<u4"):
        if top <= np.iinfo(dtype).max:
            return counts.astype(dtype)
    return counts.astype("<u8")


def pack(header: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> bytes:
    """The stored form of a header (plain JSON data) and named integer arrays."""
    specs = [[name, a.dtype.str, len(a)] for name, a in arrays.items()]
    if any(dtype not in DTYPES for _, dtype, _ in specs):
        raise ValueError(f"array types must be among {sorted(DTYPES)}: {specs}")
    head = zlib.compress(json.dumps({**header, "arrays": specs},
                                    separators=(",", ":")).encode("utf-8"), 1)
    return b"".join([MAGIC, len(head).to_bytes(_LENGTH, "little"), head,
                     *(np.ascontiguousarray(a).tobytes() for a in arrays.values())])


def read(blob: bytes, max_bytes: int) -> tuple[Any, dict[str, np.ndarray] | None]:
    """(data, arrays) of a stored model of any format version: versions 1-2 were
    compressed JSON alone (arrays None), version 3 is ``pack``'s.

    Decompression stops at ``max_bytes`` (a zlib bomb in a shared store must
    not exhaust memory) and nesting too deep for ``json`` is refused like any
    other malformed blob: all a ModelFormatError.
    """
    if blob[:len(MAGIC)] == MAGIC:
        return unpack(blob, max_bytes)
    try:
        return json.loads(_inflate(blob, max_bytes, "site model").decode("utf-8")), None
    except (zlib.error, UnicodeDecodeError, ValueError, TypeError, RecursionError) as exc:
        raise ModelFormatError(f"site model is not valid compressed JSON: {exc!r:.200}") from None


def _inflate(data: bytes, max_bytes: int, what: str) -> bytes:
    """``data`` decompressed, refused past ``max_bytes`` (a zlib bomb in a shared store
    must not exhaust memory) or when the stream is incomplete."""
    inflater = zlib.decompressobj()
    raw = inflater.decompress(data, max_bytes)
    if inflater.unconsumed_tail:
        raise ModelFormatError(f"{what} inflates past {max_bytes:,} bytes; refused")
    if not inflater.eof:
        raise ModelFormatError(f"{what} is truncated (incomplete zlib stream)")
    return raw


def b64(a: np.ndarray) -> str:
    """An array's bytes as base64, as versions 1-2 kept n-gram tables inside JSON."""
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def unb64(s: str, dtype: str) -> np.ndarray:
    try:
        return np.frombuffer(base64.b64decode(s, validate=True), dtype=dtype).copy()
    except (ValueError, TypeError) as exc:
        raise ModelFormatError(f"bad array data: {exc}") from None


def unpack(blob: bytes, max_bytes: int) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(header, arrays by name) of a stored form; anything else is a ModelFormatError."""
    start = len(MAGIC) + _LENGTH
    if len(blob) < start or blob[:len(MAGIC)] != MAGIC:
        raise ModelFormatError("not a stored site model")
    end = start + int.from_bytes(blob[len(MAGIC):start], "little")
    if end > len(blob):
        raise ModelFormatError("site model header is truncated")
    try:
        header = json.loads(_inflate(blob[start:end], max_bytes, "site model header").decode("utf-8"))
        specs = header.pop("arrays")
        arrays, at = {}, end
        for name, dtype, length in specs:
            if dtype not in DTYPES or not isinstance(length, int) or length < 0:
                raise ModelFormatError(f"bad array {name!r} in a site model")
            size = np.dtype(dtype).itemsize * length
            if at + size > len(blob):
                raise ModelFormatError("site model is truncated")
            arrays[str(name)] = np.frombuffer(blob, dtype=dtype, count=length, offset=at)
            at += size
    except (zlib.error, UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError,
            RecursionError) as exc:
        raise ModelFormatError(f"site model is malformed: {exc!r:.200}") from None
    if at != len(blob):
        raise ModelFormatError("site model has bytes past its arrays")
    return header, arrays
