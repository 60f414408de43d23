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
threshold is reported. A page whose signature equals an indexed page's is
answered but not indexed again (an exact copy adds nothing to compare
against), and so is a page once the index holds ``MAX_PAGES`` pages: the
earliest pages are the ones kept, so every answer stays an earliest page.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

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
             threshold: float) -> tuple[str | None, bool]:
    """(URL of the earliest indexed page similar enough to this one, whether one of them has
    this very signature or URL, so this page needs no entry of its own).

    ``indexed`` is (rank, url, signature) of the candidates. The page's own
    URL is never its own duplicate: when it comes first among the similar
    ones, the page was its own first copy and the answer is None.
    """
    first: tuple[int, str] | None = None
    known = False
    for rank, other, values in indexed:
        if similarity(signature, values) < threshold:
            continue
        known = known or other == url or bool(np.array_equal(signature, values))
        if first is None or rank < first[0]:
            first = (rank, other)
    if first is None or first[1] == url:
        return None, known
    return first[1], known


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

    def first_copy(self, url: str, text: str | None) -> str | None:
        """The URL of the earliest indexed page whose text is a near-duplicate of ``text``,
        else None; then the page is indexed. A text without words is never a duplicate and
        never indexed. Raises StoreUnavailableError when a shared index cannot be reached."""
        minhash = self.signer.minhash(text)
        if minhash is None:
            return None
        return self._first_copy(url, minhash)

    @abstractmethod
    def _first_copy(self, url: str, minhash: Any) -> str | None:
        """Answer for a page with words (its ``datasketch.MinHash``), and index it (see the
        module's note)."""

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
        from datasketch import MinHashLSH

        super().__init__(threshold=threshold, max_pages=max_pages)
        self._lsh = MinHashLSH(num_perm=self.signer.permutations, params=(self.bands, self.rows))
        self._pages: list[tuple[str, np.ndarray]] = []  # by rank
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pages)

    def _first_copy(self, url: str, minhash: Any) -> str | None:
        signature = minhash.hashvalues
        with self._lock:
            candidates = [(rank, *self._pages[rank]) for rank in self._lsh.query(minhash)]
            answer, known = earliest(url, signature, candidates, self.threshold)
            if not known and len(self._pages) < self.max_pages:
                self._lsh.insert(len(self._pages), minhash, check_duplication=False)
                self._pages.append((url, signature))
        return answer
