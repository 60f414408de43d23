"""Property-based fuzzing of ``extract()``: Hypothesis strategies and the invariants they check.

Used by ``tests/test_fuzz.py`` (a short, derandomised budget in CI) and by
``scrapy-declutter fuzz --examples N`` (a long one). Needs the ``test`` extra
(Hypothesis); nothing else in the package imports this module.

Invariants, for any input and every extractor:

1. no exception escapes ``extract()`` and none is swallowed either: the
   reason never starts with ``error``;
2. the clean text is a sub-sequence of the page's visible text: every
   content block's text (whitespace aside) appears in the text of the
   parsed page outside script/style/..., in order; a page whose damaged head
   held it (``damaged_head``) is the page as ``salvage`` re-reads it, its
   title closed and its head's content shown;
3. every block has a label (``content``/``boilerplate``) and a score in [0, 1];
4. the Result is JSON-serialisable (``json.dumps(result.as_dict())``);
5. nothing inside script, style and other hidden elements reaches the text:
   the text holds the hidden elements' mark no more often than the page's
   visible text (bytes spliced into a tag name, ``<scrip\x8dt>``, make an
   unknown element whose text a browser shows).
"""

from __future__ import annotations

import json
from html import escape

from hypothesis import strategies as st
from parsel import Selector

from ..api import extract
from ..blocks import LABELS
from ..limits import DAMAGED_HEAD, TOO_DEEP, reason_kind
from ..salvage import HIDDEN_TAGS, closed_title
from ..sniff import decode_html

#: A word that only ever appears inside hidden elements; it must never reach the text.
HIDDEN_MARK = "HIDDENMARK"

BLOCK = ["p", "div", "h1", "h2", "li", "ul", "td", "tr", "table", "section", "article",
         "nav", "footer", "header", "aside", "blockquote", "pre", "form", "dd", "dt"]
INLINE = ["a", "span", "b", "em", "strong", "code", "i", "small", "label"]
HIDDEN = ["script", "style", "template", "iframe", "svg"]  # noscript shows: no scripts run
CLASSES = ["content", "nav", "menu", "footer", "post", "article", "sidebar", "comment", "ad"]
WORDS = ["the", "and", "of", "cookie", "home", "news", "article", "Ünïcödé", "日本語", "عربي",
         "read", "more", "&amp;", "&lt;b&gt;", "x", "123", "privacy", "policy", "a.b", "—"]


#: Runs of text; drawn whole, since Hypothesis spends its time per draw, not per character.
TEXTS = ["", " ", "the news of the day", "read more", "Ünïcödé 日本語 عربي", "&amp; &lt;b&gt; a.b —",
         "home privacy policy cookie", " ".join(WORDS), "x", "123 and of the article " * 6]


def _text() -> st.SearchStrategy[str]:
    return st.sampled_from(TEXTS)


def _attrs() -> st.SearchStrategy[str]:
    return st.sampled_from(["", ""] + [f' class="{c}"' for c in CLASSES] + [' id="main" class="post"'])


def _hidden() -> st.SearchStrategy[str]:
    # Stray end tags stay inside only raw-text elements (script, style): in a parsed
    # element such as <template>, "</p>" legitimately lets the text out.
    raw = st.tuples(st.sampled_from(["script", "style"]), st.sampled_from(
        [f"var s = '<div>{HIDDEN_MARK}</div>';", f"{HIDDEN_MARK} {{color: red}}",
         f"</p>{HIDDEN_MARK}<p>", f"<!-- {HIDDEN_MARK} -->"]))
    parsed = st.tuples(st.sampled_from(HIDDEN), st.just(f"<p>{HIDDEN_MARK}</p>"))
    return st.one_of(raw, parsed).map(lambda t: f"<{t[0]}>{t[1]}</{t[0]}>")


def _leaf() -> st.SearchStrategy[str]:
    return st.one_of(_text(), st.just("<br>"), st.just("<br><br>"), st.just("<!-- a comment -->"),
                     st.just("<img src='a.png' alt='picture'>"), _hidden())


