"""What is learned per site: block fingerprints, places, pages seen, and the n-gram classifier.

A fingerprint is a hash of a block's normalised text (lower-cased, digit runs
folded to ``0``, whitespace collapsed, so "© 2024" and "Page 3 of 12" match
their siblings on other pages). Each is counted once per page. A fingerprint
seen on at least ``TEMPLATE_SHARE`` of the site's pages, once the site has
``MIN_PAGES`` pages, is part of the template: boilerplate. So is a
*structural key* (``places.structure_key``: the block's tag/id/class path and
its text with names folded too) on that share of pages. The *container* counts,
per place (``places.containers``), the pages whose confident content it held.

Memory is bounded per site, whatever the crawl's length:

* fingerprints and structural keys: at most ``MAX_FINGERPRINTS`` each (the most frequent, newest
  first among equals, survive an eviction), and every ``DECAY_AT`` pages all
  counts and the page count are halved, so a redesign's new template reaches
  the share within about ``DECAY_AT / 2`` pages;
* URLs already counted: the last ``MAX_URLS`` (hashes), so re-crawling a page
  does not count it twice;
* the classifier: ``ngramlm.MAX_ENTRIES`` n-grams per class (pruned).

A SiteModel also serves as a *delta*: the updates one process made since it
last wrote, which a store adds to what it holds (``merge``), so concurrent
writers add up instead of overwriting each other.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from importlib import import_module
from types import ModuleType
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import ModelFormatError, ModelVersionError
from .memo import Memo
from .modelbytes import narrowest, pack, read
from .ngram import FORMAT_VERSION as NGRAM_FORMAT_VERSION
from .ngram import NGramClassifier

#: Largest decompressed site model accepted from a store: a model at every
#: cap stores as about 0.5 MB of compressed JSON, a few MB inflated.
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
#: Example texts kept per site, one per fingerprint or structural key that reached
#: ``MIN_TEMPLATE_PAGES`` pages, for ``sites show`` (hashes alone say nothing to a person),
#: each cut to ``EXAMPLE_CHARS``.
MAX_EXAMPLES = 128
EXAMPLE_CHARS = 200
#: Container places kept per site (the most frequent).
MAX_CONTAINERS = 64
#: URL hashes remembered per site, so a re-crawled page is not counted twice.
MAX_URLS = 4096
#: Format version of ``to_bytes``; a newer one is refused on load.
#: Version 2 added ``structures``, ``examples`` and ``containers``; a version-1 model
#: loads with none and learns them from the pages that follow. Version 3 stores the
#: tables as arrays of bytes (``modelbytes``) instead of compressed JSON; versions 1-2
#: load unchanged.
FORMAT_VERSION = 3
FORMAT_NAME = "scrapy-declutter/site-model"

#: Rough bytes one fingerprint or URL entry holds in memory (dict slot and int objects), and
#: the fixed cost of a model: the working-set estimate, not an exact measure.
ENTRY_BYTES = 100
MODEL_BYTES = 4096

_DIGITS = re.compile(r"\d+")
#: URLs and month names vary on a line the site prints on every page ("Archived on
#: 3 March 2024 from http://..."): folded, such a line has one fingerprint.
_URLS = re.compile(r"(?:https?://|www\.)\S+")
_MONTHS = re.compile(r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
                     r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b")
HASH_MASK = (1 << 63) - 1  # fits SQLite INTEGER and JSON exactly
#: Fingerprints of block texts up to ``CACHED_CHARS`` long are cached (``FINGERPRINT_CACHE``
#: of them, a few MB, in a ``memo.Memo``): a site's template blocks (menus, footers,
#: bylines) are short and recur on each of its pages.
CACHED_CHARS = 256
FINGERPRINT_CACHE = 1 << 15


def python_normalise(text: str) -> str:
    """Block text as fingerprints see it: lower case, URLs, month names and digit runs folded.

    A URL becomes ``<url>``, an English month name or abbreviation ``<month>``,
    a digit run ``0``; spaces are single. The reference of ``_fingerprint.normalise``,
    and what runs without it.
    """
    text = text.lower()
    if "http" in text or "www." in text:  # what every URL the pattern folds starts with
        text = _URLS.sub("<url>", text)
    return " ".join(_DIGITS.sub("0", _MONTHS.sub("<month>", text)).split())


def hash_text(text: str) -> int:
    """A 63-bit hash of a string (stable across processes, unlike ``hash``)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") & HASH_MASK


