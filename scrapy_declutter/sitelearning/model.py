"""What is learned per site: block fingerprints, places, pages seen, and the n-gram classifier.

A fingerprint or structural key (``places``) seen on ``TEMPLATE_SHARE`` of the
site's pages, once it has ``MIN_PAGES``, is template; the container counts, per
place, the pages whose confident content it held. Memory is bounded per site:
``MAX_FINGERPRINTS`` keys of each kind (the most frequent survive), counts
halved every ``DECAY_AT`` pages (a redesign's template takes over), ``MAX_URLS``
URL hashes. A SiteModel is also a *delta*: one process's updates since its last
write, which a store adds to what it holds (``merge``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..errors import ModelFormatError, ModelVersionError
from .fingerprints import hash_text
from .modelbytes import narrowest, pack, unpack
from .ngram import FORMAT_VERSION as NGRAM_FORMAT_VERSION
from .ngram import NGramClassifier

#: Largest decompressed site model header accepted from a store.
MAX_MODEL_BYTES = 8 * 1024 * 1024
#: Share of the site's pages a fingerprint must be seen on to be template.
TEMPLATE_SHARE = 0.5
#: Pages a site must have shown before any fingerprint counts as template.
MIN_PAGES = 2
#: And a template fingerprint must have been seen on at least this many pages.
MIN_TEMPLATE_PAGES = 2
#: Fingerprints kept per site (an eviction runs past 5/4 of this).
MAX_FINGERPRINTS = 4096
#: Halve all counts when a site reaches this many pages (exponential decay).
DECAY_AT = 512
#: Example texts kept per site for ``sites show``, one per key that reached
#: ``MIN_TEMPLATE_PAGES`` pages, each cut to ``EXAMPLE_CHARS``.
MAX_EXAMPLES = 128
EXAMPLE_CHARS = 200
#: Container places kept per site (the most frequent).
MAX_CONTAINERS = 64
#: URL hashes remembered per site, so a re-crawled page is not counted twice.
MAX_URLS = 4096
#: Format version of ``to_bytes`` (``modelbytes``); a newer one is refused on load.
FORMAT_VERSION = 3
FORMAT_NAME = "scrapy-declutter/site-model"

#: Rough bytes an entry and a model hold in memory: the working-set estimate.
ENTRY_BYTES = 100
MODEL_BYTES = 4096


def _capped(counts: dict[int, int]) -> dict[int, int]:
    """The ``MAX_FINGERPRINTS`` most frequent keys (newest first among equals) past 5/4 of it."""
    if len(counts) <= MAX_FINGERPRINTS * 5 // 4:
        return counts
    ranked = sorted(counts.values(), reverse=True)
    cut = ranked[MAX_FINGERPRINTS - 1]
    tied = [key for key, n in counts.items() if n == cut]  # oldest first: dicts keep order
    newest = set(tied[len(tied) - (MAX_FINGERPRINTS - ranked.index(cut)):])
    return {key: n for key, n in counts.items() if n > cut or key in newest}


@dataclass
class SiteModel:
    """The learned state of one site (or an increment of it, see the module docstring)."""

    site: str
    pages: int = 0
    fingerprints: dict[int, int] = field(default_factory=dict)
    #: Structural keys (``places.keyed_at``) and the pages each was seen on.
    structures: dict[int, int] = field(default_factory=dict)
    #: Place (``places.containers``) -> pages whose confident content it held.
    containers: dict[str, int] = field(default_factory=dict)
    urls: dict[int, None] = field(default_factory=dict)  # an ordered set, oldest first
    #: Fingerprint or structural key -> "text @ path" of one block it was seen on (``sites show``).
    examples: dict[int, str] = field(default_factory=dict)
    classifier: NGramClassifier = field(default_factory=NGramClassifier)
    #: Pages labelled by the user (selector, markers): the classifier has true labels.
    supervised: int = 0
    #: When a page was last learned (seconds since the epoch; 0: never), for ``sites show``.
    updated: float = field(default=0.0, compare=False)

    def template_threshold(self, *, share: float = TEMPLATE_SHARE, min_pages: int = MIN_PAGES) -> float:
        """Pages a fingerprint must be seen on to be template now (inf: not enough pages yet)."""
        if self.pages < min_pages:
            return float("inf")
        return max(MIN_TEMPLATE_PAGES, share * self.pages)

    def container(self, threshold: float) -> str | None:
        """The site's content container: the deepest place on ``threshold`` pages (the places a
        page counts are nested), if any."""
        common = [place for place, n in self.containers.items() if n >= threshold]
        return max(common, key=len) if common else None

    def seen_url(self, url: str | None) -> bool:
        return bool(url) and hash_text(url) in self.urls

    def observe(self, fingerprints: Sequence[int], url: str | None = None,
                structures: Sequence[int] = (), containers: Sequence[str] = (),
                samples: Mapping[int, tuple[str, str]] | None = None) -> None:
        """Count one page: each distinct fingerprint and structural key (0: none) once, the
        containers that held its confident content, and the page; ``samples`` a (text, path)
        per key, the example of a key that reaches ``MIN_TEMPLATE_PAGES`` now."""
        self.pages += 1
        self.updated = time.time()
        known = self.fingerprints  # a page has a few hundred: no attribute look-ups per one
        get = known.get
        for fp in set(fingerprints):
            n = known[fp] = get(fp, 0) + 1
            if n == MIN_TEMPLATE_PAGES and samples and fp in samples:
                self._example(fp, samples[fp])
        counts = self.structures
        for key in dict.fromkeys(structures):  # each once, in order; most blocks have none (0)
            if not key:
                continue
            n = counts[key] = counts.get(key, 0) + 1
            if n == MIN_TEMPLATE_PAGES and samples and key in samples:
                self._example(key, samples[key])
        for place in containers:
            self.containers[place] = self.containers.get(place, 0) + 1
        if url:
            self.urls[hash_text(url)] = None
        self.bound()

    def _example(self, key: int, sample: tuple[str, str]) -> None:
        if key not in self.examples and len(self.examples) < MAX_EXAMPLES:
            text, path = sample
            self.examples[key] = f"{text[:EXAMPLE_CHARS // 2]} @ {path[-EXAMPLE_CHARS // 2:]}"

    def merge(self, other: "SiteModel") -> "SiteModel":
        """Add another model (a delta) to this one; returns self."""
        self.pages += other.pages
        self.supervised += other.supervised
        self.updated = max(self.updated, other.updated)
        for fp, n in other.fingerprints.items():
            self.fingerprints[fp] = self.fingerprints.get(fp, 0) + n
        for key, n in other.structures.items():
            self.structures[key] = self.structures.get(key, 0) + n
        for place, n in other.containers.items():
            self.containers[place] = self.containers.get(place, 0) + n
        for key, text in other.examples.items():
            if len(self.examples) < MAX_EXAMPLES:
                self.examples.setdefault(key, text)
        for h in other.urls:
            self.urls.pop(h, None)
            self.urls[h] = None
        self.classifier.merge(other.classifier)
        self.bound()
        return self

    def bound(self) -> None:
        """Apply decay and the caps (see the module docstring)."""
        while self.pages >= DECAY_AT:
            self.pages //= 2
            self.fingerprints = {fp: n // 2 for fp, n in self.fingerprints.items() if n >= 2}
            self.structures = {k: n // 2 for k, n in self.structures.items() if n >= 2}
            self.containers = {k: n // 2 for k, n in self.containers.items() if n >= 2}
        self.fingerprints = _capped(self.fingerprints)
        if len(self.structures) > MAX_FINGERPRINTS * 5 // 4:
            self.structures = _capped(self.structures)
            self.examples = {k: t for k, t in self.examples.items() if k in self.structures}
        if len(self.containers) > MAX_CONTAINERS:
            top = sorted(self.containers.items(), key=lambda item: -item[1])[:MAX_CONTAINERS]
            self.containers = dict(top)
        while len(self.urls) > MAX_URLS:
            del self.urls[next(iter(self.urls))]

    def estimated_bytes(self) -> int:
        """Memory this model holds, estimated in O(1): what a cache of models is bounded by."""
        entries = len(self.fingerprints) + len(self.structures) + len(self.urls)
        return MODEL_BYTES + ENTRY_BYTES * entries + self.classifier.estimated_bytes()

    def to_bytes(self) -> bytes:
        """The stored form (``modelbytes``): the tables as arrays of bytes; plain data, never pickle."""
        arrays: dict[str, np.ndarray] = {}
        for name, counts in (("fingerprints", self.fingerprints), ("structures", self.structures)):
            arrays[name] = np.fromiter(counts.keys(), dtype="<i8", count=len(counts))
            arrays[f"{name}_counts"] = narrowest(
                np.fromiter(counts.values(), dtype=np.int64, count=len(counts)))
        arrays["urls"] = np.fromiter(self.urls, dtype="<i8", count=len(self.urls))
        arrays.update(self.classifier.arrays())
        return pack({"format": FORMAT_NAME, "version": FORMAT_VERSION, "site": self.site,
                     "pages": self.pages, "supervised": self.supervised, "updated": self.updated,
                     "containers": [[k, n] for k, n in self.containers.items()],
                     "examples": [[k, t] for k, t in self.examples.items()],
                     "classifier": self.classifier.header()}, arrays)

    @classmethod
    def from_bytes(cls, blob: bytes) -> "SiteModel":
        """Read a stored model; anything but a well-formed one is a ModelFormatError, a newer
        format a ModelVersionError."""
        data, arrays = unpack(blob, MAX_MODEL_BYTES)
        if data.get("format") != FORMAT_NAME:
            raise ModelFormatError("not a scrapy-declutter site model")
        version = data.get("version")
        if not isinstance(version, int) or version < FORMAT_VERSION:
            raise ModelFormatError(f"bad site model version {version!r}")
        clf_version = (data.get("classifier") or {}).get("version", 0)
        if version > FORMAT_VERSION or (isinstance(clf_version, int)
                                        and clf_version > NGRAM_FORMAT_VERSION):
            raise ModelVersionError(f"site model format version {version} (classifier "
                                    f"{clf_version}) is newer than this release reads "
                                    f"({FORMAT_VERSION}); upgrade scrapy-declutter or use "
                                    "another store")
        try:
            model = cls(
                site=str(data["site"]),
                pages=int(data["pages"]),
                fingerprints=dict(zip(arrays["fingerprints"].tolist(),
                                      arrays["fingerprints_counts"].tolist())),
                structures=dict(zip(arrays["structures"].tolist(),
                                    arrays["structures_counts"].tolist())),
                containers={str(k): int(n) for k, n in data["containers"][:MAX_CONTAINERS]},
                urls=dict.fromkeys(arrays["urls"].tolist()),
                examples={int(k): str(t)[:EXAMPLE_CHARS]
                          for k, t in data["examples"][:MAX_EXAMPLES]},
                classifier=NGramClassifier.from_header(data["classifier"], arrays),
                supervised=int(data["supervised"]),
                updated=float(data["updated"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFormatError(f"bad site model data: {exc!r}") from None
        if model.pages < 0 or any(min(counts.values(), default=0) < 0 for counts in (
                model.fingerprints, model.structures, model.containers)):
            raise ModelFormatError("bad site model data: negative counts")
        return model
