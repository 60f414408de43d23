"""Retrieval chunks (``formats.chunks``): cut at headings and a size, never inside a unit,
joined back into the clean text. Pages: every bundled page, the Python docs under
``sample_data/chunks`` (tables, lists, code) and ``example_project/site``."""

from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache
from pathlib import Path

import pytest
from scrapy.settings import Settings

from conftest import SAMPLE_DATA, SHARED_WCXB, needs_shared

from scrapy_declutter import Result, extract
from scrapy_declutter.blocks import Block
from scrapy_declutter.cli import main
from scrapy_declutter.formats.chunks import CHUNK_WORDS, split_chunks
from scrapy_declutter.formats.markdown import heading_level, render_markdown
from scrapy_declutter.formats.text import PARAGRAPH_BREAK
from scrapy_declutter.integration.items import field_values
from scrapy_declutter.integration.settings import DeclutterOptions

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "example_project" / "site"
DOCS = SITE / "docs.python.org" / "3.11"
CHUNKS = SAMPLE_DATA / "chunks"
BUNDLED = sorted(p for p in SAMPLE_DATA.rglob("*") if p.name.endswith((".html", ".html.gz")))
PAGES = BUNDLED + sorted(SITE.rglob("*.html"))


#: A Markdown heading line, in a block quote or not.
MD_HEADING = re.compile(r"(?:>+ )?#{1,6} ")


@lru_cache(maxsize=None)
def result_of(path: Path, extractor: str = "default") -> Result:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return extract(data, f"https://docs.python.org/3.11/{path.name.removesuffix('.gz')}",
                   extractor=extractor)


#: The text starting with the page's headline, so the heading paths start with it too.
TITLE_IN_TEXT = ("learned+datatable+teasers+itemlist+thread+overlays+specs+rails+productdata"
                 "+title(in_text=true)")


def same_unit(a: Block, b: Block) -> bool:
    """Whether two blocks lie in one code block, list item or table row (a unit)."""
    sa, sb = a.structure, b.structure
    return ((sa.pre and sa.pre == sb.pre) or (sa.item and sa.item == sb.item)
            or (sa.table and sa.row >= 0 and (sa.table, sa.row) == (sb.table, sb.row)))


def leading_headings(blocks: tuple[Block, ...]) -> int:
    n = 0
    while n < len(blocks) and heading_level(blocks[n]):
        n += 1
    return n


def check_chunks(result: Result, words: int, *, markdown: bool = True) -> None:
    """Every rule of the chunks, checked on one page at one size (its content blocks);
    ``markdown``: against the Markdown too (rendered once a page and once a chunk)."""
    chunks = split_chunks(result.content_blocks, words)
    assert PARAGRAPH_BREAK.join(c.text for c in chunks) == result.text
    assert [b for c in chunks for b in c.blocks] == result.content_blocks
    for i, chunk in enumerate(chunks):
        assert chunk.words == len(chunk.text.split()) > 0
        lead = leading_headings(chunk.blocks)
        body = chunk.blocks[lead:]
        # Headings only lead a chunk; the path ends with the chunk's own last heading.
        assert not any(heading_level(b) for b in body)
        if lead:
            assert chunk.headings[-1] == chunk.blocks[lead - 1].text
        elif i:  # a chunk cut by size goes on under the same headings
            assert chunk.headings == chunks[i - 1].headings
        # Markdown of the chunk alone starts with a heading exactly when the chunk does.
        if markdown:
            assert bool(MD_HEADING.match(render_markdown(chunk.blocks))) == bool(lead)
        # Over the size only with one unit (and the headings leading it).
        if chunk.words > words:
            assert len(body) <= 1 or all(same_unit(body[0], b) for b in body[1:])
        if i:
            assert not same_unit(chunks[i - 1].blocks[-1], chunk.blocks[0])
    if not markdown:
        return
    assert [c.as_dict() for c in chunks] == result.chunks(words=words)
    # Every Markdown heading (outside code fences) starts a chunk's leading run: the
    # Markdown of the blocks, without the page's headline that ``result.markdown`` puts first.
    headings_md, fenced = 0, False
    for line in render_markdown(result.blocks).splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and MD_HEADING.match(line):
            headings_md += 1
    assert headings_md == sum(leading_headings(c.blocks) for c in chunks)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
@pytest.mark.parametrize("words", [CHUNK_WORDS, 40, 0])
def test_chunks_of_every_bundled_page_join_into_its_text(path, words):
    check_chunks(result_of(path), words)


def test_python_tutorial_chunks_sit_under_their_nested_headings():
    result = result_of(DOCS / "tutorial" / "datastructures.html", TITLE_IN_TEXT)
    chunks = result.chunks()
    assert {c["headings"][0] for c in chunks} == {"5. Data Structures"}  # the title leads
    stacks = next(c for c in chunks if c["text"].startswith("5.1.1. Using Lists as Stacks"))
    assert stacks["headings"] == ["5. Data Structures", "5.1. More on Lists",
                                  "5.1.1. Using Lists as Stacks"]
    assert "\n>>> stack.pop()\n7\n>>> stack\n" in stacks["text"]  # the code, with its lines
    # Every code block sits whole in one chunk, however small the size.
    for words in (300, 10):
        pres = {}
        for n, chunk in enumerate(split_chunks(result.content_blocks, words)):
            for b in chunk.blocks:
                if b.structure.pre:
                    assert pres.setdefault(b.structure.pre, n) == n