def python_fingerprint(text: str) -> int:
    """The hash of the normalised text: the reference of ``_fingerprint.fingerprint``."""
    return hash_text(python_normalise(text))


try:  # by name, as ``counts`` loads ``_counts``: the import graph sees only .py modules
    _compiled: ModuleType | None = import_module(f"{__package__}._fingerprint")
except ImportError:  # built without a compiler: the regular expressions
    _compiled = None
#: ``normalise(text)``: ``python_normalise``, in one pass where the package was compiled.
normalise: Callable[[str], str] = _compiled.normalise if _compiled else python_normalise
_fingerprint: Callable[[str], int] = _compiled.fingerprint if _compiled else python_fingerprint


#: The fingerprints of short texts (``CACHED_CHARS``) seen lately.
_CACHED: Memo[str, int] = Memo(_fingerprint, FINGERPRINT_CACHE)


def fingerprint(text: str) -> int:
    """The 63-bit fingerprint of a block's text."""
    if len(text) <= CACHED_CHARS:
        return _CACHED(text)
    return _fingerprint(text)


def fingerprints(texts: Sequence[str]) -> list[int]:
    """The fingerprints of a page's block texts, in order (``fingerprint`` inlined: a page
    has a few hundred blocks, and a call is a tenth of what a cached one costs)."""
    known, cached, uncached = _CACHED.values, _CACHED, _fingerprint
    return [(known.get(text) or cached(text)) if len(text) <= CACHED_CHARS else uncached(text)
            for text in texts]


#: ``hash_text`` in C where compiled (the same hashes): a page's URL is hashed up to three
#: times, and ``hashlib``'s object and digest cost more than the hash.
_hash_text: Callable[[str], int] = _compiled.hash_text if _compiled else hash_text


def url_hash(url: str) -> int:
    return _hash_text(url)


def _capped(counts: dict[int, int]) -> dict[int, int]:
    """The ``MAX_FINGERPRINTS`` most frequent keys (newest first among equals) past 5/4 of it."""
    if len(counts) <= MAX_FINGERPRINTS * 5 // 4:
        return counts
    # dicts keep insertion order: a larger rank is a newer key
    ranked = sorted(enumerate(counts.items()), key=lambda item: (item[1][1], item[0]), reverse=True)
    return {key: n for _, (key, n) in sorted(ranked[:MAX_FINGERPRINTS])}


