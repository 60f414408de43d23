"""The compiled segmentation walk makes the reference's pages: blocks, features, labels.

``segment.segment`` takes the compiled walk (``scrapy_declutter._segment``)
when it is built, ``python_segment`` otherwise. Every bundled page and a set
of odd trees (deep nesting, comments, PIs, entities, CDATA, ``<br>`` runs,
Unicode whitespace, ``<pre>``, tables, lists, permalinks, images, XML
namespaces) must come out identical both ways, through the learned features
and the default extractor's labels. The module runs here with the lxml
installed now, whichever lxml it was compiled against.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from lxml import etree

from conftest import SAMPLE_DATA, SHARED_WCXB, needs_shared, require_compiled

from scrapy_declutter import Page, extract
from scrapy_declutter import segment as segment_module
from scrapy_declutter.lab.adversarial import MAX_BYTES, MAX_ELEMENTS, PAGES
from scrapy_declutter.lab.dataset import load_dataset
from scrapy_declutter.lab.fuzzing import byte_soups, html_documents
from scrapy_declutter.lab.walks import block_difference, check_walks, page_difference
from scrapy_declutter.page import decode_html, parse_html
from scrapy_declutter.segment import python_segment, reference_walk, segment

ROOT = Path(__file__).resolve().parents[1]
PYX = ROOT / "scrapy_declutter" / "_segment.pyx"
COMPILED = segment_module.COMPILED


@pytest.fixture(scope="module", autouse=True)
def compiled_walk():
    """The compiled walk, which the install builds; skipped only where no C compiler is."""
    require_compiled(COMPILED, "segmentation walk")
    return COMPILED


def bundled_pages() -> list[Path]:
    return sorted(p for p in SAMPLE_DATA.rglob("*") if p.name.endswith((".html", ".html.gz")))


def page_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def assert_same(html: str | bytes) -> None:
    """Both walks make the same Page from ``html`` (``from_html``: caps and salvage included),
    and the same features and labels from its parsed tree."""
    compiled = Page.from_html(html)
    with reference_walk():
        reference = Page.from_html(html)
    assert (compiled.reason, compiled.language) == (reference.reason, reference.language)
    assert block_difference(compiled.blocks, reference.blocks) == ""
    text = decode_html(html) if isinstance(html, bytes) else html
    if compiled.blocks and not compiled.reason:
        assert page_difference(parse_html(text)) == ""


def test_the_walk_makes_blocks_at_their_slots_with_every_field_set():
    """The compiled walk writes Blocks' fields at their slot offsets (``_segment_fields``),
    not through ``Block(...)``: the dataclass as it stands must allow it, and every field,
    defaults included, must come out as the dataclass would set it."""
    import gc
    from dataclasses import fields

    from scrapy_declutter.blocks import Ancestor, Block
    from scrapy_declutter.structure import Structure

    assert COMPILED.FIELDS_BY_OFFSET
    html = ("<html><body><h1>Title</h1><p>" + "Words in a paragraph. " * 8 + "<a href='/a'>a</a>"
            "<img src='/i.png' alt='i'></p><pre>x\n  y</pre></body></html>")
    blocks = COMPILED.segment(parse_html(html))
    assert len(blocks) == 3
    for b in blocks:
        made = Block(**{f.name: getattr(b, f.name) for f in fields(Block)})
        assert block_difference([b], [made]) == ""
    assert blocks[1].links == (("a", "/a"),) and blocks[1].images == (("i", "/i.png"),)
    assert blocks[2].preformatted == "x\n  y" and blocks[0].structure.heading == 1
    assert blocks[1].label == "boilerplate" and blocks[1].trail == () and blocks[1].site_reason is None
    # Ancestors and Structures are made by their class's tp_alloc (``_record``): the same
    # NamedTuples as ``tuple.__new__`` makes, which the collector does not track.
    records = [*blocks[1].ancestors, blocks[0].structure]
    assert [type(r) for r in records] == [Ancestor] * 3 + [Structure]
    assert blocks[1].ancestors[-1] == Ancestor("p", "", ())
    assert blocks[1].ancestors[-1].selector == "p" and blocks[0].structure._asdict()["heading"] == 1
    assert not any(gc.is_tracked(r) for r in records)
    # So are the links and images, tuples of pairs of strings.
    assert not any(map(gc.is_tracked, (blocks[1].links, blocks[1].links[0], blocks[1].images,
                                       blocks[1].images[0])))


def test_names_are_shared_across_pages_and_equal_to_the_references():
    """Tags, ids and class lists come from ``_named``: the strings decoding gives, one
    object for each value across pages; an odd value (long, empty, spaced, not ASCII)
    comes out as the reference makes it."""
    long_name = "c" * 300
    html = (f"<div id='main' class=' post  big\tone '><p class='é x'>a b c</p>"
            f"<section class='{long_name} y' id=''><p>d e</p></section>"
            "<div class=''><p>f</p></div><div class='   '><p>g</p></div></div>")
    first, second = (COMPILED.segment(parse_html(html)) for _ in range(2))
    assert block_difference(first, python_segment(parse_html(html))) == ""
    top = first[0].ancestors[-2]
    assert (top.id, top.classes) == ("main", ("post", "big", "one"))
    assert first[0].ancestors[-1].classes == ("é", "x")
    assert first[1].ancestors[-2].classes == (long_name, "y") and first[1].ancestors[-2].id == ""
    assert first[2].ancestors[-2].classes == () == first[3].ancestors[-2].classes
    # One object per value across pages (its hash computed once); a long value is not kept.
    again = second[0].ancestors[-2]
    assert again.classes is top.classes and again.id is top.id and again.tag is top.tag
    assert second[1].ancestors[-2].classes is not first[1].ancestors[-2].classes
    assert 0 < COMPILED.named_values_kept() <= 8192
    # Many distinct values: the table is emptied when full and the names stay right.
    many = "".join(f"<div class='k{i} shared'><p>t</p></div>" for i in range(9000))
    blocks = COMPILED.segment(parse_html(f"<body>{many}</body>"))
    assert [b.ancestors[-2].classes for b in blocks[-3:]] == [(f"k{i}", "shared") for i in range(8997, 9000)]
    assert COMPILED.named_values_kept() <= 8192


@pytest.mark.parametrize("path", bundled_pages(), ids=lambda p: str(p.relative_to(SAMPLE_DATA)))
def test_every_bundled_page_is_identical_on_both_walks(path):
    html = page_bytes(path)
    root = parse_html(decode_html(html) or "<html/>")
    made = COMPILED.segment(root)
    assert made is not None, "an HTML parse the compiled walk left to the reference"
    assert block_difference(made, python_segment(root)) == ""
    assert page_difference(root) == ""


def test_the_bundled_pages_are_many_and_real():
    pages = bundled_pages()
    assert len(pages) >= 20
    blocks = [b for p in pages for b in segment(parse_html(decode_html(page_bytes(p)) or "<html/>"))]
    assert len(blocks) > 2000
    assert any(b.links for b in blocks) and any(b.images for b in blocks)
    assert any(b.structure.table for b in blocks) and any(b.structure.item for b in blocks)
    assert any(b.preformatted for b in blocks)


ODD = {
    "comments and PIs": "<body><p>a<!-- x -->b<?php echo 1 ?>c</p><!-- gone -->tail<?pi?>more</body>",
    "entities": "<p>caf&eacute; &amp; &lt;tea&gt; &#8212; &nbsp;&nbsp;x&#x2003;y &unknown; &#0;</p>",
    "cdata in html": "<body><p>before<![CDATA[ inside ]]>after</p><svg><![CDATA[x]]></svg></body>",
    "br runs": "<p>one<br>two<br><br>three<br/> <br/>four<br>\n<br>five<a href='/x'>l<br><br>m</a></p>",
    "unicode whitespace": "<p>a\u00a0b\u3000c\u2028d\x1ce\u200bf\u2007g\u205fh\u180ei \u0085j</p>",
    "pre": ("<div class='highlight-python'><pre>def f():\n    return 1<br>x\n\n  </pre></div>"
            "<pre class='language-rust'><code class='lang-go'>fn main() {}</code></pre>"
            "<pre><code class='language-default'>x</code><b>y</b></pre><pre>  </pre>"),
    "tables": ("<table><caption>Cap</caption><tr><th>h1</th><th colspan=2>h2</th></tr>"
               "<tr><td rowspan='1'>a</td><td colspan=' 3 '>b</td><td><table><tr><td>in</td></tr>"
               "</table>c</td></tr></table><td>stray cell</td><tr><td>stray row</td></tr>"
               "<table><td>no row</td><td>two</td></table>"),
    "lists": ("<ol start='3'><li>three</li><li>four<ul><li>x</li><li>y</li></ul></li></ol>"
              "<ol start='abc'><li>one</li></ol><ol start=' 7 '><li>seven</li></ol><li>stray</li>"
              "<menu><li>m</li></menu><dir><li>d</li></dir><ol start='-2'><li>neg</li></ol>"),
    "links": ("<h2>Title<a class='headerlink' href='#t'>¶</a></h2><h3>T<a href='#x' aria-hidden='true'>"
              "<span>icon</span></a></h3><h4>U<a href='#u'>#</a></h4><p><a href='#top'>Back to top</a>"
              " <a href=''>empty</a> <a>none</a> <a href='/a'>out <a href='/b'>in</a> after</a>"
              " <a href='/c'><div>block in link</div></a> <a href='/d'>  </a></p>"),
    "permalinks": "".join(
        f"<h2>{k}<a href='#{k}'{attrs}>{text}</a></h2><p>{k} text</p>"
        for k, (attrs, text) in enumerate([
            (" class='x headerlink'", "¶"), (" class='HeaderLink'", "¶"),
            (" aria-hidden='true'", "Words"), (" aria-hidden='false'", "§"),
            (" aria-hidden='TRUE'", "x"), ("", " <span>¶</span> "), ("", "<!-- 1 -->#<?pi 2?>"),
            ("", "⚓︎ "), ("", "Section 2"), ("", "<b>¶<i>x</i></b>"), ("", "\u00a0¶\u3000"),
            ("", "→"), ("", "<![CDATA[a]]>¶"), ("", ""), ("", "<img src='l.svg'>"),
            ("", "¶<!-- 9 -->"), ("", "\u00e9"), ("", "🔗<span> </span>"),
        ])),
    "code languages": (
        "<div class='highlight-default notranslate'><div class='highlight'><pre>a</pre></div></div>"
        "<pre class='LANG-JS other'>b</pre><pre><!-- c --><code class='language-py'>c</code></pre>"
        "<pre> <code class='language-go'>d</code></pre><pre class='brush: php'>e</pre>"
        "<div class='highlight-source-python'><pre><code>f</code></pre></div>"
        "<pre class='language-\uff30\uff39'>g</pre><pre class='lang-\u0130x'>h</pre>"
        "<pre class='language-none\u00a0lang-c'>i</pre>"
        "<pre><b>j</b><code class='lang-x'>j</code></pre>"),
    "spans and starts": (
        "<table><tr><td colspan='\u0661'>a</td><td rowspan='\u00a01\u00a0'>b</td>"
        "<td colspan='0' rowspan=' 2'>c</td><td colspan='x'>d</td><td rowspan=''>e</td></tr>"
        "</table><ol start='\u0663'><li>f</li></ol><ol start='1_0'><li>g</li></ol>"
        "<ol start=' +4 '><li>h</li></ol><ol start=''><li>i</li></ol>"),
    "images": ("<p><img src='a.png' alt='A'><img src='data:image/png;base64,xx'><img data-src='b.png'>"
               "<img src='' data-src='c.png' alt=''><img>text</p><div><img src='d.png'><p>inner</p></div>"),
    "skipped": ("<body><p>seen<script>var x='<p>no</p>';</script><style>p{}</style><template><p>t</p>"
                "</template><noscript><p>ns</p></noscript><iframe>f</iframe><object>o</object> end</p>"
                "<math><mi>x</mi></math><noembed>ne</noembed><noframes>nf</noframes></body>"),
    "noscript": ("<div class=mainBox><noscript>&lt;div class='alert'&gt;JS off&lt;/div&gt;</noscript>"
                 "after</div><p>Rated 4.6<noscript><img src='s.png'><style>p{}</style><!-- c --> "
                 "</noscript> by readers <noscript>"
                 "<a href='/x'>stars</a></noscript></p><noscript>  </noscript><noscript><p>in</p>out"
                 "</noscript>"),
    "attributes": ("<div id='main' class=' a  b\tc ' data-x='&quot;q&quot;' hidden xml:lang='fr' "
                   "xmlns:og='http://ogp.me/ns#' og:title='T'><p title='café ☕' class=''>text</p></div>"),
    "text outside blocks": "<html>lead<head><title>T</title></head>mid<body>body text</body>after</html>",
    "after the html element": "<html><body><p>in</p></body></html><!-- c --><p>late</p>",
    "non-ascii and astral": "<p>日本語のテキスト 😀 emoji 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﷽ a\u0301b</p><p>" + "長" * 200 + "</p>",
    "long lines": "<p>" + " ".join(["w" * (i % 17 + 1) for i in range(400)]) + " " + "x" * 200 + "</p>",
    "duplicate tags and positions": ("<div><p>1</p><p>2</p><span>s</span><p>3</p><div><p>only</p></div>"
                                     "<section><p>x</p></section><section><p>y</p></section></div>"),
    "deep": "<div>" * 300 + "<p>deep</p>" + "</div>" * 300 + "<p>after</p>",
    "headings": "".join(f"<h{i}>heading {i} <em>em</em></h{i}>" for i in range(1, 7)) + "<h7>no</h7>",
    "whitespace only": "<p>   </p><p>\n\t</p><div> <span> </span> </div><p>x</p>",
    "hidden markup": ("<p hidden>attr</p><p style='DISPLAY : None !important'>style</p>"
                      "<div style='visibility:hidden'>box<p>inside</p></div><p style='--display:none'>"
                      "custom</p><p style='color:red; display:block'>shown</p><p hidden=''>empty "
                      "attr</p><span style='display:none'>inline</span> tail<p style=''>s</p>"),
    "forms and selects": ("<form><select><option>one</option><optgroup><option>two</option></optgroup>"
                          "</select><textarea>typed</textarea><fieldset><legend>L</legend>x</fieldset></form>"),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_markup_is_identical_on_both_walks(name):
    assert_same(ODD[name])
    assert COMPILED.segment(parse_html(ODD[name])) is not None


def test_the_permalink_rule_is_asked_only_what_the_tree_does_not_settle(monkeypatch):
    asked = []
    monkeypatch.setattr(COMPILED, "is_permalink", lambda el: asked.append(el.text) or True)
    html = ("<h2>A<a class='headerlink' href='#a'>x</a></h2><h2>B<a href='#b'>Section 2</a></h2>"
            "<h2>C<a href='#c' aria-hidden='true'>y</a></h2><h2>D<a href='#d'>¶</a></h2>")
    blocks = COMPILED.segment(parse_html(html))
    assert asked == ["¶"]  # the class, the letters and aria-hidden settled the others
    assert [b.text for b in blocks] == ["A", "BSection 2", "C", "D"]


_HEAVY = {"20 MB page", f"just under {MAX_BYTES:,} bytes", f"just under {MAX_ELEMENTS:,} elements"}


@pytest.mark.parametrize("name", sorted(set(PAGES) - _HEAVY))
def test_adversarial_pages_are_identical_on_both_walks(name):
    body, content_type = PAGES[name]
    html = body()
    compiled = Page.from_html(html, content_type=content_type)
    with reference_walk():
        reference = Page.from_html(html, content_type=content_type)
    assert compiled.reason == reference.reason
    assert block_difference(compiled.blocks, reference.blocks) == ""


def test_xml_trees_with_namespaces_are_walked_too():
    xml = (b'<html xmlns:x="urn:x"><body><div x:a="1" class="c"><p>one</p><x:p>two<x:b>2</x:b></x:p>'
           b'<br/><br/><p>three</p><x:div x:id="d"><p>four</p></x:div></div></body></html>')
    root = etree.fromstring(xml)
    made = COMPILED.segment(root)
    assert made is not None and "{urn:x}div" in made[-1].xpath
    assert block_difference(made, python_segment(root)) == ""
    # XHTML's default namespace makes no tag a block tag: text outside any block, which the
    # reference cannot place (no lineage for the root); the compiled walk leaves it to it.
    xhtml = etree.fromstring(b'<html xmlns="http://www.w3.org/1999/xhtml"><body><p>x</p></body></html>')
    assert COMPILED.segment(xhtml) is None


def test_trees_an_html_parse_never_makes_are_left_to_the_reference():
    parser = etree.XMLParser(resolve_entities=False)
    root = etree.fromstring(b'<!DOCTYPE d [<!ENTITY e "ent">]><html><p>a &e; b</p></html>', parser)
    assert COMPILED.segment(root) is None  # an entity reference node
    with pytest.raises(TypeError):  # what the reference makes of it, unchanged by the switch
        segment(root)
    comment = etree.Comment("not an element")
    assert COMPILED.segment(comment) is None


def test_the_walk_sees_whitespace_as_python_does():
    assert all(COMPILED.is_space(cp) == chr(cp).isspace() for cp in range(0x110000))


def test_the_compiled_walk_imports_only_below_segment():
    # The import graph cannot see a compiled module, so its layer is checked here.
    sources = "".join(p.read_text() for p in PYX.parent.glob("_segment*.p*"))
    imported = set(re.findall(r"^from \.(\w+) (?:c?import)", sources, re.MULTILINE))
    assert imported == {"blocks", "structure"}


def test_it_runs_against_the_lxml_installed_now():
    # Loaded, set up and walking with this lxml (built against ``BUILT_WITH_LXML``).
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", COMPILED.BUILT_WITH_LXML)
    root = parse_html("<p>one <b>two</b></p>")
    assert [b.text for b in COMPILED.segment(root)] == ["one two"]


def test_the_switch_and_the_reference_walk():
    root = parse_html("<p>x</p>")
    assert segment_module.segment(root)[0].text == "x"
    with reference_walk():
        assert segment_module.COMPILED is COMPILED  # the switch does not unload anything


_WITHOUT = """
import logging, sys
# As if the build had no compiler: none of the compiled modules is there.
for name in ("_segment", "_language", "_treefacts", "_utf8", "steps.learned._trees",
             "steps.learned._chains", "steps.learned._text", "steps.learned._columns"):
    sys.modules[f"scrapy_declutter.{name}"] = None
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record)
logging.getLogger().addHandler(Keep())
from scrapy_declutter import extract, segment
result = extract("<html><body><p>The text of the page, long enough to keep.</p></body></html>")
extract("<p>again</p>")
assert segment.COMPILED is None
from scrapy_declutter import page, sniff
assert page._compiled_utf8 is None and sniff._is_utf8 is None
assert not sniff.decodes_as_utf8("<p>déjà</p>".encode())  # bytes are decoded, as before
again = extract("<html><head><title>Déjà vu</title></head><body><p>The text of the page, "
                "long enough to keep.</p></body></html>".encode())
