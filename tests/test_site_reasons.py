"""Blocks site learning relabelled carry a typed reason (rule and evidence), and the
inspect report shows it. Pages: the bundled copy of the Python tutorial (PSF licence,
see example_project/site)."""

from __future__ import annotations

from pathlib import Path

from scrapy_declutter import Declutter, SiteReason
from scrapy_declutter.report import render_report

TUTORIAL = Path(__file__).resolve().parents[1] / "example_project/site/docs.python.org/3.11/tutorial"


def _pages() -> list[tuple[str, bytes]]:
    return [(f"https://docs.python.org/3.11/tutorial/{p.name}", p.read_bytes())
            for p in sorted(TUTORIAL.glob("*.html"))]


def test_template_blocks_say_on_how_many_pages_their_text_was_seen() -> None:
    pages = _pages()
    with Declutter(store="memory:") as dec:
        for url, html in pages:
            dec.extract(html, url)
        result = dec.extract(pages[0][1], pages[0][0])  # re-crawl: the site is learned
    decided = [b for b in result.blocks if b.step == "site-template"]
    assert decided, "the tutorial's navigation is template on a re-crawl"
    for b in decided:
        assert isinstance(b.site_reason, SiteReason)
        assert b.site_reason.rule == "site-template"
        assert b.site_reason.of_pages == len(pages)
        assert len(pages) / 2 <= b.site_reason.pages <= len(pages)
    # blocks the site step left alone carry no reason
    assert all(b.site_reason is None for b in result.blocks if not (b.step or "").startswith("site-"))
    html = render_report(result)
    assert f"text seen on {decided[0].site_reason.pages} of the site&#x27;s {len(pages)} pages" in html
