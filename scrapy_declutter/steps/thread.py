"""Tell a comment thread under a post from the posts of a forum thread.

A blog's "open thread" is a short post followed by a long run of replies. In
markup that does not name them comments (``div.reply``, ``li.response``), a
classifier sees a forum, where every post is content, and keeps the
replies: a 68-word post came out with 500 words. The shape tells them apart.
Each reply opens with a short header (a name and a date) in an element of
its own; a run of such replies whose units share one shape is a thread. On
a forum the first post is one of those units; under a post it is not: the
post's text comes before the first unit, outside every one. Then the units'
text is reader comments (label ``comment``), not content.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..blocks import COMMENT, Block, name_tokens
from . import Step
from .learned.comments import is_comment_box

if TYPE_CHECKING:
    from ..page import Page

#: A date or time as comment headers write them ("March 4, 2026 at 9:15", "4 days ago").
DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b"
    r"|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
    r"|\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b"
    r"|\b\d{1,2}:\d{2}\b"
    r"|\b\d+ (?:second|minute|hour|day|week|month|year)s? ago\b", re.I)
#: A reply header is short; a thread has at least this many replies, most with prose of this
#: many words (a listing's cards with dates have a line or two).
MAX_HEADER_WORDS = 15
MIN_REPLIES = 5
MIN_REPLY_WORDS = 10
#: The page types the classifier gives a page whose replies it keeps as posts ("" when
#: the chain has no page-type classifier).
THREAD_TYPES = frozenset({"forum", ""})
#: Class-name tokens that name a reply to a post.
REPLY_WORDS = frozenset({"reply", "replies", "response", "responses", "comment", "comments"})
#: Words of prose (outside headings) that the post must have before the first reply.
MIN_POST_WORDS = 20
#: A reply closed by its signature, as old blogs and news sites print it: "... Posted by Jane
#: on January 10, 2008 5:15 PM Report this comment" (a time, then a few words at most).
SIGNATURE = re.compile(r"\bposted by\b.{1,80}?\b\d{1,2}:\d{2}(?:\s*[ap]\.?m\b\.?)?(?:\W+\w+){0,4}\W*$",
                       re.I)


def _parent(xpath: str) -> str:
    return xpath.rpartition("/")[0]


def _names_replies(shape: tuple[tuple[str, tuple[str, ...]], ...]) -> bool:
    """Whether the classes of a header or of its unit name a reply (a forum names its
    posts ``message``, ``post``: those stay content)."""
    return any(t in REPLY_WORDS for _, classes in shape for c in classes for t in name_tokens(c))


def _shape(block: Block) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The tag and classes of a block's element and of its parent: what one reply's header
    shares with the next."""
    return tuple((a.tag, a.classes) for a in block.ancestors[-2:])


def reply_units(blocks: list[Block]) -> list[str]:
    """The xpaths of the reply units of the page's longest thread (the parent elements of
    its headers, which share one shape), in page order; [] when it has none."""
    by_shape: dict[tuple, list[str]] = {}
    for b in blocks:
        s = b.structure
        if (b.words <= MAX_HEADER_WORDS and not s.heading and s.row < 0
                and DATE.search(b.text)):
            units = by_shape.setdefault(_shape(b), [])
            unit = _parent(b.xpath)
            if not units or units[-1] != unit:
                units.append(unit)
    units = max((u for shape, u in by_shape.items() if _names_replies(shape)), key=len, default=[])
    if len(units) < MIN_REPLIES:
        return []
    unit_set, prose = set(units), set()
    for b in blocks:
        path = b.xpath if b.words >= MIN_REPLY_WORDS else ""
        while path:
            path = _parent(path)
            if path in unit_set:
                prose.add(path)
                break
    return units if 2 * len(prose) > len(units) else []


def _signs(text: str) -> bool:
    """Whether the text ends with a ``SIGNATURE``; a substring test first, as the pattern
    would try every position of every kept block of every page."""
    return ("osted by" in text or "OSTED BY" in text) and SIGNATURE.search(text) is not None


def signed_replies(blocks: list[Block]) -> range:
    """The blocks of a run of replies that each end with a ``SIGNATURE`` (from the first
    reply's start, after the nearest heading or left-out block, to the last signature);
    empty when fewer than ``MIN_REPLIES`` sign or a heading falls inside (posts, not replies).
    Replies in a box named for comments are left to the learned step (``include_comments``)."""
    ends = [i for i, b in enumerate(blocks) if b.is_content and _signs(b.text)
            and not any(is_comment_box(*a) for a in b.ancestors)]
    if len(ends) < MIN_REPLIES:
        return range(0)
    start = ends[0]
    while start > 0 and blocks[start - 1].is_content and not blocks[start - 1].structure.heading:
        start -= 1
    if any(b.structure.heading for b in blocks[start:ends[-1] + 1]):
        return range(0)
    return range(start, ends[-1] + 1)


def _post_words(blocks: list[Block]) -> int:
    """Words of prose the page keeps outside headings."""
    return sum(b.words for b in blocks if b.is_content and not b.structure.heading)


class CommentThread(Step):
    """Label ``comment`` the content of a thread of replies that follows a post outside it."""

    name = "thread"

    def process(self, page: "Page") -> None:
        blocks = page.blocks
        signed = signed_replies(blocks)
        if signed and _post_words(blocks[:signed.start]) >= MIN_POST_WORDS:
            self._comments(blocks[signed.start:signed.stop])
            return
        if page.page_type not in THREAD_TYPES:
            return
        units = reply_units(blocks)
        if not units:
            return
        prefixes = tuple(u + "/" for u in units)
        first = next(i for i, b in enumerate(blocks) if b.xpath.startswith(prefixes))
        # The post: content before the first unit and outside the element that holds the
        # units (a forum's first post sits in it beside the replies, however it is shaped).
        thread = _parent(units[0]) + "/"
        if _post_words([b for b in blocks[:first] if not b.xpath.startswith(thread)]) \
                < MIN_POST_WORDS:
            return
        self._comments([b for b in blocks[first:] if b.xpath.startswith(prefixes)])

    def _comments(self, blocks: list[Block]) -> None:
        """Label ``comment`` the content among ``blocks``."""
        for b in blocks:
            if b.is_content:
                b.set_label(COMMENT, min(b.score, 0.5), self.name)
