"""What the cut keeps that a reader never sees as the page's content.

The classifier scores each block from what it reads like and where it sits;
some text reads like the content and still is not what a reader is shown
as the page's text, and the page's markup says so plainly. After the cut
(``decide``), kept blocks of these kinds are left out, and each rule
leaves the page something kept:

- ``<noscript>`` copies (``without_noscript``);
- on product pages, boxes of customer reviews (``without_reviews``);
- responsive copies: the same text twice, once for small screens and once
  for large ones (``without_copies``);
- form controls: the options of a ``<select>``, a ``<textarea>``'s preset
  text (``without_form_controls``);
- on pages other than articles and documentation, text kept again: a
  dialog, a tile's blurb, a legal notice written out once per item
  (``without_repeats``);
- blocks whose own element the markup hides (``without_hidden``);
- on articles, boxes whose id or class names them chrome: related stories,
  share bars, a gallery's captions (``chromenames.without_chrome_boxes``).

Each was measured on the out-of-fold second-stage probabilities of the six
training sets (the fold models of the cross-validated run), its choice made
on four domain folds and applied to the fifth.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from operator import attrgetter
from typing import Callable, Sequence

import numpy as np

from ...blocks import Ancestor, Block, class_tokens, name_tokens
from .chromenames import without_chrome_boxes
from .comments import PAGE_TAGS
from .text import shows_markup

#: An id or class name whose token starts with one of these names a box of customer reviews.
REVIEW_WORDS = ("review", "testimonial", "rating")
#: ... or ends with one of these (``customerReviews``), unless with one of the last.
REVIEW_ENDS, NOT_REVIEW_ENDS = ("review", "reviews"), ("preview", "previews")
#: Id/class tokens that say an element is shown on one kind of screen only, or not at all.
VIEWPORT_WORDS = frozenset({"mobile", "desktop", "tablet", "hidden", "hide"})
#: Elements whose text is a form's input, never the page's prose.
FORM_CONTROL_TAGS = frozenset({"option", "select", "textarea"})
_TAG = attrgetter("tag")
_XPATH = attrgetter("xpath")
_HIDDEN = attrgetter("hidden")
#: Page types (``page.page_type``) whose repeated text stays: an article quotes (a pull
#: quote, a repeated line of a poem, a test page's repeated paragraph) and documentation
#: repeats on purpose (a step, a signature, a table's "yes"), and what is kept twice is
#: there on the reader's screen twice.
REPEATS_KEPT_ON = frozenset({"article", "documentation"})


def left_out(blocks: Sequence[Block], keep: np.ndarray, words: np.ndarray,
             page_type: str = "") -> np.ndarray:
    """``keep`` without what the rules of this module leave out (``page_type`` as ``decide``)."""
    keep = without_noscript(blocks, keep, words)
    if page_type == "product":
        keep = without_reviews(blocks, keep)
    folded: dict[int, str] = {}  # the kept texts case folded, for both rules of copies
    keep = without_copies(blocks, keep, folded)
    keep = without_form_controls(blocks, keep)
    if page_type and page_type not in REPEATS_KEPT_ON:
        keep = without_repeats(blocks, keep, folded)
    keep = without_hidden(blocks, keep)
    if page_type == "article":
        keep = without_chrome_boxes(blocks, keep, words)
    return keep


def _unless_all(keep: np.ndarray, drop: np.ndarray) -> np.ndarray:
    """``keep`` without ``drop``, unless that leaves nothing (an empty output scores zero)."""
    if not drop.any() or not (keep & ~drop).any():
        return keep
    return keep & ~drop


def _kept(blocks: Sequence[Block], keep: np.ndarray) -> list[Block]:
    """The kept blocks, for a rule's one look over all of them before any per-block test."""
    return [blocks[i] for i in np.flatnonzero(keep).tolist()]