def test_long_tables_are_cut_between_rows_under_their_headings():
    result = result_of(CHUNKS / "codecs.html.gz", TITLE_IN_TEXT)
    chunks = split_chunks(result.content_blocks, CHUNK_WORDS)
    rows: dict[tuple[int, int], int] = {}
    for n, chunk in enumerate(chunks):
        for b in chunk.blocks:
            if b.structure.table and b.structure.row >= 0:
                assert rows.setdefault((b.structure.table, b.structure.row), n) == n
    table_chunks = {n for n in rows.values()}
    assert len(rows) > 100 and len(table_chunks) > 3  # the encodings' table spans chunks
    encodings = [c for c in chunks if "cp1252" in c.text]
    assert encodings and all(c.headings[0] == "codecs — Codec registry and base classes"
                             for c in encodings)
    assert all(c.words <= CHUNK_WORDS for n, c in enumerate(chunks) if n in table_chunks)


def test_string_page_keeps_list_items_and_table_rows_whole():
    result = result_of(CHUNKS / "string.html.gz", TITLE_IN_TEXT)
    chunks = result.chunks(words=120)
    spec = [c for c in chunks if "Format Specification Mini-Language" in c["headings"]]
    assert spec and all(c["headings"][:2] == ["string — Common string operations",
                                              "Format String Syntax"] for c in spec)
    for words in (120, 0):
        check_chunks(result, words)


PAGE = """<html><head><title>Guide</title></head><body><article>
<h1>Guide</h1><h2>Setup</h2><h3>Install</h3><p>{p}</p><p>{p}</p><p>{p}</p>
<h2>Empty</h2><h2>Use</h2><ul><li>{p} {p} {p}</li><li>short item</li></ul>
</article></body></html>"""
WORDS = "one two three four five six seven eight nine ten"


def chunks_of(html: str, words: int) -> list[dict]:
    from scrapy_declutter import Page

    page = Page.from_html(html)
    for b in page.blocks:
        b.set_label("content", 1.0, "test")
    return [c.as_dict() for c in split_chunks(page.blocks, words)]


def test_headings_lead_their_sections_and_size_cuts_keep_the_path():
    chunks = chunks_of(PAGE.format(p=WORDS), 25)
    assert [(c["headings"], c["text"].split("\n\n")[0], c["words"]) for c in chunks] == [
        # An empty section's heading stays with its first subsection's.
        (["Guide", "Setup", "Install"], "Guide", 23),
        (["Guide", "Setup", "Install"], WORDS, 10),  # cut by size: the same headings
        (["Guide", "Empty"], "Empty", 1),  # a sibling heading is not below it: alone
        (["Guide", "Use"], "Use", 31),  # over the size: one list item, with its heading
        (["Guide", "Use"], "short item", 2),
    ]


def test_size_zero_gives_every_unit_its_chunk_and_a_negative_size_is_refused():
    chunks = chunks_of(PAGE.format(p=WORDS), 0)
    assert [c["text"] for c in chunks][-2:] == [f"Use\n\n{WORDS} {WORDS} {WORDS}", "short item"]
    assert [c["text"] for c in chunks][1:3] == [WORDS, WORDS]  # one paragraph a chunk
    with pytest.raises(ValueError, match="0 words or more"):
        chunks_of(PAGE.format(p=WORDS), -1)


def test_a_page_without_text_has_no_chunks():
    assert extract(b"").chunks() == [] and extract("<p></p>").chunks() == []


def test_extract_command_prints_chunks_as_json_lines(capsys):
    page = DOCS / "tutorial" / "appetite.html"
    assert main(["extract", "--format", "chunks", "--chunk-words", "80", str(page), str(page)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    data = json.loads(lines[0])
    assert data["path"] == str(page) and data["reason"] == ""
    assert data["chunks"] == result_of(page).chunks(words=80)
    assert len(data["chunks"]) > 3 and json.loads(lines[1])["chunks"] == data["chunks"]


def test_chunks_field_and_size_come_from_the_settings():
    result = result_of(DOCS / "tutorial" / "datastructures.html")
    off = DeclutterOptions.from_settings(Settings())
    assert off.chunks_field is None and "chunks" not in field_values(result, off)
    on = DeclutterOptions.from_settings(Settings({"DECLUTTER_CHUNKS_FIELD": "chunks",
                                                  "DECLUTTER_CHUNK_WORDS": "120"}))
    assert field_values(result, on)["chunks"] == result.chunks(words=120)
    assert field_values(None, on)["chunks"] is None
    bigger = on.override({"chunk_words": 1000})
    assert field_values(result, bigger)["chunks"] == result.chunks(words=1000)
    with pytest.raises(Exception, match="DECLUTTER_CHUNK_WORDS"):
        DeclutterOptions.from_settings(Settings({"DECLUTTER_CHUNK_WORDS": "many"}))
    with pytest.raises(Exception, match="both name the item field 'clean_text'"):
        DeclutterOptions.from_settings(Settings({"DECLUTTER_CHUNKS_FIELD": "clean_text"}))


@needs_shared
def test_chunks_keep_their_rules_on_wcxb_dev():
    """Every rule on every page of WCXB-dev, every block labelled content: the most text
    and structure the pages hold (the rules do not depend on the labels). The Markdown
    rules are checked on the bundled pages: here they would cost most of the time."""
    from scrapy_declutter import Page
    from scrapy_declutter.api import result_of as packaged
    from scrapy_declutter.lab.dataset import load_dataset

    for sample in load_dataset(SHARED_WCXB):
        page = Page.from_html(sample.html_bytes(), sample.url)
        for b in page.blocks:
            b.set_label("content", 1.0, "test")
        check_chunks(packaged(page, "test"), CHUNK_WORDS, markdown=False)
