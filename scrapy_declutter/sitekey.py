"""Site keys: which site a page belongs to, so that it learns from (and into) that site's model.

``DECLUTTER_SITE_KEY`` (and ``Declutter(site_key=...)``) takes one of:

- ``"host"`` (the default): the URL's host without ``www.``; ``blog.example.com``
  and ``shop.example.com`` are two sites.
- ``"domain"``: the registered domain, through ``tldextract`` (which Scrapy
  already installs) with its bundled public suffix list and no network
  fetch, so ``news.bbc.co.uk`` and ``www.bbc.co.uk`` are both ``bbc.co.uk``.
- the import path of a callable ``(url) -> key``, e.g.
  ``"myproject.sites.key"``: anything else, such as the first path segment
  for several sites served from one host.
- ``"fixed:NAME"``: every page is site ``NAME`` (``file://`` URLs have no host).

A fixed key needs its prefix because a bare value is ambiguous: ``docs.python.org``
reads like an import path, and ``domian`` is a typo, not a site; so a value
that is neither keyword, prefix nor importable callable is refused at
start with what is accepted, instead of silently merging every page into one site.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from .page import site_key as host_key

HOST = "host"
DOMAIN = "domain"
FIXED = "fixed:"

SiteKey = Callable[[str | None], str]


def domain_key(url: str | None) -> str:
    """The URL's registered domain (``bbc.co.uk``); the host for IPs and unknown suffixes."""
    host = host_key(url)
    if not host:
        return ""
    parts = _extractor()(host)
    return parts.top_domain_under_public_suffix or host


@lru_cache(maxsize=1)
def _extractor():  # noqa: ANN202 - tldextract's own type
    import tldextract

    # suffix_list_urls=(): the snapshot bundled with tldextract, never a download; no cache dir.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


@lru_cache(maxsize=32)
def site_key_function(spec: str) -> SiteKey:
    """The function a ``DECLUTTER_SITE_KEY`` value names; ValueError saying what is accepted."""
    if spec == HOST:
        return host_key
    if spec == DOMAIN:
        return domain_key
    if spec.startswith(FIXED):
        name = spec.removeprefix(FIXED).strip()
        if not name:
            raise ValueError(f"names no site after {FIXED!r}")
        return lambda url: name
    from scrapy.utils.misc import load_object

    try:
        func = load_object(spec)
    except (ImportError, NameError, ValueError, AttributeError) as e:
        raise ValueError(
            f"is not a site key ({e}); use {HOST!r}, {DOMAIN!r}, the import path of a callable "
            f"(url) -> key, or {FIXED!r} + a name for one fixed site") from None
    if not callable(func):
        raise ValueError(f"names {type(func).__name__} {func!r}, not a callable (url) -> key")
    return _checked(func, spec)


def _checked(func: Callable[[str], object], spec: str) -> SiteKey:
    """A user's key function whose result is always a string ("" when it returns none)."""

    def key(url: str | None) -> str:
        value = func(url)
        return "" if value is None else str(value)

    key.__qualname__ = spec
    return key