@dataclass
class SiteModel:
    """The learned state of one site (or an increment of it, see the module docstring)."""

    site: str
    pages: int = 0
    fingerprints: dict[int, int] = field(default_factory=dict)
    #: Structural keys (``places.structure_key``) and the pages each was seen on.
    structures: dict[int, int] = field(default_factory=dict)
    #: Place (``places.containers``) -> pages whose confident content it held.
    containers: dict[str, int] = field(default_factory=dict)
    urls: dict[int, None] = field(default_factory=dict)  # an ordered set, oldest first
    #: Fingerprint or structural key -> "text @ path" of one block it was seen on (``sites show``).
    examples: dict[int, str] = field(default_factory=dict)
    classifier: NGramClassifier = field(default_factory=NGramClassifier)
    #: Pages labelled by the user (selector, markers): the classifier has true labels.
    supervised: int = 0
    #: False: ``classifier`` lacks the n-gram tables (``from_bytes(..., ngrams=False)``,
    #: ``drop_ngrams``) and does not train them, for a ``Declutter`` that never reads them
    #: (the site's delta trains them); never stored whole. Not part of the stored form.
    ngrams: bool = field(default=True, compare=False, repr=False)
    #: When a page was last learned (seconds since the epoch; 0: never), for ``sites show``.
    updated: float = field(default=0.0, compare=False)

    # -- template -----------------------------------------------------------
    def template_threshold(self, *, share: float = TEMPLATE_SHARE, min_pages: int = MIN_PAGES) -> float:
        """Pages a fingerprint must be seen on to be template now (inf: not enough pages yet)."""
        if self.pages < min_pages:
            return float("inf")
        return max(MIN_TEMPLATE_PAGES, share * self.pages)

    def container(self, threshold: float) -> str | None:
        """The site's content container: the deepest place on ``threshold`` pages, if any.

        The places a page counts are nested (each holds most of its content),
        so the deepest one most pages count is the container they share.
        """
        common = [place for place, n in self.containers.items() if n >= threshold]
        return max(common, key=len) if common else None

    # -- learning -------------------------------------------------------------
    def seen_url(self, url: str | None) -> bool:
        return bool(url) and url_hash(url) in self.urls

    def observe(self, fingerprints: Sequence[int], url: str | None = None,
                structures: Sequence[int] = (), containers: Sequence[str] = (),
                samples: Mapping[int, tuple[str, str]] | None = None) -> None:
        """Count one page: each distinct fingerprint and structural key once, the page once.

        ``structures`` are the blocks' structural keys (0: none), ``samples``
        a (text, path) per key, read only for a key that reaches
        ``MIN_TEMPLATE_PAGES`` pages now: its example for ``sites show``.
        ``containers`` are the places that held the page's confident content.
        """
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
            self.urls[url_hash(url)] = None
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
        self.ngrams = self.ngrams and other.ngrams
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

    def drop_ngrams(self) -> None:
        """Let the n-gram tables go, as if read with ``ngrams=False`` (a snapshot took them)."""
        self.classifier = self.classifier.without_tables()
        self.ngrams = False

    def estimated_bytes(self) -> int:
        """Memory this model holds, estimated in O(1): what a cache of models is bounded by."""
        entries = len(self.fingerprints) + len(self.structures) + len(self.urls)
        return MODEL_BYTES + ENTRY_BYTES * entries + self.classifier.estimated_bytes()

    def copy(self) -> "SiteModel":
        return SiteModel.from_bytes(self.to_bytes())

    def snapshot(self) -> "SiteModel":
        """This model as it stands, for a writer thread to serialise while this one learns on.

        Its counts are copied (dicts of a few thousand ints) and its n-gram
        arrays shared (``NGramClassifier.snapshot``): a fraction of a
        millisecond where ``copy`` serialises the whole model.
        """
        return SiteModel(site=self.site, pages=self.pages, fingerprints=dict(self.fingerprints),
                         structures=dict(self.structures), containers=dict(self.containers),
                         urls=dict(self.urls), examples=dict(self.examples),
                         classifier=self.classifier.snapshot(), supervised=self.supervised,
                         ngrams=self.ngrams, updated=self.updated)

    # -- data -------------------------------------------------------------------
    def to_data(self) -> dict[str, Any]:
        """The model as JSON-ready data, its n-gram tables as base64 (``NGramLM.to_data``)."""
        return {
            **self._header(),
            "fingerprints": [[fp, n] for fp, n in self.fingerprints.items()],
            "structures": [[k, n] for k, n in self.structures.items()],
            "urls": list(self.urls),
            "classifier": self.classifier.to_data(),
        }

    def _header(self) -> dict[str, Any]:
        """What both forms hold as JSON: everything but the tables."""
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "site": self.site,
            "pages": self.pages,
            "supervised": self.supervised,
            "updated": self.updated,
            "containers": [[k, n] for k, n in self.containers.items()],
            "examples": [[k, t] for k, t in self.examples.items()],
        }

    def to_bytes(self) -> bytes:
        """The stored form (``modelbytes``): the tables as arrays of bytes; plain data, never pickle."""
        if not self.ngrams:  # stored whole, it would lose the site's tables
            raise ValueError(f"the model of {self.site!r} is without its n-gram tables")
        arrays: dict[str, np.ndarray] = {}
        for name, counts in (("fingerprints", self.fingerprints), ("structures", self.structures)):
            arrays[name] = np.fromiter(counts.keys(), dtype="<i8", count=len(counts))
            arrays[f"{name}_counts"] = narrowest(
                np.fromiter(counts.values(), dtype=np.int64, count=len(counts)))
        arrays["urls"] = np.fromiter(self.urls, dtype="<i8", count=len(self.urls))
        arrays.update(self.classifier.arrays())
        return pack({**self._header(), "classifier": self.classifier.header()}, arrays)

    @classmethod
    def from_data(cls, data: Any, arrays: Mapping[str, np.ndarray] | None = None, *,
                  ngrams: bool = True) -> "SiteModel":
        """A model from ``to_data`` (JSON-ready: versions 1-2 were stored so), or from a
        stored form's header and ``arrays`` (``to_bytes``); ``ngrams``: the field's."""
        if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
            raise ModelFormatError("not a scrapy-declutter site model")
        version = data.get("version")
        if not isinstance(version, int) or version < 1:
            raise ModelFormatError(f"bad site model version {version!r}")
        clf_version = (data.get("classifier") or {}).get("version", 0)
        if version > FORMAT_VERSION or (isinstance(clf_version, int) and clf_version > NGRAM_FORMAT_VERSION):
            raise ModelVersionError(f"site model format version {version} (classifier {clf_version}) "
                                    f"is newer than this release reads ({FORMAT_VERSION}); upgrade "
                                    "scrapy-declutter or use another store")
        try:
            if arrays is None:
                fingerprints = {int(fp): int(n) for fp, n in data["fingerprints"]}
                structures = {int(k): int(n) for k, n in data.get("structures", ())}
                urls = dict.fromkeys(int(h) for h in data["urls"])
            else:  # ``tolist`` gives Python ints already: a site is loaded every few pages
                fingerprints = dict(zip(arrays["fingerprints"].tolist(),
                                        arrays["fingerprints_counts"].tolist()))
                structures = dict(zip(arrays["structures"].tolist(),
                                      arrays["structures_counts"].tolist()))
                urls = dict.fromkeys(arrays["urls"].tolist())
            model = cls(
                site=str(data["site"]),
                pages=int(data["pages"]),
                fingerprints=fingerprints,
                structures=structures,
                containers={str(k): int(n) for k, n in data.get("containers", ())[:MAX_CONTAINERS]},
                urls=urls,
                examples={int(k): str(t)[:EXAMPLE_CHARS]
                          for k, t in data.get("examples", ())[:MAX_EXAMPLES]},
                classifier=NGramClassifier.from_data(data["classifier"], arrays, tables=ngrams),
                supervised=int(data.get("supervised", 0)),
                ngrams=ngrams,
                updated=float(data.get("updated", 0.0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFormatError(f"bad site model data: {exc!r}") from None
        if model.pages < 0 or any(min(counts.values(), default=0) < 0 for counts in (
                model.fingerprints, model.structures, model.containers)):
            raise ModelFormatError("bad site model data: negative counts")
        return model

    @classmethod
    def from_bytes(cls, blob: bytes, *, ngrams: bool = True) -> "SiteModel":
        """Read a stored model (any format version); anything but a well-formed one is a
        ModelFormatError. Decompression stops at ``MAX_MODEL_BYTES`` (``modelbytes.read``)."""
        return cls.from_data(*read(blob, MAX_MODEL_BYTES), ngrams=ngrams)

    def template(self, threshold: float) -> list[dict[str, Any]]:
        """Fingerprints and structural keys on ``threshold`` pages, most pages first, with
        their example ("" for one that reached the share before examples were kept)."""
        rows = [{"pages": n, "rule": rule, "example": self.examples.get(key, "")}
                for rule, counts in (("text", self.fingerprints), ("place", self.structures))
                for key, n in counts.items() if n >= threshold]
        return sorted(rows, key=lambda row: -row["pages"])

    def summary(self) -> dict[str, Any]:
        """Figures for ``scrapy-declutter sites show``."""
        threshold = self.template_threshold()
        return {
            "site": self.site,
            "pages": self.pages,
            "supervised_pages": self.supervised,
            "fingerprints": len(self.fingerprints),
            "template_fingerprints": sum(n >= threshold for n in self.fingerprints.values()),
            "structures": len(self.structures),
            "template": self.template(threshold),
            "updated": self.updated,
            "container": self.container(threshold),
            "containers": dict(sorted(self.containers.items(), key=lambda item: -item[1])),
            "urls": len(self.urls),
            "examples": dict(self.classifier.examples),
            "ngrams": {c: len(lm) for c, lm in self.classifier.lms.items()},
            "stored_bytes": len(self.to_bytes()),
        }
