"""How a site's model labels a page, and what the page teaches the model.

The rules the site step applies, in order of trust:

1. the user's supervision (a content selector or the seed's comment markers)
   decides every block of a page that offers it;
2. the template: a block whose fingerprint or structural key (``places``) is on
   ``TEMPLATE_SHARE`` of the site's pages is boilerplate, but for list items
   (``MAX_REPEATS_IN_PAGE``), spec-sheet cells and a short title kept over
   content; it takes no content from a near-copy, from a page it would strip of
   ``MAX_TEMPLATE_CUT`` of its content or with under ``MIN_CONTENT_CHARS``, and
   content only with a second signal (``SiteLearner._may_take``);
3. the content container, on a page whose content is mostly in it: an unsure
   kept block outside the container's parent is boilerplate, but for headings
   and blocks over ``CONTAINER_MAX_CHARS`` (a title or lead above the body);
4. the per-site n-gram classifier, on the ambiguous blocks (score within
   ``ambiguous_margin`` of the cut), with ``vote_bits`` bits a character, and by
   default only on supervised sites: on self-supervised labels alone its votes
   removed good content as often as chrome;
5. otherwise the generic steps' label stands.

Where something votes with the classifier (``train``: the seed's chain,
supervised sites), it learns the supervised blocks, the template (discard) and
the blocks the generic steps decided with ``confident_margin``. Everything is
decided from the model as it was before the page; then the page is learned.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from ..blocks import BOILERPLATE, CONTENT, Block, SiteReason
from .model import MAX_EXAMPLES, MIN_PAGES, MIN_TEMPLATE_PAGES, TEMPLATE_SHARE, SiteModel
from .ngram import DISCARD, KEEP, prepare
from .pagekeys import PageKeys, page_keys

if TYPE_CHECKING:
    from ..page import Page

#: A block whose score is this close to its step's cut is ambiguous.
AMBIGUOUS_MARGIN = 0.15
#: A block whose score is this far past the cut (on its label's side) trains the classifier.
CONFIDENT_MARGIN = 0.3
#: Blocks of each class the classifier must have seen before it votes.
MIN_EXAMPLES = 20
#: Characters per class a page may add to the classifier (bounds per-page cost).
MAX_TRAIN_CHARS = 6000
#: The classifier overrules a generic label only with this many bits of log-odds per character.
VOTE_BITS_PER_CHAR = 2.0
#: The classifier votes only on sites with user-labelled pages (see the module docstring).
VOTE_NEEDS_SUPERVISION = True
#: The template never takes more than this share of a page's content characters: a page
#: that would lose more is a near-copy, or its content is text the site repeats.
MAX_TEMPLATE_CUT = 0.5
#: A page whose generic content is shorter than this keeps it all: each template block is
#: a large share of so little.
MIN_CONTENT_CHARS = 200
#: A fingerprint on this many blocks of one page is list items, never template.
MAX_REPEATS_IN_PAGE = 3
#: Table and definition-list cells shorter than this, without links, are a spec sheet's
#: field names and values, shared by a site's product pages but content: never template.
SPEC_CELL_MAX_CHARS = 40
SPEC_CELL_TAGS = frozenset({"td", "th", "dt", "dd"})
#: A template block of at most this many words, without links, kept right before content
#: the template leaves is a repeated section title ("Specifications"): it stays.
TITLE_MAX_WORDS = 6
#: Pages a container must have been learned from before it settles anything.
CONTAINER_MIN_PAGES = 5
#: The container settles a page's blocks only when it holds this share of the page's content.
CONTAINER_PAGE_SHARE = 0.5
#: The template takes a block the generic steps kept only when its text (or structural key)
#: was on this many pages: a few pages of a shop share product lists that are content.
CONTENT_TEMPLATE_MIN_PAGES = 5
#: A block with this link density or more is a link list: the template may take it.
LINK_LIST = 0.5
#: Elements whose text the markup itself calls chrome.
CHROME_TAGS = frozenset({"footer", "nav", "aside"})
#: The container relabels no block longer than this (a lead paragraph, not chrome).
CONTAINER_MAX_CHARS = 200

TEMPLATE_STEP = "site-template"
CONTAINER_STEP = "site-container"
NGRAM_STEP = "site-ngram"
SUPERVISED_STEP = "site-supervised"


def _spec_cell(b: Block) -> bool:
    return (b.tag in SPEC_CELL_TAGS and b.text_chars < SPEC_CELL_MAX_CHARS
            and b.link_density < 0.5)


def _titles(b: Block, following: Block, following_is_template: bool) -> bool:
    """Whether ``b`` is a short title the generic steps kept over content the template leaves."""
    return (b.is_content and b.words <= TITLE_MAX_WORDS and not b.link_words
            and following.is_content and not following_is_template)


def _taught(blocks: Sequence[Block], at: list[int]) -> list[str]:
    """The texts the blocks at ``at`` teach of one class: in order, until ``MAX_TRAIN_CHARS``,
    the last one cut (no block is read past it)."""
    taught, left = [], MAX_TRAIN_CHARS
    for i in at:
        if left <= 0:
            break
        text = blocks[i].text
        taught.append(text[:left])
        left -= len(text)
    return taught


def _text_samples(keys: PageKeys, model: SiteModel) -> dict[int, tuple[str, str]]:
    """(text, path) of the blocks whose fingerprint this page takes to ``MIN_TEMPLATE_PAGES``
    pages: the examples ``sites show`` prints for the text template."""
    if len(model.examples) >= MAX_EXAMPLES:
        return {}
    get, before = model.fingerprints.get, MIN_TEMPLATE_PAGES - 1
    places = keys.places
    return {fp: (places.blocks[i].text, places.path(i)) for i, fp in enumerate(keys.fingerprints)
            if get(fp, 0) == before and fp not in model.examples}


@dataclass
class PageLesson:
    """What one page decided and what it teaches its site's model."""

    #: Its blocks' fingerprints, structural keys and places, and its containers.
    keys: PageKeys
    #: The texts it teaches, per category (``ngram.KEEP``, ``ngram.DISCARD``), in order.
    examples: dict[str, list[str]] = field(default_factory=lambda: {KEEP: [], DISCARD: []})
    template: int = 0
    #: Blocks the content container relabelled.
    settled: int = 0
    voted: int = 0
    supervised: bool = False
    #: A new URL whose main block the site has already counted: a near-copy, not counted again.
    duplicate: bool = False


