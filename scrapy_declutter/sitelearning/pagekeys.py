"""What site learning reads of a page whatever its site's model: computed once per page.

The keys depend on the blocks and the generic labels only, so the site step keeps
them on the page (``PAGE_KEYS``): a page held in its warm-up reads them back when
it is labelled at release.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from ..blocks import CONTENT
from ..page import Slot
from .fingerprints import fingerprint
from .places import Places, containers, folded_hash, keyed_at

if TYPE_CHECKING:
    from ..blocks import Block
    from ..page import Page

#: Blocks with this link density or more (menus, link lists) get no structural key.
STRUCTURE_MAX_LINKS = 0.5
#: A page's container holds this share of its confident content characters.
CONTAINER_SHARE = 0.8
#: A page teaches no container with fewer confident content characters than this.
CONTAINER_MIN_CHARS = 400
#: The score that separates content from boilerplate for a step that publishes none.
DEFAULT_CUT = 0.5
#: Content blocks at least this long identify a near-copy (``SiteLearner._near_copy``).
DUPLICATE_MIN_CHARS = 100
#: How many of a page's longest content blocks must all be known for it to be a near-copy.
DUPLICATE_BLOCKS = 3


@dataclass
class PageKeys:
    """A page's blocks as site learning compares them across pages (see the module docstring)."""

    places: Places
    #: Fingerprints (``model.fingerprint``) of the blocks, in order.
    fingerprints: list[int]
    #: Structural keys (``places.structure_key``, 0: none) of the blocks, in order.
    structures: list[int] = field(default_factory=list)
    #: Structural key -> (text, path) of its block: the example of a key that becomes template.
    samples: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: The places that held the page's confident content (none: too little of it).
    containers: list[str] = field(default_factory=list)
    #: How sure the generic steps were of each block's label (``confidences``), in order.
    confidences: list[float] = field(default_factory=list)
    #: The blocks labelled content, and boilerplate, with confidence (``confident``): what
    #: the page teaches its classifier, but for those the site's rules relabel.
    sure_content: list[int] = field(default_factory=list)
    sure_boilerplate: list[int] = field(default_factory=list)
    #: Characters of the blocks the generic steps labelled content.
    content_chars: int = 0
    #: Fingerprints of its ``DUPLICATE_BLOCKS`` longest content blocks of at least
    #: ``DUPLICATE_MIN_CHARS`` (longest first, a larger fingerprint first among equals).
    longest: list[int] = field(default_factory=list)


#: The page's keys, put there by the site step the first time it labels the page.
PAGE_KEYS: Slot[PageKeys] = Slot("site learning keys")


def confidences(blocks: Sequence["Block"], cuts: Mapping[str, float]) -> list[float]:
    """How far each block's score is past its step's cut (``cuts[step]``, else
    ``DEFAULT_CUT``), on the side of its label."""
    return [b.score - cuts.get(b.step or "", DEFAULT_CUT) if b.label == CONTENT
            else cuts.get(b.step or "", DEFAULT_CUT) - b.score for b in blocks]


def page_keys(page: "Page", *, cuts: Mapping[str, float], confident: float) -> PageKeys:
    """The page's keys; ``cuts``: the steps' cuts (``confidences``), ``confident`` the least
    confidence that makes a label sure. A line of words that names someone, not a link
    list, gets a structural key (``places.folded_hash``)."""
    blocks = page.blocks
    places = Places(blocks)
    how_sure = confidences(blocks, cuts)
    keys = PageKeys(places, [fingerprint(b.text) for b in blocks], confidences=how_sure)
    keys.structures = [0] * len(blocks)
    for i, b in enumerate(blocks):
        if b.link_density < STRUCTURE_MAX_LINKS and b.words >= 3:
            folded = folded_hash(b.text)
            if folded:
                path = places.path(i)
                key = keys.structures[i] = keyed_at(path, folded)
                keys.samples[key] = (b.text, path)
    keys.containers = containers(places, [
        b.text_chars if c >= confident and b.is_content else 0
        for b, c in zip(blocks, how_sure)],
        share=CONTAINER_SHARE, min_total=CONTAINER_MIN_CHARS)
    keys.sure_content = [i for i, c in enumerate(how_sure)
                         if c >= confident and blocks[i].is_content]
    keys.sure_boilerplate = [i for i, c in enumerate(how_sure)
                             if c >= confident and not blocks[i].is_content]
    keys.content_chars = sum(b.text_chars for b in blocks if b.is_content)
    longest = sorted(((b.text_chars, fp) for b, fp in zip(blocks, keys.fingerprints)
                      if b.is_content and b.text_chars >= DUPLICATE_MIN_CHARS), reverse=True)
    keys.longest = [fp for _, fp in longest[:DUPLICATE_BLOCKS]]
    return keys
