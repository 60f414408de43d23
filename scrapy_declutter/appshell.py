"""App shells: pages whose HTML is only a JavaScript application's mount point and scripts.

A crawler runs no scripts. A single-page application's HTML then shows
almost nothing: an empty ``<div id="root">`` (React), ``#__next`` (Next.js),
``#__nuxt``/``#app`` (Nuxt, Vue), ``#___gatsby``, ``<app-root>`` (Angular),
perhaps a ``<noscript>`` asking for JavaScript, and the scripts that will
fill it. Such a page is told apart from a page that simply has little text
by all three signs at once (``find_app_shell``):

- the page shows at most ``SHELL_MAX_WORDS`` words (every block but hidden
  ones, ``<noscript>`` fallbacks included: Discourse and Flarum put whole
  forums there, and those are not shells);
- a mount element holds at most ``MOUNT_MAX_WORDS`` of them ("Loading…");
- the page has scripts (``<script>`` elements other than JSON-LD).

Many shells carry their content as data for the application to render:
Next.js's ``<script id="__NEXT_DATA__">``, Nuxt's ``__NUXT_DATA__`` or
``window.__NUXT__``, a JSON-LD ``articleBody``. That text is read with
``json`` and extruct (``embedded_text``) and becomes blocks of its own
(``AppShell.blocks``), which the ``embedded`` step (``steps.embedded``) makes
the page's content. The check runs only when the page's text is tiny, so an
ordinary page pays one sum over its first blocks.
"""

from __future__ import annotations

import html
import json
import logging
import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from lxml import etree

from .blocks import Block
from .segment import segment

logger = logging.getLogger(__name__)

#: A page showing more words than this is not a shell: shells show a ``<noscript>``
#: notice, a "Loading" or a cookie line, pages with content more (docs/output.md,
#: "App shells", gives the margin on WCXB-dev).
SHELL_MAX_WORDS = 60
#: Words a mount element may hold and still be empty ("Loading…", "Please wait").
MOUNT_MAX_WORDS = 5
#: Ids of the elements single-page frameworks mount into (React's templates, Vue's,
#: Next.js, Nuxt 2 and 3, Gatsby, SvelteKit's templates).
MOUNT_IDS = frozenset({"root", "app", "__next", "__nuxt", "___gatsby", "svelte", "react-root",
                       "app-root"})
#: Custom elements frameworks mount into (Angular's default root component).
MOUNT_TAGS = frozenset({"app-root"})
#: The step name on the blocks of an app shell (``steps.embedded``).
EMBEDDED_STEP = "embedded"
#: Embedded text shorter than this is a label or a button, not a page's content.
EMBEDDED_MIN_WORDS = 20
#: Keys whose string, beside an embedded body, is its title.
TITLE_KEYS = ("headline", "title", "name")

_SCRIPTS = etree.XPath("//script[not(@type='application/ld+json')]")
_VISIBLE_TEXT = etree.XPath(".//text()[not(ancestor::script or ancestor::style or ancestor::template)]")
_NUXT_STATE = re.compile(r"^\s*window\.__NUXT__\s*=\s*")
_HTML_TAG = re.compile(r"<(?:p|h[1-6]|div|ul|ol|li|br|blockquote|pre|table|section|article)\b", re.I)
_BLANK_LINE = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class AppShell:
    """What made a page an app shell, and the text its data embeds."""

    #: The mount element as a CSS selector (``div#root``).
    mount: str
    #: ``<script>`` elements on the page (JSON-LD left out).
    scripts: int
    #: Where the embedded text came from (``__NEXT_DATA__``, ``__NUXT_DATA__``,
    #: ``window.__NUXT__``, ``json-ld``), "" when the page embeds none.
    source: str = ""
    #: The embedded text's blocks, unlabelled, their ``xpath`` the data's ``<script>``.
    blocks: tuple[Block, ...] = ()


def find_app_shell(root: etree._Element, blocks: Sequence[Block]) -> AppShell | None:
    """The page's ``AppShell`` when its tree is one (see the module docstring), else None."""
    shown = 0
    for b in blocks:
        if not b.hidden:
            shown += b.words
            if shown > SHELL_MAX_WORDS:
                return None
    mount = _mount(root)
    if mount is None:
        return None
    scripts = len(_SCRIPTS(root))
    if not scripts:
        return None
    source, found = embedded_text(root)
    selector = mount.tag + (f"#{mount.get('id')}" if mount.get("id") else "")
    return AppShell(selector, scripts, source, found)


def _mount(root: etree._Element) -> etree._Element | None:
    """The first element the application mounts into that holds (almost) no text."""
    for el in root.iter(etree.Element):
        if (el.get("id") in MOUNT_IDS or el.tag in MOUNT_TAGS) and _words(el) <= MOUNT_MAX_WORDS:
            return el
    return None