def _kept_where(blocks: Sequence[Block], keep: np.ndarray,
                test: Callable[[Block], bool]) -> np.ndarray:
    """Which kept blocks pass ``test`` (called on kept blocks only)."""
    out = np.zeros(len(blocks), dtype=bool)
    for i in np.flatnonzero(keep).tolist():
        out[i] = test(blocks[i])
    return out


def without_noscript(blocks: Sequence[Block], keep: np.ndarray, words: np.ndarray) -> np.ndarray:
    """``keep`` without the kept blocks inside ``<noscript>`` when the kept blocks outside
    hold at least as many words, and without a ``<noscript>``'s own text that is escaped
    markup in any case (unless that leaves nothing).

    ``<noscript>`` is what a browser without scripts shows instead of the
    page's scripted part: a copy of the article (the classifier keeps both,
    and precision halves), a "JavaScript is disabled" notice, a tracking
    pixel's markup. When the page's own text already holds the content the
    copy is never the content; when the page's text is in ``<noscript>``
    alone (a page rendered by script) it stays. Text written straight into
    a ``<noscript>`` is a block of its own with that tag
    (``segment.TEXT_BOX_TAGS``), so it is seen here too. When that text is
    markup (``text.shows_markup``: the page was saved by a browser that ran
    scripts, which keeps a ``<noscript>``'s content as text) it is a pixel's
    or a notice's tags, never the page's words, however few words the page
    has outside: word counts cannot weigh it against unspaced (Chinese,
    Japanese) prose, where a paragraph is a handful of "words" and a
    pixel's URL a dozen (Readability's yahoo-4 page). No constant: out of
    fold on the six sets the first rule changed 15 pages, every one up
    (WCXB-dev precision +0.0006, L3S-GN1 +0.0004, Readability +0.0003,
    sites-dev +0.0005); the markup rule changed one, that yahoo-4 page
    (F1 0.235 -> 0.903: Readability precision 0.943 -> 0.949).
    """
    # A block under a <noscript> has it as a step of its XPath, which names every element
    # from the root down (its ancestor records are the nearest of them): one substring
    # search per kept block finds the few whose tag and chain are worth looking at.
    if "noscript" not in "\n".join(map(_XPATH, _kept(blocks, keep))):  # one search, most pages
        return keep
    inside = _kept_where(blocks, keep, lambda b: "noscript" in b.xpath and (
        b.tag == "noscript" or "noscript" in map(_TAG, b.ancestors)))
    if inside.any() and words[keep & ~inside].sum() >= words[inside].sum():
        return keep & ~inside
    return _unless_all(keep, _kept_where(
        blocks, keep & inside, lambda b: b.tag == "noscript" and shows_markup(b.text)))


def without_reviews(blocks: Sequence[Block], keep: np.ndarray) -> np.ndarray:
    """``keep`` without the blocks in review boxes, unless that leaves nothing.

    A product page's reference keeps the description and specifications and
    leaves out customer reviews, which read like them from inside the page
    (first person, prose, the product's name): the classifier keeps them,
    and they were half of the product pages' lost precision. Their boxes say
    what they hold. Only on pages called products: on articles and service
    pages a "review" box is often the content (a film review, a case study).
    Out of fold (six sets, nested over the 5 domain folds: four chose it):
    WCXB-dev product F1 0.554 -> 0.568, precision 0.615 -> 0.640, no other set moved.
    """
    return _unless_all(keep, _kept_where(blocks, keep, in_review_box))


def in_review_box(block: Block) -> bool:
    """Whether one of a block's ancestors below the page-sized ones is named a review box."""
    return any(a.tag not in PAGE_TAGS and names_reviews(a.id, a.classes) for a in block.ancestors)


@lru_cache(maxsize=8192)
def names_reviews(ident: str, classes: tuple[str, ...]) -> bool:
    """Whether an id or one of the classes names a box of customer reviews (``reviews``,
    ``customer-review``, ``customerReviews``, ``star-rating``; not ``preview``)."""
    return any(t.startswith(REVIEW_WORDS) or (t.endswith(REVIEW_ENDS) and not t.endswith(NOT_REVIEW_ENDS))
               for name in (ident, *classes) for t in name_tokens(name))


