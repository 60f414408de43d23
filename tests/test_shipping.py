"""A worker's Result sent as plain tuples is rebuilt field for field (``integration.shipping``).

Pages: the bundled copy of the Python tutorial (PSF licence, see example_project/site),
learned as a site, so that blocks carry site reasons, structure (lists, code, tables)
and links.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lxml import html as lxml_html

from scrapy_declutter import Declutter
from scrapy_declutter.integration.shipping import ShippedResult

TUTORIAL = Path(__file__).resolve().parents[1] / "example_project/site/docs.python.org/3.11/tutorial"


def _learned_results() -> list:
    pages = [(f"https://docs.python.org/3.11/tutorial/{p.name}", p.read_bytes())
             for p in sorted(TUTORIAL.glob("*.html"))]
    with Declutter(store="memory:") as dec:
        for url, body in pages:
            dec.extract(body, url)
        return [dec.extract(body, url) for url, body in pages[:4]]  # the site is learned


def test_a_shipped_result_is_rebuilt_with_every_field_of_every_block():
    results = _learned_results()
    blocks = [b for r in results for b in r.blocks]
    # What makes the round trip worth testing is there: site reasons, structure, links, code.
    assert any(b.site_reason is not None for b in blocks)
    assert any(b.structure.list_depth for b in blocks) and any(b.structure.pre for b in blocks)
    assert any(b.links for b in blocks) and any(b.preformatted for b in blocks)
    assert any(r.site_learning is not None for r in results)
    for result in results:
        root = lxml_html.fromstring(b"<html><body><p>the crawl's tree</p></body></html>")
        # As a worker sends it: packed as JSON bytes, unpacked in the crawl process.
        rebuilt = ShippedResult.unpack(ShippedResult.of(result).pack()).result(root)
        assert rebuilt.root is root
        bare = {"root": None, "blocks": []}  # Blocks compare by identity: field by field below
        assert dataclasses.replace(rebuilt, **bare) == dataclasses.replace(result, **bare)
        assert len(rebuilt.blocks) == len(result.blocks)
        for got, want in zip(rebuilt.blocks, result.blocks):
            for f in dataclasses.fields(want):
                assert getattr(got, f.name) == getattr(want, f.name), f.name
                assert type(getattr(got, f.name)) is type(getattr(want, f.name)), f.name
        assert rebuilt.markdown == result.markdown and rebuilt.labels() == result.labels()


def test_each_ancestor_is_sent_once_and_shared_again_once_rebuilt():
    result = _learned_results()[0]
    shipped = ShippedResult.of(result)
    distinct = {a for b in result.blocks for a in b.ancestors}
    assert len(shipped.ancestors) == len(distinct) < sum(len(b.ancestors) for b in result.blocks)
    rebuilt = shipped.result(None)
    assert len({id(a) for b in rebuilt.blocks for a in b.ancestors}) == len(distinct)