def _words(el: etree._Element) -> int:
    return sum(len(t.split()) for t in _VISIBLE_TEXT(el))


def embedded_text(root: etree._Element) -> tuple[str, tuple[Block, ...]]:
    """(source, blocks) of the content the page embeds as data; ("", ()) when none.

    Sources in order: Next.js's ``__NEXT_DATA__`` (its page's props), Nuxt's
    ``__NUXT_DATA__`` and ``window.__NUXT__`` (when it is JSON, not a script
    to run), then JSON-LD's ``articleBody``. From each, the longest string of
    prose is the body (HTML or plain text), the title beside it its heading.
    """
    for script in root.iter("script"):
        ident = script.get("id")
        text = script.text or ""
        if ident == "__NEXT_DATA__":
            data, source = read_json(text), ident
            props = data.get("props") if isinstance(data, dict) else None
            if isinstance(props, dict) and props.get("pageProps") is not None:
                data = props["pageProps"]
        elif ident == "__NUXT_DATA__":
            data, source = read_json(text), ident
        elif _NUXT_STATE.match(text):
            data, source = read_json(_NUXT_STATE.sub("", text).rstrip().rstrip(";")), "window.__NUXT__"
        else:
            continue
        found = _body_blocks(data, script)
        if found:
            return source, found
    for script in root.iter("script"):
        if script.get("type") == "application/ld+json":
            found = _body_blocks(_articles(root), script)
            return ("json-ld", found) if found else ("", ())
    return "", ()


def read_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:  # not JSON, or nested past the parser's depth
        logger.debug("embedded data is not JSON: %r", exc)
        return None


def _articles(root: etree._Element) -> list[dict[str, str]]:
    """The JSON-LD objects' ``articleBody`` with their ``headline``, read by extruct."""
    from extruct.jsonld import JsonLdExtractor

    try:
        items = JsonLdExtractor().extract_items(root)
    except Exception as exc:  # noqa: BLE001 - broken JSON-LD must not cost the page its result
        logger.debug("JSON-LD unreadable: %r", exc)
        return []
    found = []
    for obj in json_objects(items):
        body = obj.get("articleBody")
        if isinstance(body, str):
            found.append({"title": obj.get("headline") or obj.get("name") or "", "body": body})
    return found


def json_objects(data: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``data``, depth first, in document order."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _body_blocks(data: Any, script: etree._Element) -> tuple[Block, ...]:
    """The blocks of the longest prose string in ``data``, its title first."""
    best: tuple[int, str, str] = (EMBEDDED_MIN_WORDS - 1, "", "")
    for obj in json_objects(data):
        for value in obj.values() if isinstance(obj, dict) else ():
            if isinstance(value, str) and len(value) > 2 * best[0]:
                words = _prose_words(value)
                if words > best[0]:
                    title = next((obj[k] for k in TITLE_KEYS
                                  if isinstance(obj.get(k), str) and obj[k] is not value), "")
                    best = (words, value, title)
    if isinstance(data, list):  # Nuxt's payload: a flat list of values
        for value in data:
            if isinstance(value, str) and len(value) > 2 * best[0]:
                words = _prose_words(value)
                if words > best[0]:
                    best = (words, value, "")
    _, body, title = best
    return data_blocks(body, title, script) if body else ()


def data_blocks(body: str, title: str, script: etree._Element) -> tuple[Block, ...]:
    """The blocks of a text the page carries as data (``body``, HTML or plain, under
    ``title``), each with the path of the ``script`` that carries it."""
    found = segment(_document(body, title))
    path = script.getroottree().getpath(script)
    for b in found:
        b.xpath = path
    return tuple(found)


def _prose_words(value: str) -> int:
    """Words of a string that reads as prose (most of its words start with a letter), else 0."""
    if _HTML_TAG.search(value):
        value = " ".join(etree.fromstring(f"<div>{value}</div>", etree.HTMLParser()).itertext())
    tokens = value.split()
    letters = sum(t[0].isalpha() for t in tokens)
    return len(tokens) if 2 * letters > len(tokens) else 0


def _document(body: str, title: str) -> etree._Element:
    """A small HTML document of the embedded body (HTML as it is, plain text a paragraph
    per blank-line-separated part), under its title as ``<h1>``."""
    head = f"<h1>{html.escape(' '.join(title.split()))}</h1>" if title.strip() else ""
    if not _HTML_TAG.search(body):
        body = "".join(f"<p>{html.escape(part.strip())}</p>"
                       for part in _BLANK_LINE.split(body) if part.strip())
    return etree.fromstring(f"<html><body><article>{head}{body}</article></body></html>",
                            etree.HTMLParser())