assert again.title == "Déjà vu" and again.text == result.text
from scrapy_declutter import language
from scrapy_declutter.steps.learned import columns, features, pagetype, region, text, trees
assert language._compiled is None and columns._compiled is None and features._compiled is None
assert pagetype._compiled is None and region._columns is None and text._compiled is None
assert trees._compiled is None
warnings = [r for r in records if r.levelno >= logging.WARNING]
print(len(warnings), warnings[0].getMessage())
print(result.text)
"""


def test_without_the_compiled_parts_the_package_runs_with_one_warning():
    proc = subprocess.run([sys.executable, "-c", _WITHOUT], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    first, text = proc.stdout.splitlines()[:2]
    assert first.startswith("1 scrapy_declutter: the compiled segmentation walk is not available")
    assert text == "The text of the page, long enough to keep."


@needs_shared
def test_the_first_pages_of_wcxb_dev_are_identical():
    check = check_walks(load_dataset(SHARED_WCXB, limit=60))
    assert check.pages == 60 and check.differing == [] and check.left_to_reference == 0


def test_extract_uses_the_compiled_walk_and_says_the_same():
    html = page_bytes(SAMPLE_DATA / "wcxb" / "4297.html.gz")
    compiled = extract(html)
    with reference_walk():
        reference = extract(html)
    assert compiled.text == reference.text and compiled.text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(html=html_documents(), soup=byte_soups())
def test_generated_markup_and_byte_soups_are_identical_on_both_walks(html, soup):
    for page in (html, soup):
        compiled = Page.from_html(page)
        with reference_walk():
            reference = Page.from_html(page)
        assert compiled.reason == reference.reason
        assert block_difference(compiled.blocks, reference.blocks) == ""


def test_threads_walking_at_once_make_the_same_blocks():
    # The walk runs without the GIL: pages walked in parallel must not see each other's state.
    from concurrent.futures import ThreadPoolExecutor

    roots = [parse_html(decode_html(page_bytes(p)) or "<html/>") for p in bundled_pages()]
    alone = [python_segment(r) for r in roots]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(COMPILED.segment, roots * 3))
    for i, blocks in enumerate(together):
        assert block_difference(blocks, alone[i % len(roots)]) == ""