def without_copies(blocks: Sequence[Block], keep: np.ndarray,
                   folded: dict[int, str] | None = None) -> np.ndarray:
    """``keep`` with one of each responsive copy: the same text kept twice where one copy
    sits in an element named for a kind of screen (``mobileText``, ``desktop``, ``hide``).

    Responsive pages write a section twice, once laid out for phones and
    once for wide screens, and a style sheet shows one; the page's text
    holds it once (every reference does), but the classifier sees two
    identical, equally good paragraphs and keeps both: on product and
    landing pages precision halves. Where the copies' paths part, one of
    them runs through an element whose id or class names a screen or
    hiding (``VIEWPORT_WORDS``); the copy so named goes (the later one when
    both are). Identical text without such a name stays: a quoted post in
    a forum thread, a repeated step in a tutorial, a test page's repeated
    paragraph are on the reader's screen twice. Out of fold (six sets,
    nested over the 5 domain folds, every fold chose it): WCXB-dev precision
    +0.0055, F1 +0.003 (112 pages changed, 90 up; every page type up,
    product +0.006), no other set moved; any duplicate left out, without
    the name, took Readability F1 0.933 -> 0.898.
    """
    pairs = _later_copies(blocks, keep, folded)
    if not pairs:
        return keep
    keep = keep.copy()
    for j, i in pairs:
        if not keep[j]:
            continue  # the first copy went for an earlier one: this one stays
        named_j, named_i = _screen_named(blocks[j].ancestors, blocks[i].ancestors)
        if named_i or named_j:
            keep[i if named_i or not named_j else j] = False
    return keep


