"""The inspection report: one self-contained HTML page per Result, and an index.

Everything taken from the page (block text, title, URL, ids, classes, and
the optional block fields steps set, such as jusText's classes) goes through ``html.escape``, so a
report never carries the page's markup; a Content-Security-Policy that allows
no script, no network and no frames backs that up should anything slip. The
report has no script at all: blocks expand with ``<details>``, the
"hide boilerplate" switch is a checkbox and CSS ``:has()``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from numbers import Real
from typing import TYPE_CHECKING, Any, Iterable

from ..version import __version__
from .charts import OPTIONAL_FEATURES, optional_numbers, panels_for, render_panel

if TYPE_CHECKING:
    from ..blocks import Block
    from ..result import Result

#: Longest text value shown in a block's feature table, in characters.
MAX_EXTRA_TEXT = 200
#: What the report may load: nothing but its own inline style (and data: images).
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

CSS = """
:root{--c:#c92a2a;--cb:#fff0f0;--b:#1971c2;--bb:#eef5fc;--fg:#212529;--mute:#6c757d}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
 margin:0 auto;max-width:1180px;padding:12px 18px}
h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:18px 0 6px;border-bottom:1px solid #dee2e6}
.meta{color:var(--mute);margin:2px 0;overflow-wrap:anywhere}
.counts{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0;padding:0}
.counts li{list-style:none;border:1px solid #dee2e6;border-radius:6px;padding:4px 10px}
.counts b{font-size:16px}.reason{color:#e67700;font-weight:600}
.key i{display:inline-block;width:11px;height:11px;border-radius:2px;margin:0 3px 0 10px;
 vertical-align:-1px}
.key .kc{background:var(--c)}.key .kb{background:var(--b)}
figure{margin:0 0 8px}
figcaption{font-size:12px;color:var(--mute);display:flex;justify-content:space-between}
figcaption b{color:var(--fg);font-weight:600}
svg.chart{display:block;width:100%;height:56px;background:#f8f9fa;border:1px solid #e9ecef}
svg .c{fill:var(--c)}svg .b{fill:var(--b)}svg a:hover rect{fill:#f59f00}
svg .axis{stroke:#adb5bd;stroke-width:1}
ol.blocks{list-style:none;padding:0;margin:0}
ol.blocks>li{margin:2px 0;border-left:4px solid;border-radius:3px}
ol.blocks>li.content{background:var(--cb);border-color:var(--c)}
ol.blocks>li.boilerplate{background:var(--bb);border-color:var(--b);color:#495057}
li:target{outline:2px solid #f59f00}
summary{cursor:pointer;padding:3px 8px;display:flex;gap:8px;align-items:baseline}
summary .n{color:var(--mute);font-size:12px;min-width:34px;text-align:right}
.lab{font-size:11px;font-weight:700;text-transform:uppercase;border-radius:3px;padding:0 5px;
 color:#fff;white-space:nowrap}
li.content .lab{background:var(--c)}li.boilerplate .lab{background:var(--b)}
.st,.tg{font-size:12px;color:var(--mute);white-space:nowrap}
.sr{font-size:11px;font-weight:700;color:#e67700;white-space:nowrap}
.tx{flex:1;overflow-wrap:anywhere}
table.f{margin:4px 8px 8px 50px;border-collapse:collapse;font-size:12px}
table.f th{text-align:left;font-weight:600;padding:1px 12px 1px 0;color:var(--mute);
 vertical-align:top}
table.f td{padding:1px 0;overflow-wrap:anywhere;font-family:ui-monospace,Menlo,Consolas,monospace}
.switch{font-size:13px;color:var(--mute)}
body:has(#hide-bp:checked) li.boilerplate{display:none}
pre.clean{white-space:pre-wrap;overflow-wrap:anywhere;background:#f8f9fa;border:1px solid #e9ecef;
 padding:10px;font:13px/1.5 ui-monospace,Menlo,Consolas,monospace}
table.idx{border-collapse:collapse;width:100%}
table.idx td,table.idx th{border-bottom:1px solid #e9ecef;
 padding:4px 8px;text-align:left;vertical-align:top}table.idx td.r,table.idx th.r{text-align:right}
footer{color:var(--mute);font-size:12px;margin:24px 0 8px}
"""


def _fmt(v: Any) -> str:
    """A feature value as short, escaped text."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Real):
        return f"{float(v):.4g}"
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    if len(text) > MAX_EXTRA_TEXT:
        text = text[:MAX_EXTRA_TEXT] + "…"
    return escape(text)


def tag_path(block: "Block") -> str:
    """``html > body > div#main.post > p``: the block's nearest ancestors, CSS-selector style."""
    return " > ".join(a.selector for a in block.ancestors)


def _features(block: "Block") -> str:
    rows: list[tuple[str, str]] = [
        ("words", f"{block.words} ({block.link_words} in links)"),
        ("link density", _fmt(block.link_density)),
        ("text density", _fmt(block.text_density)),
        ("char density", f"{_fmt(block.char_density)} ({block.text_chars} text / "
                         f"{block.markup_chars} markup chars, {block.tag_count} tags)"),
        ("stop-word density", f"{_fmt(block.stopword_density)} ({block.stopwords} stop words)"),
        ("position", _fmt(block.position)),
        ("tag path", escape(tag_path(block))),
        ("xpath", escape(block.xpath)),
        ("id/class tokens", escape(" ".join(dict.fromkeys(block.tokens()))) or "—"),
        ("decisions", escape(" → ".join(f"{s}: {lab}" for s, lab in block.trail)) or "—"),
    ]
    if block.site_reason is not None:
        rows.append(("site learning", escape(block.site_reason.describe())))
    for name in OPTIONAL_FEATURES:
        value = getattr(block, name)
        if value is not None:
            rows.append((name, _fmt(value)))
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="f">{body}</table>'


def _block(block: "Block") -> str:
    label = escape(block.label)
    return (
        f'<li id="b{block.index}" class="{label}"><details><summary>'
        f'<span class="n">{block.index}</span>'
        f'<span class="lab">{label} {block.score:.2f}</span>'
        f'<span class="st">{escape(block.step or "unlabelled")}</span>'
        + (f'<span class="sr" title="{escape(block.site_reason.describe())}">site</span>'
           if block.site_reason is not None else "")
        + f'<span class="tg">&lt;{escape(block.tag)}&gt;</span>'
        f'<span class="tx">{escape(block.text)}</span>'
        f"</summary>{_features(block)}</details></li>"
    )


@dataclass(frozen=True)
class Counts:
    """What the exported text kept of the page."""

    blocks: int
    kept: int
    chars: int
    chars_kept: int
    words_kept: int

    @classmethod
    def of(cls, result: "Result") -> "Counts":
        kept = result.content_blocks
        return cls(len(result.blocks), len(kept), sum(b.text_chars for b in result.blocks),
                   sum(b.text_chars for b in kept), sum(b.words for b in kept))

    @property
    def share(self) -> str:
        return f"{100 * self.chars_kept / self.chars:.0f}%" if self.chars else "–"


def _head(title: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
    )


def _footer() -> str:
    return (f"<footer>scrapy_declutter {escape(__version__)} inspection report. "
            "Self-contained: no script, nothing loaded from the network.</footer></body></html>\n")


def render_report(result: "Result", *, source: str | None = None) -> str:
    """The full report for one Result, as an HTML string.

    ``source`` names where the page came from (a path) when the Result has no URL.
    """
    c = Counts.of(result)
    blocks = result.blocks
    where = result.url or source or ""
    meta = " · ".join(escape(x) for x in (
        where, f"site {result.site}" if result.site else "",
        f"language {result.language}" if result.language else "",
        f"extractor {result.extractor}" if result.extractor else "") if x)
    out = [
        _head(f"Declutter: {result.title or where or 'page'}"),
        f"<header><h1>{escape(result.title or '(no title)')}</h1><p class=\"meta\">{meta}</p>",
        '<ul class="counts">',
        f"<li><b>{c.kept}</b> of {c.blocks} blocks kept</li>",
        f"<li><b>{c.blocks - c.kept}</b> dropped</li>",
        f"<li><b>{c.chars_kept:,}</b> characters kept ({c.share} of {c.chars:,})</li>",
        f"<li><b>{c.words_kept:,}</b> words kept</li></ul>",
    ]
    if result.reason:
        out.append(f'<p class="reason">Not analysed: {escape(result.reason)}</p>')
    site = result.site_learning
    if site is not None:  # what the site step decided on this page
        out.append(
            f'<p class="meta facts">site learning: model of {site.pages} pages · '
            f"{site.template} template blocks · {site.voted} voted by the n-gram classifier · "
            f"supervised: {_fmt(site.supervised)}</p>"
        )
    extras = optional_numbers(blocks)
    out.append(
        '<p class="key">Colours:<i class="kc"></i>content<i class="kb"></i>boilerplate'
        + (f" · optional features: {escape(', '.join(extras))}" if extras else "")
        + ' · <a href="#charts">charts</a> · <a href="#blocks">blocks</a> · '
        '<a href="#text">clean text</a></p></header>'
    )
    out.append('<section id="charts"><h2>Per-block charts</h2>')
    if blocks:
        for panel in panels_for(blocks):
            note = f" ({escape(panel.note)})" if panel.note else ""
            out.append(
                f"<figure><figcaption><span><b>{escape(panel.title)}</b>{note}</span>"
                f"<span>{panel.low:.3g} … {panel.high:.3g}</span></figcaption>"
                f"{render_panel(panel, blocks)}</figure>"
            )
    else:
        out.append("<p>No blocks.</p>")
    out.append(
        '</section><section id="blocks"><h2>Blocks in page order</h2>'
        '<p class="switch"><label><input type="checkbox" id="hide-bp"> hide boilerplate</label>'
        " · click a block for its features</p>"
        '<ol class="blocks">'
    )
    out.extend(_block(b) for b in blocks)
    out.append('</ol></section><section id="text"><h2>Clean text as exported</h2>')
    out.append(f'<pre class="clean">{escape(result.text)}</pre></section>')
    out.append(_footer())
    return "".join(out)


@dataclass(frozen=True)
class IndexEntry:
    """One line of the index: the report's file name relative to the index, and its Result."""

    href: str
    result: "Result"
    source: str = ""


def render_index(entries: Iterable[IndexEntry], *, title: str = "Declutter reports") -> str:
    """An index page linking several reports, with each page's counts."""
    rows = []
    for e in entries:
        c = Counts.of(e.result)
        name = e.result.title or e.result.url or e.source or e.href
        where = e.result.url or e.source
        reason = (f'<br><span class="reason">{escape(e.result.reason)}</span>'
                  if e.result.reason else "")
        rows.append(
            f'<tr><td><a href="{escape(e.href)}">{escape(name)}</a>'
            f'<div class="meta">{escape(where)}</div>{reason}</td>'
            f'<td class="r">{c.kept} / {c.blocks}</td><td class="r">{c.chars_kept:,}</td>'
            f'<td class="r">{c.share}</td><td>{escape(e.result.extractor)}</td></tr>'
        )
    return (
        _head(title)
        + f"<h1>{escape(title)}</h1>"
        + '<table class="idx"><thead><tr><th>page</th><th class="r">blocks kept</th>'
        '<th class="r">chars kept</th><th class="r">share</th><th>extractor</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
        + _footer()
    )

