"""A bounded memo of a function of one string: what site learning caches its text hashes in.

Site learning hashes the same short texts on page after page of a site (menus,
footers, bylines, element paths), so it keeps their hashes. It kept them in
``functools.lru_cache``\\ s of 32,768 entries each, and those cost the crawl
more than they saved: an LRU cache is a linked list of one object per entry,
and every full garbage collection walks it, entry by entry, across the heap.
With three such caches filled, a full collection of the crawl took some 30 ms
more (four times as long as without site learning, in a crawl that runs one
every fifty pages). A plain dict whose keys are strings and whose values are
ints or strings holds nothing the collector tracks, so CPython stops tracking
the dict itself, and no collection looks at it. When full it is emptied, not
trimmed: the hashes a site needs come back on its next page, and emptying
costs nothing per look-up, where recency would.
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """``function(key)`` remembered for up to ``size`` keys (see the module docstring).

    ``values`` is the dict itself, for a loop that looks up many keys
    (``values.get(key)``, then the memo for a miss); it is emptied in place,
    never replaced.
    """

    __slots__ = ("function", "size", "values")

    def __init__(self, function: Callable[[K], V], size: int) -> None:
        self.function = function
        self.size = size
        self.values: dict[K, V] = {}

    def __call__(self, key: K) -> V:
        value = self.values.get(key)
        if value is None:
            if len(self.values) >= self.size:
                self.values.clear()
            value = self.values[key] = self.function(key)
        return value

    def clear(self) -> None:
        self.values.clear()
