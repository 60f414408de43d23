"""Block labels from a page's ground-truth text: which blocks are the reference's content.

WCXB gives each page its main content as plain text, not as marked-up
blocks, so a trainable label for every Block has to be recovered by aligning
the page's block text with that reference. The alignment works on the
metric's own tokens (lower-cased ``\\w+`` runs) so a block is "content"
exactly when keeping it would bring its words into the scored prediction:

1. all blocks' tokens are concatenated in document order and aligned with the
   reference tokens by ``difflib.SequenceMatcher`` (longest common runs first,
   order kept), so a boilerplate phrase repeated outside the content ("Share
   this", a menu entry that is also a word of the text) is not matched: the
   reference has only one occurrence and it lies inside the content's run;
2. runs shorter than ``MIN_RUN`` tokens only count when they cover a whole
   block (a one-word heading), which drops chance matches of common words
   inside boilerplate;
3. a block is content when at least ``CONTENT_SHARE`` of its tokens are matched.

``oracle_text`` joins the aligned-content blocks: its score against the
reference is the upper bound of any extractor that keeps or drops whole blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Iterable, Iterator, Sequence, Union

from ..blocks import Block
from ..page import Page, decode_html
from .dataset import Sample, load_dataset
from .metric import tokens

#: A matched run shorter than this many tokens counts only when it is a whole block.
MIN_RUN = 3
#: Share of a block's tokens that must be matched for the block to be content.
CONTENT_SHARE = 0.5

BlockLike = Union[Block, str]


def _text(block: BlockLike) -> str:
    return block if isinstance(block, str) else block.text


def matched_shares(
    blocks: Sequence[BlockLike], main_content: str, *, min_run: int = MIN_RUN
) -> list[float]:
    """For each block, the share of its tokens aligned with the reference (0.0 for no tokens)."""
    block_tokens = [tokens(_text(b)) for b in blocks]
    reference = tokens(main_content or "")
    if not reference or not block_tokens:
        return [0.0] * len(block_tokens)
    page_tokens: list[str] = []
    owner: list[int] = []  # block index of each page token
    starts: list[int] = []
    for i, toks in enumerate(block_tokens):
        starts.append(len(page_tokens))
        page_tokens.extend(toks)
        owner.extend([i] * len(toks))
    matched = [0] * len(block_tokens)
    matcher = SequenceMatcher(None, page_tokens, reference, autojunk=False)
    for a, _b, size in matcher.get_matching_blocks():
        if size == 0:
            continue
        if size < min_run:
            first, last = owner[a], owner[a + size - 1]
            whole = (
                first == last
                and a == starts[first]
                and size == len(block_tokens[first])
            )
            if not whole:
                continue
        for pos in range(a, a + size):
            matched[owner[pos]] += 1
    return [m / len(t) if t else 0.0 for m, t in zip(matched, block_tokens)]


def align_blocks(
    blocks: Sequence[BlockLike],
    main_content: str,
    *,
    share: float = CONTENT_SHARE,
    min_run: int = MIN_RUN,
) -> list[bool]:
    """Label each block (a Block or its text) content (True) or boilerplate (False).

    An empty reference makes every block boilerplate: the page has no content
    and the metric rewards an empty prediction.
    """
    shares = matched_shares(blocks, main_content, min_run=min_run)
    return [s >= share and s > 0.0 for s in shares]


def oracle_text(blocks: Sequence[BlockLike], labels: Sequence[bool]) -> str:
    """The text an extractor keeping exactly the labelled-content blocks would output."""
    return "\n\n".join(_text(b) for b, keep in zip(blocks, labels) if keep)


@dataclass
class LabelledPage:
    """One dataset page, segmented, with the aligned label of each of its blocks."""

    page: Page
    labels: list[bool]
    sample: Sample

    def __iter__(self) -> Iterator:
        return iter((self.page, self.labels, self.sample))


def page_of(sample: Sample) -> Page:
    """Parse a sample exactly as the evaluation runner does (browser decoding, then Page)."""
    return Page.from_html(decode_html(sample.html_bytes()), sample.url)


def labelled_pages(
    source: str | Path | Iterable[Sample], *, limit: int | None = None
) -> Iterator[LabelledPage]:
    """Yield (page, labels, sample) for every page of a WCXB folder or a list of samples."""
    samples = load_dataset(source, limit) if isinstance(source, (str, Path)) else source
    for sample in samples:
        page = page_of(sample)
        yield LabelledPage(page, align_blocks(page.blocks, sample.main_content), sample)
