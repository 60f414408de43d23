"""What site learning reads of a page whatever its site's model: computed once per page.

The keys depend on the blocks and the generic labels only; the site step leaves them
on the page (``PAGE_KEYS``) for what explains its labels (``lab``'s rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

from ..blocks import CONTENT
from ..page import Slot
from .fingerprints import fingerprint
from .places import Places, containers, folded_hash, keyed_at

if TYPE_CHECKING:
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
    #: Structural keys (``places.keyed_at``, 0: none) of the blocks, in order.
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


#: The page's keys, put there by the site step.
PAGE_KEYS: Slot[PageKeys] = Slot("site learning keys")


def page_keys(page: "Page", *, cuts: Mapping[str, float], confident: float) -> PageKeys:
    """The page's keys, in one pass over its blocks; ``cuts``: the steps' cuts (else
    ``DEFAULT_CUT``), ``confident`` the least confidence (how far a block's score is past its
    step's cut, on its label's side) that makes a label sure. A line of words that names
    someone, not a link list, gets a structural key (``places.folded_hash``)."""
    blocks = page.blocks
    n = len(blocks)
    keys = PageKeys(Places(blocks), [0] * n, [0] * n, confidences=[0.0] * n)
    fps, structures, how_sure = keys.fingerprints, keys.structures, keys.confidences
    weights, longest = [0] * n, []
    for i, b in enumerate(blocks):
        fp = fps[i] = fingerprint(b.text)
        cut = cuts.get(b.step or "", DEFAULT_CUT)
        if b.label == CONTENT:
            sure = how_sure[i] = b.score - cut
            keys.content_chars += b.text_chars
            if sure >= confident:
                weights[i] = b.text_chars
                keys.sure_content.append(i)
            if b.text_chars >= DUPLICATE_MIN_CHARS:
                longest.append((b.text_chars, fp))
        else:
            sure = how_sure[i] = cut - b.score
            if sure >= confident:
                keys.sure_boilerplate.append(i)
        if b.link_density < STRUCTURE_MAX_LINKS and b.words >= 3:
            folded = folded_hash(b.text)
            if folded:
                path = keys.places.path(i)
                key = structures[i] = keyed_at(path, folded)
                keys.samples[key] = (b.text, path)
    keys.containers = containers(keys.places, weights, share=CONTAINER_SHARE,
                                 min_total=CONTAINER_MIN_CHARS)
    keys.longest = [fp for _, fp in sorted(longest, reverse=True)[:DUPLICATE_BLOCKS]]
    return keys
