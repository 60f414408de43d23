"""The stored form of a site model: a small compressed JSON header and its arrays as raw bytes.

``MAGIC``, the header's length (4 bytes, little-endian), the zlib-compressed JSON
header naming each array's name, dtype and length, then the arrays' bytes. The
lengths must add up to the blob, the dtypes come from ``DTYPES`` and the header
inflates to at most ``max_bytes`` (a zlib bomb must not exhaust memory). Never pickle.
"""

from __future__ import annotations

import json
import zlib
from typing import Any, Mapping

import numpy as np

from ..errors import ModelFormatError

#: The first bytes of the stored form.
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