class SiteLearner:
    """Applies a site model to a page's blocks and extracts the page's lesson. Stateless."""

    def __init__(self, *, template_share: float = TEMPLATE_SHARE, min_pages: int = MIN_PAGES,
                 ambiguous_margin: float = AMBIGUOUS_MARGIN,
                 confident_margin: float = CONFIDENT_MARGIN, min_examples: int = MIN_EXAMPLES,
                 vote: bool = True, cuts: Mapping[str, float] | None = None,
                 vote_bits: float = VOTE_BITS_PER_CHAR,
                 vote_needs_supervision: bool = VOTE_NEEDS_SUPERVISION,
                 train: bool = True) -> None:
        self.template_share = template_share
        self.min_pages = min_pages
        self.ambiguous_margin = ambiguous_margin
        self.confident_margin = confident_margin
        self.min_examples = min_examples
        self.vote = vote
        self.cuts = dict(cuts or {})
        self.vote_bits = vote_bits
        self.vote_needs_supervision = vote_needs_supervision
        #: Whether unsupervised pages teach the classifier (see the module docstring).
        self.train = train

    def keys(self, page: "Page") -> PageKeys:
        """The page's keys (``pagekeys``), as this learner reads them."""
        return page_keys(page, cuts=self.cuts,
                         confident=self.confident_margin)

    def apply(self, page: "Page", model: SiteModel | None,
              supervised: list[bool] | None = None,
              keys: PageKeys | None = None) -> PageLesson:
        """Relabel the page's blocks with what the site taught; return the page's lesson."""
        blocks = page.blocks
        keys = keys if keys is not None else self.keys(page)
        lesson = PageLesson(keys)
        if supervised is not None:
            lesson.supervised = True
            for b, keep in zip(blocks, supervised):
                b.set_label(CONTENT if keep else BOILERPLATE, float(keep), SUPERVISED_STEP)
                b.site_reason = SiteReason(SUPERVISED_STEP)
            at = range(min(len(blocks), len(supervised)))
            lesson.examples = {KEEP: _taught(blocks, [i for i in at if supervised[i]]),
                               DISCARD: _taught(blocks, [i for i in at if not supervised[i]])}
            return lesson
        if model is None:
            return lesson
        threshold = model.template_threshold(share=self.template_share, min_pages=self.min_pages)
        clf = model.classifier
        voting = self.vote and clf.ready(self.min_examples)
        if threshold == float("inf") and not model.fingerprints and not voting:
            # Nothing learned can apply yet (a fresh site's first page): no template,
            # container or vote, and no near-copy of a page never seen.
            if self.train:
                lesson.examples = {KEEP: _taught(blocks, keys.sure_content),
                                   DISCARD: _taught(blocks, keys.sure_boilerplate)}
            return lesson
        lesson.duplicate = self._near_copy(page, model, keys.longest)
        template = self._template(blocks, keys, model, threshold)
        content = keys.content_chars
        if not lesson.duplicate and self._too_much(blocks, template, content):
            lesson.duplicate = True
        # On a near-copy or a page with almost no content, the template takes no content.
        keep_content = lesson.duplicate or content < MIN_CONTENT_CHARS
        taken = set(template)
        last = len(blocks) - 1
        # A title's test reads whether the next block was found template (its own test comes later).
        template = [i for i in template
                    if not (i < last and _titles(blocks[i], blocks[i + 1], i + 1 in taken))]
        template = [i for i in template if not blocks[i].is_content
                    or (not keep_content and self._may_take(i, blocks[i], keys, model))]
        everywhere = voting and (model.supervised > 0 or not self.vote_needs_supervision)
        place = model.container(max(threshold, CONTAINER_MIN_PAGES))
        outside = self._outside(keys, place, content) if place else None
        # Decided before any block is relabelled: each rule reads the generic labels.
        untaught = set(template)
        if outside or everywhere:
            untaught.update(self._ambiguous(page, keys, model, untaught, place, outside or set(),
                                            everywhere, lesson))
        fingerprints, structures = model.fingerprints, model.structures
        for i in template:
            b = blocks[i]
            b.set_label(BOILERPLATE, 0.0, TEMPLATE_STEP)
            seen = max(fingerprints.get(keys.fingerprints[i], 0),
                       structures.get(keys.structures[i], 0))
            b.site_reason = SiteReason(TEMPLATE_STEP, seen, model.pages)
        lesson.template = len(template)
        if not self.train:
            return lesson
        sure_content, discard = keys.sure_content, keys.sure_boilerplate
        if untaught:
            sure_content = [i for i in sure_content if i not in untaught]
            discard = sorted(template + [i for i in discard if i not in untaught])
        lesson.examples = {KEEP: _taught(blocks, sure_content), DISCARD: _taught(blocks, discard)}
        return lesson

    def _may_take(self, i: int, b: Block, keys: PageKeys, model: SiteModel) -> bool:
        """Whether the template may take block ``i``, which the generic steps kept: seen on
        ``CONTENT_TEMPLATE_MIN_PAGES`` pages at its place, or so by its text with a second signal
        (a link list, a ``CHROME_TAGS`` element, the generic steps' doubt)."""
        if model.structures.get(keys.structures[i], 0) >= CONTENT_TEMPLATE_MIN_PAGES:
            return True
        if model.fingerprints.get(keys.fingerprints[i], 0) < CONTENT_TEMPLATE_MIN_PAGES:
            return False
        return (b.link_density >= LINK_LIST or keys.confidences[i] < self.ambiguous_margin
                or any(a.tag in CHROME_TAGS for a in b.ancestors))

    @staticmethod
    def _template(blocks: Sequence[Block], keys: PageKeys, model: SiteModel,
                  threshold: float) -> list[int]:
        """The blocks (indices, in order) whose fingerprint or structural key is on ``threshold``
        of the site's pages, but for list items and spec cells (rule 2)."""
        get, structures = model.fingerprints.get, model.structures
        fps = keys.fingerprints
        found = [i for i, (fp, key) in enumerate(zip(fps, keys.structures))
                 if get(fp, 0) >= threshold or (key and structures.get(key, 0) >= threshold)]
        if not found:
            return found
        # A pattern repeated within the page ("(133) reviews, 4.6 out of 5 stars" or
        # "$6.85" once digits are folded) is a list's items, not the site's template.
        in_page = Counter(fps)
        return [i for i in found
                if in_page[fps[i]] < MAX_REPEATS_IN_PAGE and not _spec_cell(blocks[i])]

    def _ambiguous(self, page: "Page", keys: PageKeys, model: SiteModel, template: set[int],
                   place: str | None, outside: set[int], everywhere: bool,
                   lesson: PageLesson) -> list[int]:
        """Rules 3 and 4 on the ambiguous blocks outside the ``template``; the blocks they
        took (settled, or put to the classifier), which teach nothing."""
        blocks, taken = page.blocks, []
        settled_by = SiteReason(CONTAINER_STEP, model.containers.get(place, 0) if place else 0,
                                model.pages)
        clf, ambiguous = model.classifier, self.ambiguous_margin
        for i, conf in enumerate(keys.confidences):
            if conf >= ambiguous or i in template:
                continue
            b = blocks[i]
            # A heading or a paragraph of prose outside the container is the page's title or
            # lead, which many sites set above the body's element: never chrome on its own.
            if i in outside and not b.is_heading \
                    and b.text_chars <= CONTAINER_MAX_CHARS:
                taken.append(i)
                b.set_label(BOILERPLATE, 0.0, CONTAINER_STEP)
                b.site_reason = settled_by
                lesson.settled += 1
                continue
            if not everywhere:
                continue
            taken.append(i)
            verdict = clf.classify(b.text)
            if abs(verdict.log_odds) >= self.vote_bits * len(b.text):
                b.set_label(CONTENT if verdict.category == KEEP else BOILERPLATE,
                            verdict.p_keep, NGRAM_STEP)
                b.site_reason = SiteReason(NGRAM_STEP, bits=verdict.log_odds)
                lesson.voted += 1
        return taken

    def _outside(self, keys: PageKeys, place: str, content: int) -> set[int] | None:
        """The ambiguous kept blocks outside the parent of the container at ``place``; None
        when it holds under ``CONTAINER_PAGE_SHARE`` of the page's ``content`` characters."""
        places, blocks = keys.places, keys.places.blocks
        held = sum(b.text_chars for i, b in enumerate(blocks)
                   if b.is_content and places.inside(i, place))
        if content <= 0 or held < CONTAINER_PAGE_SHARE * content:
            return None
        parent = place.rsplit("/", 1)[0]
        return {i for i, conf in enumerate(keys.confidences)
                if conf < self.ambiguous_margin and blocks[i].is_content
                and places.inside(i, place) is False and not places.inside(i, parent)}

    @staticmethod
    def _near_copy(page: "Page", model: SiteModel, longest: list[int]) -> bool:
        """A page at a new URL whose ``pagekeys.DUPLICATE_BLOCKS`` longest content blocks
        (``longest``: more than one, the longest may be a footer) the site has all counted."""
        if model.seen_url(page.url):
            return False
        return bool(longest) and all(fp in model.fingerprints for fp in longest)

    @staticmethod
    def _too_much(blocks: Sequence[Block], template: list[int], content: int) -> bool:
        """Whether the ``template`` blocks would take over ``MAX_TEMPLATE_CUT`` of the
        ``content`` characters."""
        cut = sum(blocks[i].text_chars for i in template if blocks[i].is_content)
        return content > 0 and cut > MAX_TEMPLATE_CUT * content

    @staticmethod
    def learn(models: Sequence[SiteModel], lesson: PageLesson, url: str | None) -> None:
        """Add a page's lesson to models (the site's, and the delta waiting to be stored)."""
        if lesson.duplicate or not models:
            return
        texts = prepare(lesson.examples, models[0].classifier.order) \
            if any(lesson.examples.values()) else None
        keys = lesson.keys
        samples = {**keys.samples, **_text_samples(keys, models[0])}
        for model in models:
            model.observe(keys.fingerprints, url, keys.structures, keys.containers, samples)
            model.supervised += lesson.supervised
            if texts is not None:
                model.classifier.add(texts)