def _screen_named(a: tuple[Ancestor, ...], b: tuple[Ancestor, ...]) -> tuple[bool, bool]:
    """Whether the part of each path below where the two paths part names a screen."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return (any(names_screen(x.id, x.classes) for x in a[n:]),
            any(names_screen(x.id, x.classes) for x in b[n:]))


@lru_cache(maxsize=8192)
def names_screen(ident: str, classes: tuple[str, ...]) -> bool:
    """Whether an id or one of the classes names a kind of screen or hiding
    (``VIEWPORT_WORDS``). Remembered, as ``names_reviews``: the copies of a page share
    their boxes, and pages share their themes' names, while tokenising them was most of
    what finding the copies cost."""
    return bool(class_tokens(ident, classes) & VIEWPORT_WORDS)


def without_form_controls(blocks: Sequence[Block], keep: np.ndarray) -> np.ndarray:
    """``keep`` without the text of form controls (``FORM_CONTROL_TAGS``).

    A ``<select>``'s options (countries, sizes, sort orders) and a
    ``<textarea>``'s preset text (a "republish this story" box holds the
    whole article's HTML) are input for the reader to choose or copy, not
    text the page says. Out of fold: 28 pages changed, every one up
    (WCXB-dev F1 +0.0005, CleanEval +0.0009); the kept options of the six
    sets matched no reference word, nor did the three kept textareas.
    """
    if FORM_CONTROL_TAGS.isdisjoint(map(_TAG, _kept(blocks, keep))):
        return keep
    return _unless_all(keep, _kept_where(blocks, keep, lambda b: b.tag in FORM_CONTROL_TAGS))


def without_repeats(blocks: Sequence[Block], keep: np.ndarray,
                    folded: dict[int, str] | None = None) -> np.ndarray:
    """``keep`` without the kept blocks whose text (case folded) a kept block before them
    already holds: the first copy stays.

    On product pages, listings, collections, forums and service pages the
    text kept twice is what the page prints once per item or per dialog,
    not what it says: the same "Why am I seeing this ad" dialog once per ad
    slot (eBay), the same shipping note under every variant, the same
    legal line per tile. No reference of these types keeps such a copy
    (its words count once), while the classifier, which sees two identical
    blocks, keeps both. Not on articles (``REPEATS_KEPT_ON``), where a
    repeated paragraph is on the reader's screen twice: left out on every
    page it took Readability F1 0.933 -> 0.900. Out of fold on the six sets,
    nested over the 5 domain folds (scope: all pages, all but articles, all
    but articles and documentation, products only; 1, 3 or 5 words at
    least; two or three copies): every fold chose all but articles and
    documentation, four with any block of a word or more. WCXB-dev precision
    0.865 -> 0.873, F1 0.866 -> 0.869 (product 0.592 -> 0.600, collection
    +0.007, listing +0.006, forum +0.007); no other set moved by 0.0005.
    """
    later = [i for _, i in _later_copies(blocks, keep, folded) if blocks[i].words]
    if not later:
        return keep
    keep = keep.copy()
    keep[later] = False
    return keep


def _later_copies(blocks: Sequence[Block], keep: np.ndarray,
                  folded: dict[int, str] | None = None) -> list[tuple[int, int]]:
    """(first, later) indices of the kept blocks whose case-folded text the first kept
    block with that text already holds, in page order.

    ``folded`` keeps each block's case-folded text by index for the next call on the
    page (``left_out`` asks for the copies twice, the second time among fewer kept
    blocks): folding a page's kept text was most of this function.
    """
    if folded is None:
        folded = {}
    rows = np.flatnonzero(keep).tolist()
    # ``str.lower`` writes every character as one but U+0130, which it writes as two: texts
    # whose lengths so counted differ never fold to the same text, and most pages keep no
    # two of one length, so their kept text (an article's paragraphs) is never folded.
    texts = [blocks[i].text for i in rows]
    sizes = list(map(len, texts))
    if "\u0130" in "".join(texts):  # rare: count it twice, as lower() writes it
        sizes = [len(t) + t.count("\u0130") for t in texts]
    if len(set(sizes)) == len(sizes):
        return []
    counts = Counter(sizes)
    rows = [i for i, size in zip(rows, sizes) if counts[size] > 1]
    new = [i for i in rows if i not in folded]
    folded.update(zip(new, [blocks[i].text.lower() for i in new]))
    texts = list(map(folded.__getitem__, rows))
    if len(set(texts)) == len(texts):  # most pages keep no text twice: one set says so
        return []
    first: dict[str, int] = {}
    pairs = []
    for i, low in zip(rows, texts):
        j = first.setdefault(low, i)
        if j != i:
            pairs.append((j, i))
    return pairs


def without_hidden(blocks: Sequence[Block], keep: np.ndarray) -> np.ndarray:
    """``keep`` without the blocks whose own element is hidden (``Block.hidden``: a
    ``hidden`` attribute, an inline ``display: none`` or ``visibility: hidden``),
    unless that leaves nothing.

    A browser does not show such an element, and the classifier, which reads
    text and places, cannot tell: a hidden copy of a paragraph, a collapsed
    "read more" sentence, a template's placeholder. Readability drops them
    too (its test page ``hidden-nodes``). Only the block's own element counts:
    a box hidden around many blocks is often the content that a script
    reveals (tabs, accordions, an article split into slides), and leaving out
    every kept block under a hidden ancestor emptied real articles
    (WCXB-dev 4503: F1 0.89 -> 0.13). Out of fold on the six sets (the
    eleventh session's fold models): 22 pages changed, 20 up; Readability F1
    0.9480 -> 0.9519 (its hidden-nodes page 0.495 -> 0.957), L3S-GN1 precision
    0.9570 -> 0.9581, WCXB-dev 0.8761 -> 0.8770 (F1 +0.0004); CleanEval,
    sites-dev and trafilatura-eval unchanged. Hidden ancestors as well took
    CleanEval F1 -0.0011; class names that hide (``sr-only``, ``d-none``) as
    well moved no set by more than 0.0004.
    """
    if not any(map(_HIDDEN, _kept(blocks, keep))):  # one pass, most pages
        return keep
    return _unless_all(keep, _kept_where(blocks, keep, _HIDDEN))
