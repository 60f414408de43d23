"""Other open-source extractors, run on the same pages for comparison.

They come with the optional ``bench`` extra (``pip install 'scrapy-declutter[bench]'``);
the plugin never imports this module. Every peer gets the same decoded text
our extractors get and returns plain text. A peer names the module it needs,
so asking for one that is not installed stops the run before the first page
instead of scoring every page as an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lxml import html as lxml_html

from ...errors import UnknownExtractorError
from ...language import DEFAULT_LANGUAGE, ISO_TO_STOPLIST, normalise_language
from ..extras import require

PeerFn = Callable[[str, "str | None"], str]


@dataclass(frozen=True)
class Peer:
    """A peer's extraction function and the module it cannot run without."""

    run: PeerFn
    module: str


def _trafilatura(text: str, url: str | None) -> str:
    import trafilatura

    return trafilatura.extract(text, url=url) or ""


def _justext(text: str, url: str | None) -> str:
    import justext

    root = lxml_html.fromstring(text.encode("utf-8")) if text.strip() else None
    lang = normalise_language(root.get("lang") if root is not None else None) or DEFAULT_LANGUAGE
    paragraphs = justext.justext(text.encode("utf-8"), justext.get_stoplist(ISO_TO_STOPLIST[lang]),
                                 encoding="utf-8")
    return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)


def _readability(text: str, url: str | None) -> str:
    from readability import Document

    summary = Document(text, url=url).summary(html_partial=True)
    root = lxml_html.fromstring(summary) if summary.strip() else None
    if root is None:
        return ""
    # The word metric ignores layout, so the summary's text content is enough.
    return root.text_content().strip()


def _boilerpy3(kind: str) -> PeerFn:
    def run(text: str, url: str | None) -> str:
        from boilerpy3 import extractors

        return getattr(extractors, kind)(raise_on_failure=False).get_content(text) or ""

    return run


PEERS: dict[str, Peer] = {
    "trafilatura": Peer(_trafilatura, "trafilatura"),
    "justext": Peer(_justext, "justext"),
    "readability": Peer(_readability, "readability"),
    "boilerpy3-article": Peer(_boilerpy3("ArticleExtractor"), "boilerpy3"),
    "boilerpy3-default": Peer(_boilerpy3("DefaultExtractor"), "boilerpy3"),
}


def peer(name: str) -> PeerFn:
    """The peer called ``name`` (with or without the ``peer:`` prefix), its dependency checked."""
    key = name.removeprefix("peer:")
    if key not in PEERS:
        raise UnknownExtractorError(f"unknown peer {name!r}; peers: {', '.join(sorted(PEERS))}")
    require("evaluate", PEERS[key].module)
    return PEERS[key].run