def _element(children: st.SearchStrategy[list[str]]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(BLOCK + INLINE), _attrs(), children, st.booleans()).map(
        lambda t: f"<{t[0]}{t[1]}>{''.join(t[2])}" + (f"</{t[0]}>" if t[3] else "")  # may stay unclosed
    )


def html_documents() -> st.SearchStrategy[str]:
    """Whole pages: a head with a title, a body of random nested (sometimes unclosed) elements."""
    body = st.recursive(_leaf(), lambda kids: _element(st.lists(kids, max_size=5)), max_leaves=30)
    return st.tuples(_text(), st.lists(body, max_size=5), st.booleans()).map(
        lambda t: f"<html><head><title>{t[0]}</title></head><body>{''.join(t[1])}</body></html>"
        + ("</html><p>after the end</p>" if t[2] else "")
    )


def byte_soups() -> st.SearchStrategy[bytes]:
    """Random bytes, HTML with random bytes spliced in, and HTML in random encodings."""
    spliced = st.tuples(html_documents(), st.binary(max_size=64), st.integers(0, 400)).map(
        lambda t: t[0].encode()[: t[2]] + t[1] + t[0].encode()[t[2]:]
    )
    encoded = st.tuples(html_documents(), st.sampled_from(
        ["utf-8", "utf-16", "cp1251", "shift_jis", "latin-1", "gb18030"])).map(
        lambda t: t[0].encode(t[1], errors="xmlcharrefreplace"))
    return st.one_of(st.binary(max_size=2000), spliced, encoded)


def content_types() -> st.SearchStrategy[str | None]:
    return st.sampled_from([None, "text/html", "text/html; charset=utf-8",
                            "text/html; charset=windows-1251", "application/xhtml+xml",
                            "text/html; charset=bogus-charset"])


def _squeeze(text: str) -> str:
    return "".join(text.split())


def visible_text(html: str | bytes, content_type: str | None = None, *, reopened: bool = False) -> str:
    """The text a browser could show, computed apart from segmentation: text nodes outside hidden tags.

    ``reopened``: of the page as ``salvage`` re-reads a damaged head that held
    it, the title closed before its first tag and the head's elements shown.
    """
    text = decode_html(html, content_type) if isinstance(html, bytes) else html
    root = Selector(text=text or "<html/>", type="html").root
    hidden = HIDDEN_TAGS
    if reopened:
        closed = closed_title(root, text)
        if closed is not None:
            root = Selector(text=closed, type="html").root
        hidden = hidden - {"head"} | {"title"}
    ancestors = " or ".join(f"ancestor::{t}" for t in sorted(hidden))
    return "".join(root.xpath(f"//text()[not({ancestors})]"))


def check_invariants(html: str | bytes, extractor: str = "default",
                     content_type: str | None = None) -> None:
    """Assert the invariants above for one input; raises AssertionError naming the broken one."""
    result = extract(html, "https://fuzz.example/page", extractor=extractor, content_type=content_type)
    assert reason_kind(result.reason) != "error", f"extract() swallowed an exception: {result.reason}"
    for block in result.blocks:
        assert block.label in LABELS, f"block {block.index} has label {block.label!r}"
        assert 0.0 <= block.score <= 1.0, f"block {block.index} has score {block.score} ({block.step})"
    json.dumps(result.as_dict())
    if not result.text:
        return
    kind = reason_kind(result.reason)
    if kind == TOO_DEEP:  # re-read flat, hidden elements cut by ``salvage``'s own scan
        assert HIDDEN_MARK not in result.text, "text from a hidden element reached the clean text"
        return
    visible, pos = _squeeze(visible_text(html, content_type, reopened=kind == DAMAGED_HEAD)), 0
    assert result.text.count(HIDDEN_MARK) <= visible.count(HIDDEN_MARK), \
        "text from a hidden element reached the clean text"
    for block in result.content_blocks:
        found = visible.find(_squeeze(block.text), pos)
        assert found >= 0, f"content block {block.index} {escape(block.text[:60])!r} is not page text in order"
        pos = found + len(_squeeze(block.text))
