"""The crawl's near-duplicate index: for each page, the earliest page whose text nearly equals it.

``first_copy(url, text)`` answers and then indexes the page, in one step
under one lock (one transaction in Redis), so the pages of a crawl get a
rank, the order in which they were indexed, and "earliest" means the
lowest rank. A page is a near-duplicate of an indexed one when the share of
equal values in their MinHash signatures (the estimated Jaccard similarity
of their shingle sets, ``signature``) is at least the threshold.

Candidates come from locality-sensitive hashing over ``bands(threshold)``:
with more bands than a signature at the threshold may have unequal values,
every pair at or above it shares a whole band, so the index misses none;
each candidate is then checked on its full signature, so none below the
threshold is reported. Given its raw bytes too, a page is also a copy of
the earliest page with the same bytes, whatever their texts. A page whose
signature equals an indexed page's is answered but not indexed again (an
exact copy adds nothing to compare against), and so is a page once the
index holds ``MAX_PAGES`` pages: the earliest pages are the ones kept, so
every answer stays an earliest page.
"""

from __future__ import annotations

import hashlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable

import numpy as np

from .signature import PERMUTATIONS, Signer

#: Estimated Jaccard similarity from which a page is a near-duplicate of an earlier one.
DEFAULT_THRESHOLD = 0.9
#: The lowest threshold accepted: below it, pages that only share phrases become candidates
#: of each other in numbers (a band of two or three values), and every look-up slows down.
MIN_THRESHOLD = 0.8
#: Pages an index holds by default (``DECLUTTER_DUPLICATE_MAX_PAGES``): about 5 KB each,
#: in the crawl process or in Redis, so about 1.2 GB when full (see docs/output.md).
MAX_PAGES = 250_000
#: Pages found to be a near-duplicate of an earlier page.
STAT = "declutter/duplicates"
#: Pages not checked because the index's store could not be reached.
UNAVAILABLE_STAT = "declutter/duplicates/unavailable"


def bands(threshold: float, permutations: int = PERMUTATIONS) -> tuple[int, int]:
    """(bands, rows per band): one band more than the unequal values a signature at the
    threshold may have, so that such a pair always agrees on at least one band (two at
    least, which datasketch asks for)."""
    count = max(2, int((1.0 - threshold) * permutations + 1e-9) + 1)
    return count, permutations // count


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """The estimated Jaccard similarity of two signatures: the share of equal values."""
    return float(np.count_nonzero(a == b)) / a.size


def earliest(url: str, signature: np.ndarray, indexed: Iterable[tuple[int, str, np.ndarray]],
             threshold: float) -> tuple[tuple[int, str] | None, bool]:
    """((rank, URL) of the earliest indexed page similar enough to this one, or None; whether
    one of them has this very signature or URL, so this page needs no entry of its own).

    ``indexed`` is (rank, url, signature) of the candidates.
    """
    first: tuple[int, str] | None = None
    known = False
    for rank, other, values in indexed:
        if similarity(signature, values) < threshold:
            continue
        known = known or other == url or bool(np.array_equal(signature, values))
        if first is None or rank < first[0]:
            first = (rank, other)
    return first, known


def answer(url: str, first: tuple[int, str] | None,
           same_body: tuple[int, str] | None) -> tuple[tuple[int, str] | None, str | None]:
    """(the page's first copy by text or by body, whichever ranks earlier; the URL to report).

    The page's own URL is never its own duplicate: when it comes first, the
    page was its own first copy and the answer is None.
    """
    if same_body is not None and (first is None or same_body[0] < first[0]):
        first = same_body
    return first, (None if first is None or first[1] == url else first[1])


def body_key(body: bytes | None) -> bytes | None:
    """A digest of a page's raw bytes: pages with the same bytes are copies, whatever text
    their extractions gave (site learning labels a page by what it knew when it came)."""
    return None if not body else hashlib.blake2b(body, digest_size=16).digest()


class DuplicateIndex(ABC):
    """Pages of one crawl, by signature; ``first_copy`` is the one call a crawl makes per page."""

    #: The URI of the store the index lives in, for messages.
    uri: str = "memory:"

    def __init__(self, *, threshold: float = DEFAULT_THRESHOLD,
                 max_pages: int = MAX_PAGES) -> None:
        if not MIN_THRESHOLD <= threshold <= 1.0:
            raise ValueError(f"threshold {threshold} is not from {MIN_THRESHOLD} to 1")
        self.threshold = threshold
        self.max_pages = max_pages
        self.signer = Signer()
        self.bands, self.rows = bands(threshold, self.signer.permutations)

    def first_copy(self, url: str, text: str | None, *, body: bytes | None = None) -> str | None:
        """The URL of the earliest indexed page whose text is a near-duplicate of ``text``, or
        whose raw bytes equal ``body`` (the response's, if given), else None; then the page is
        indexed. A text without words is never a duplicate and never indexed. Raises
        StoreUnavailableError when a shared index cannot be reached."""
        return self.first_copy_of(url, self.signer.signature(text), body=body)

    def first_copy_of(self, url: str, signature: np.ndarray | None, *,
                      body: bytes | None = None) -> str | None:
        """``first_copy`` for a signature made elsewhere: a worker process's ``Signer`` draws
        the same permutations from the same seed, so its values are this index's."""
        if signature is None:
            return None
        return self._first_copy(url, signature, body_key(body))

    @abstractmethod
    def _first_copy(self, url: str, signature: np.ndarray, body: bytes | None) -> str | None:
        """Answer for a page with words (its MinHash values and ``body_key``), and index it
        (see the module's note)."""

    def close(self) -> None:
        """Release what the index holds; a shared index is deleted by its last user unless kept."""

    def __enter__(self) -> "DuplicateIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class MemoryIndex(DuplicateIndex):
    """The index in this process (datasketch's ``MinHashLSH``), gone when the crawl ends."""

    def __init__(self, *, threshold: float = DEFAULT_THRESHOLD,
                 max_pages: int = MAX_PAGES) -> None:
        from datasketch import LeanMinHash, MinHashLSH

        super().__init__(threshold=threshold, max_pages=max_pages)
        self._lean = LeanMinHash
        self._lsh = MinHashLSH(num_perm=self.signer.permutations, params=(self.bands, self.rows))
        self._pages: list[tuple[str, np.ndarray]] = []  # by rank
        self._bodies: dict[bytes, tuple[int, str]] = {}  # body key -> its first copy
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pages)

    def _first_copy(self, url: str, signature: np.ndarray, body: bytes | None) -> str | None:
        minhash = self._lean(seed=self.signer.seed, hashvalues=signature, scheme="affine32")
        with self._lock:
            candidates = [(rank, *self._pages[rank]) for rank in self._lsh.query(minhash)]
            by_text, known = earliest(url, signature, candidates, self.threshold)
            first, reported = answer(url, by_text, self._bodies.get(body) if body else None)
            if not known and len(self._pages) < self.max_pages:
                self._lsh.insert(len(self._pages), minhash, check_duplication=False)
                self._pages.append((url, signature))
                first = first or (len(self._pages) - 1, url)
            if body and first is not None:
                self._bodies.setdefault(body, first)
        return reported
