"""How a site's model labels a page, and what the page teaches the model.

The rules the site step (``step.SiteStep``) applies. Labels, in order of trust:

1. the user's supervision (a content selector or the seed's comment
   markers), when the page offers it: it decides every block;
2. the template: a block whose fingerprint, or whose structural key (its
   place and its text with names folded too, ``places``), is on
   ``TEMPLATE_SHARE`` of the site's pages is boilerplate, whatever the
   generic steps said, unless the
   page repeats it ``MAX_REPEATS_IN_PAGE`` times (list items), it is a
   short table cell without links (a spec sheet's field names and values),
   or it is a short title the generic steps kept over content; and it takes
   no content from a near-copy, from a page it would strip of half its
   content, or from a page with under ``MIN_CONTENT_CHARS`` of content;
3. the content container (``places.container``), on a page whose generic
   content is mostly in it: a block the generic steps kept without
   confidence (score within ``ambiguous_margin`` of the cut) outside the
   container's parent is boilerplate; with ``container_to_content``, an
   ambiguous block left out inside the container is content;
4. the per-site n-gram classifier, for the blocks the generic steps left
   ambiguous (their score within ``ambiguous_margin`` of the step's cut) once
   it has ``min_examples`` blocks of each class, with at least
   ``vote_bits`` bits of log-odds per character, and (by default) only on
   sites the user supervised: trained on self-supervised labels alone, its
   votes removed good content on wcxb-dev (code samples, product lists)
   as often as chrome. ``vote_on_shared_template`` lets it vote on other
   sites too, but only where their pages share a template (the container on
   ``SHARED_TEMPLATE_SHARE`` of the site's pages, and on this page), and only
   content to boilerplate;
5. otherwise the generic steps' label stands.

What trains the classifier: supervised blocks, template blocks (discard),
and blocks the generic steps decided with confidence (score at least
``confident_margin`` past the cut, on the side of their label). Everything is
decided from the model as it was *before* the page, then the page is learned.
A page teaches its site every place that holds ``pagekeys.CONTAINER_SHARE`` of the
characters the generic steps kept with confidence.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from ..blocks import BOILERPLATE, CONTENT, Block, SiteReason
from .lessons import Lesson
from .model import MIN_PAGES, TEMPLATE_SHARE, SiteModel
from .ngram import DISCARD, KEEP
from .pagekeys import PageKeys, page_keys
from .places import Places

if TYPE_CHECKING:
    from ..page import Page

#: The score that separates content from boilerplate for a step that publishes none.
DEFAULT_CUT = 0.5
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
#: Whether a vote may also turn a generic boilerplate label into content (recall), or
#: only content into boilerplate (precision: site learning's job is removing chrome).
VOTE_TO_CONTENT = True
#: The classifier votes only on sites with user-labelled pages (see the module docstring).
VOTE_NEEDS_SUPERVISION = True
#: Whether structural keys make template (see ``places``).
STRUCTURAL = True
#: Whether the learned content container settles ambiguous blocks (rule 3).
USE_CONTAINER = True
#: Whether it also turns ambiguous blocks left out inside it into content: +0.0014 mean
#: F1 on sites-dev's re-crawl, +0.0004 on wcxb-dev's multi-page sites (docs/results.md).
CONTAINER_TO_CONTENT = False
#: Whether the classifier votes on unsupervised sites whose pages share a template: the
#: container on ``SHARED_TEMPLATE_SHARE`` of the site's pages, on a page that uses it, and
#: only content to boilerplate. Everywhere it cost wcxb-dev's mixed sites (ifixit -0.28 F1
#: on one page); so guarded it moved no wcxb-dev mean and cut sites-dev's boilerplate
#: share by 0.0004 only, for some 3 ms a page while a site learns (its index is rebuilt
#: after each page): off by default, over issue 15's CPU budget for that gain.
VOTE_ON_SHARED_TEMPLATE = False
SHARED_TEMPLATE_SHARE = 0.8
#: The template never takes more than this share of a page's content characters. A page
#: that would lose more is a near-copy of pages already seen, or one whose content is text
#: the site repeats (eBay item pages whose only text is the shared shipping and returns
#: policy lost 0.42 F1 at 0.7): it is left as the generic steps labelled it.
MAX_TEMPLATE_CUT = 0.5
#: A page whose generic content is shorter than this keeps it all: with a dozen words
#: kept, each template block the site repeats there ("Table of Contents" on the
#: Valgrind manual's FAQ page, whose ground truth has 21 words) is a large share of
#: the page's F1. No wcxb-dev figure changes with it.
MIN_CONTENT_CHARS = 200
#: A fingerprint on this many blocks of one page is list items, never template.
MAX_REPEATS_IN_PAGE = 3
#: Table and definition-list cells shorter than this, without links, are a spec sheet's
#: field names and values ("Chipset", "NVIDIA", "2550 MHz"), shared by a site's
#: product pages but content: never template.
SPEC_CELL_MAX_CHARS = 40
SPEC_CELL_TAGS = frozenset({"td", "th", "dt", "dd"})
#: A template block of at most this many words, without links, that the generic steps
#: kept right before content the template leaves is a repeated section title ("Table of
#: Contents" on every index page of the Valgrind manual, "Specifications" on a shop's
#: product pages): it stays. On tiny index pages that title was a tenth of the content.
TITLE_MAX_WORDS = 6
#: Content blocks at least this long identify a near-copy (see ``_near_copy``).
DUPLICATE_MIN_CHARS = 100
#: How many of a page's longest content blocks must all be known for it to be a near-copy.
DUPLICATE_BLOCKS = 3

#: Pages a container must have been learned from before it settles anything: learned
#: from two of ikea.com's pages, it cost a third page 0.18 F1 in wcxb-dev's first pass.
CONTAINER_MIN_PAGES = 5
#: The container settles a page's blocks only when it holds this share of the page's content.
CONTAINER_PAGE_SHARE = 0.5

TEMPLATE_STEP = "site-template"
CONTAINER_STEP = "site-container"
#: A block's side of the site's container (``SiteLearner._container_sides``).
INSIDE, OUTSIDE = "inside", "outside"
NGRAM_STEP = "site-ngram"
SUPERVISED_STEP = "site-supervised"


def _spec_cell(b: Block) -> bool:
    return (b.tag in SPEC_CELL_TAGS and b.text_chars < SPEC_CELL_MAX_CHARS
            and b.link_density < 0.5)


def _titles(b: Block, following: Block, following_is_template: bool) -> bool:
    """Whether ``b`` is a short title the generic steps kept over content the template leaves."""
    return (b.is_content and b.words <= TITLE_MAX_WORDS and not b.link_words
            and following.is_content and not following_is_template)


@dataclass
class PageLesson:
    """What one page decided and what it teaches its site's model."""

    #: Its blocks' fingerprints, structural keys and places, and its containers.
    keys: PageKeys
    #: The texts it teaches, per category (``ngram.KEEP``, ``ngram.DISCARD``), in order: lists
    #: of strings, which the garbage collector does not walk, where a (category, text)
    #: tuple per block was one more object for it while the page waited in its warm-up.
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
                 vote_to_content: bool = VOTE_TO_CONTENT,
                 vote_needs_supervision: bool = VOTE_NEEDS_SUPERVISION,
                 structural: bool = STRUCTURAL, use_container: bool = USE_CONTAINER,
                 container_to_content: bool = CONTAINER_TO_CONTENT,
                 vote_on_shared_template: bool = VOTE_ON_SHARED_TEMPLATE) -> None:
        self.template_share = template_share
        self.min_pages = min_pages
        self.ambiguous_margin = ambiguous_margin
        self.confident_margin = confident_margin
        self.min_examples = min_examples
        self.vote = vote
        self.cuts = dict(cuts or {})
        self.vote_bits = vote_bits
        self.vote_to_content = vote_to_content
        self.vote_needs_supervision = vote_needs_supervision
        self.structural = structural
        self.use_container = use_container
        self.container_to_content = container_to_content
        self.vote_on_shared_template = vote_on_shared_template

    def confidence(self, block: Block) -> float:
        """How far the block's score is past its step's cut, on the side of its label."""
        return self.confidences([block])[0]

    def confidences(self, blocks: Sequence[Block]) -> list[float]:
        """``confidence`` of each block, in one pass (a page has a few hundred blocks).

        The cut of a block's deciding step is ``cuts[step]`` given here, else
        0.5 (a probability-like score).
        """
        cuts = self.cuts
        return [b.score - cuts.get(b.step or "", DEFAULT_CUT) if b.label == CONTENT
                else cuts.get(b.step or "", DEFAULT_CUT) - b.score for b in blocks]

    def keys(self, page: "Page") -> PageKeys:
        """The page's keys (``pagekeys``), as this learner reads them."""
        return page_keys(page, structural=self.structural,
                         confidences=self.confidences(page.blocks),
                         confident=self.confident_margin)

    def apply(self, page: "Page", model: SiteModel | None,
              supervised: list[bool] | None = None, keys: PageKeys | None = None) -> PageLesson:
        """Relabel the page's blocks with what the site taught; return the page's lesson.

        ``keys``: the page's keys from ``keys(page)`` with the same generic labels
        (the site step's second run on a page held in its site's warm-up).
        """
        blocks = page.blocks
        keys = keys if keys is not None else self.keys(page)
        places = keys.places
        lesson = PageLesson(keys)
        budget = {KEEP: MAX_TRAIN_CHARS, DISCARD: MAX_TRAIN_CHARS}

        def teach(category: str, text: str) -> None:
            left = budget[category]
            if left > 0:
                lesson.examples[category].append(text[:left])
                budget[category] = left - len(text)

        if supervised is not None:
            lesson.supervised = True
            for b, keep in zip(page.blocks, supervised):
                b.set_label(CONTENT if keep else BOILERPLATE, float(keep), SUPERVISED_STEP)
                b.site_reason = SiteReason(SUPERVISED_STEP)
                teach(KEEP if keep else DISCARD, b.text)
            return lesson
        if model is None:
            return lesson
        threshold = model.template_threshold(share=self.template_share, min_pages=self.min_pages)
        clf = model.classifier
        voting = self.vote and clf.ready(self.min_examples)
        if threshold == float("inf") and not model.fingerprints and not voting:
            # Nothing learned can apply yet (a fresh site's warm-up pages are all labelled
            # so): no template, container or vote, and no near-copy of a page never seen.
            # The lesson is what the loop below would teach then, at a fraction of its cost,
            # and no block is read once both budgets are spent.
            confident = self.confident_margin
            for b, conf in zip(blocks, keys.confidences):
                if conf >= confident:
                    teach(KEEP if b.label == CONTENT else DISCARD, b.text)
                    if budget[KEEP] <= 0 and budget[DISCARD] <= 0:
                        break
            return lesson
        lesson.duplicate = self._near_copy(page, model, keys.fingerprints)
        in_page = Counter(keys.fingerprints)
        # A pattern repeated within the page ("(133) reviews, 4.6 out of 5 stars" or
        # "$6.85" once digits are folded) is a list's items, not the site's template.
        structures = model.structures
        template = [(model.fingerprints.get(fp, 0) >= threshold
                     or (key and structures.get(key, 0) >= threshold))
                    and in_page[fp] < MAX_REPEATS_IN_PAGE and not _spec_cell(b)
                    for b, fp, key in zip(blocks, keys.fingerprints,
                                          keys.structures or [0] * len(blocks))]
        content = sum(b.text_chars for b in page.blocks if b.is_content)
        if not lesson.duplicate and self._too_much(page, template, content):
            lesson.duplicate = True
        # On a near-copy or a page with almost no content, the template takes no content.
        keep_content = lesson.duplicate or content < MIN_CONTENT_CHARS
        for i in range(len(blocks) - 1):
            if template[i] and _titles(blocks[i], blocks[i + 1], template[i + 1]):
                template[i] = False
        everywhere = voting and (model.supervised > 0 or not self.vote_needs_supervision)
        place = model.container(max(threshold, CONTAINER_MIN_PAGES)) if self.use_container else None
        where = self._container_sides(places, place) if place else None
        settled_by = SiteReason(CONTAINER_STEP, model.containers.get(place, 0) if place else 0,
                                model.pages)
        # Unsupervised, it votes on a page that uses the container most of the site's pages share.
        shared = (voting and not everywhere and self.vote_on_shared_template and where is not None
                  and model.containers[place] >= SHARED_TEMPLATE_SHARE * model.pages)
        for i, (b, fp, is_template, conf) in enumerate(zip(blocks, keys.fingerprints, template,
                                                            keys.confidences)):
            if is_template and not (keep_content and b.is_content):
                b.set_label(BOILERPLATE, 0.0, TEMPLATE_STEP)
                seen = max(model.fingerprints.get(fp, 0),
                           model.structures.get(keys.structures[i], 0) if keys.structures else 0)
                b.site_reason = SiteReason(TEMPLATE_STEP, seen, model.pages)
                lesson.template += 1
                teach(DISCARD, b.text)
                continue
            side = where[i] if where else None
            if conf < self.ambiguous_margin and side and self._settle(b, side, settled_by):
                lesson.settled += 1
                continue
            can_vote = everywhere or (shared and b.is_content and not b.is_heading)
            if can_vote and conf < self.ambiguous_margin and (b.is_content or self.vote_to_content):
                verdict = clf.classify(b.text)
                if abs(verdict.log_odds) >= self.vote_bits * len(b.text) and (
                        everywhere or verdict.category != KEEP):
                    b.set_label(CONTENT if verdict.category == KEEP else BOILERPLATE,
                                verdict.p_keep, NGRAM_STEP)
                    b.site_reason = SiteReason(NGRAM_STEP, bits=verdict.log_odds)
                    lesson.voted += 1
            elif conf >= self.confident_margin:
                teach(KEEP if b.is_content else DISCARD, b.text)
        return lesson

    @staticmethod
    def _container_sides(places: Places, place: str) -> list[str | None] | None:
        """Each block's side of the container at ``place`` (``INSIDE``, ``OUTSIDE``, None:
        near it or cannot tell), or None when the page does not use it."""
        parent = place.rsplit("/", 1)[0]
        inside = [places.inside(i, place) for i in range(len(places.blocks))]
        blocks = places.blocks
        content = sum(b.text_chars for b in blocks if b.is_content)
        held = sum(b.text_chars for b, into in zip(blocks, inside) if into and b.is_content)
        if content <= 0 or held < CONTAINER_PAGE_SHARE * content:
            return None
        return [INSIDE if into else None if into is None or places.inside(i, parent) else OUTSIDE
                for i, into in enumerate(inside)]

    def _settle(self, b: Block, side: str, reason: SiteReason) -> bool:
        """Rule 3 on one ambiguous block; whether it relabelled it."""
        if side == OUTSIDE and b.is_content:
            label = BOILERPLATE
        elif side == INSIDE and not b.is_content and self.container_to_content:
            label = CONTENT
        else:
            return False
        b.set_label(label, float(label == CONTENT), CONTAINER_STEP)
        b.site_reason = reason
        return True

    @staticmethod
    def _near_copy(page: "Page", model: SiteModel, fingerprints: list[int]) -> bool:
        """A page at a new URL whose longest content blocks the site has all counted already.

        The ``DUPLICATE_BLOCKS`` longest (not just the longest, which may be a
        long template footer the generic steps kept) must all have been seen.
        """
        if model.seen_url(page.url):
            return False
        longest = sorted(((b.text_chars, fp) for b, fp in zip(page.blocks, fingerprints)
                          if b.is_content and b.text_chars >= DUPLICATE_MIN_CHARS), reverse=True)
        top = longest[:DUPLICATE_BLOCKS]
        return bool(top) and all(fp in model.fingerprints for _, fp in top)

    @staticmethod
    def _too_much(page: "Page", template: list[bool], content: int) -> bool:
        """Whether the template would take over ``MAX_TEMPLATE_CUT`` of the ``content`` characters."""
        cut = sum(b.text_chars for b, t in zip(page.blocks, template) if t and b.is_content)
        return content > 0 and cut > MAX_TEMPLATE_CUT * content

    @staticmethod
    def learn(models: Sequence[SiteModel], lesson: PageLesson, url: str | None) -> None:
        """Add a page's lesson to models (the site's, and the delta waiting to be stored)."""
        if lesson.duplicate or not models:
            return
        texts = Lesson.of(lesson.examples)
        for model in models:
            keys = lesson.keys
            model.observe(keys.fingerprints, url, keys.structures, keys.containers, keys.samples)
            model.supervised += lesson.supervised
            # Without its n-gram tables (``SiteModel.ngrams``) a model counts the examples
            # alone: its delta trains the tables.
            model.classifier.add_lesson(texts, tables=model.ngrams)
