"""Reader comments: the boxes that hold them, and the finer label their text gets.

The data sets draw the comment line in one place but one: WCXB, L3S-GN1,
Mozilla Readability's expectations and CleanPortalEval leave reader comments
under an article out of the main content; CleanEval's annotators kept them
as running text. The default follows the majority (and what readers of
article text expect): comments are not content, unless asked for with
``include_comments``. A forum thread is different: its posts are the page,
so on a page the classifier calls a forum they stay content.

A comment box is an element whose id or class names it so (``comments``,
``commentlist``, ``comment-body``, ``disqus_thread``, ``respond``), not the
page-level classes WordPress puts on ``<body>`` (``comments-open``) nor
``commentary``. Training normalises the labels to the default's line
(``lab.training.labels``), and the classifier sees the box as a feature; a
small second model, trained on the comment boxes of the sets whose gold
keeps comment text (CleanEval, WCXB forums), tells a comment's text from
the thread's chrome ("Leave a reply", "Log in to comment"), and that text
gets the label ``comment``.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: A name that names a comment box holds one of these (the compiled chains look for them
#: before they ask ``name_comments``).
COMMENT_WORDS = ("comment", "disqus", "respond", "reactions", "discussion")
_COMMENT = re.compile("|".join(COMMENT_WORDS))
_NOT_COMMENT = re.compile(
    r"commentary|comments?[-_]?(?:open|closed|link|count|icon|number)|no[-_]?comments")
#: Elements too large to be a comment box, whatever their classes say.
PAGE_TAGS = frozenset({"html", "body", "main", "article", "text"})


def is_comment_box(tag: str, ident: str, classes: tuple[str, ...]) -> bool:
    """Whether an element is a box of reader comments: its id or one of its classes names
    one, and it is not a page-sized element."""
    return tag not in PAGE_TAGS and names_comments(ident, classes)


@lru_cache(maxsize=8192)
def names_comments(ident: str, classes: tuple[str, ...]) -> bool:
    """Whether an id or one of the classes names a box of reader comments."""
    return any(map(name_comments, (ident, *classes)))


def name_comments(name: str) -> bool:
    """Whether one id or class name names a box of reader comments (``features`` memoises
    it per name, which sites and themes repeat far more than whole class lists)."""
    if "/" in name:  # a URL used as an id
        return False
    low = name.lower()
    return bool(_COMMENT.search(low)) and not _NOT_COMMENT.search(low)
