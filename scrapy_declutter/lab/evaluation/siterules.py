"""What each site-learning rule did, page by page: the F1 of each page with each rule's
relabels put back to the generic label (``python -m scrapy_declutter.lab.evaluation.sitelearning
rules DATASET``), to find the pages a rule makes worse and give it a guard (issue 41).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...page import Page, decode_html
from ...sitelearning.declutter import Declutter
from ..dataset import Sample, iter_by_site
from ..metric import word_prf


#: The rules ``rule_effects`` tells apart: which relabelled a block, read from its step
#: and, for the template, whether its text's fingerprint alone was template.
RULES = ("text-template", "structural-template", "container")


@dataclass
class RuleEffect:
    """One page, one mode: its F1 with every rule, and with each rule's relabels undone."""

    site: str
    file_id: str
    mode: str
    f1: float
    generic_f1: float
    without: dict[str, float]


def rule_effects(samples: Sequence[Sample], extractor: str = "default", *,
                 min_pages: int = 3) -> list[RuleEffect]:
    """Run ``run_site_learning``'s first pass and re-crawl and, on each page, score the text
    with each rule's relabels put back to the generic label: what each rule did to the page."""
    from ...registry import build_extractor
    from ...formats.text import join_blocks
    from ...sitelearning.learner import CONTAINER_STEP, TEMPLATE_STEP
    from ...sitelearning.pagekeys import PAGE_KEYS

    chain = build_extractor(extractor)
    out: list[RuleEffect] = []
    for site, group in iter_by_site(list(samples)):
        if len(group) < min_pages or not site:
            continue
        texts = [decode_html(s.html_bytes()) for s in group]
        generic: list[list[bool]] = []
        for s, text in zip(group, texts):
            page = Page.from_html(text, s.url)
            chain.run(page)
            generic.append([b.is_content for b in page.blocks])
        with Declutter(extractor, store="memory:", site_key=lambda _url: site) as dec:
            for mode in ("first", "recrawl"):
                for s, text, kept in zip(group, texts, generic):
                    page = Page.from_html(text, s.url)
                    state = dec._state(site)
                    model = state.model if state else None
                    before = dict(model.fingerprints) if model else {}
                    threshold = model.template_threshold() if model else float("inf")
                    result = dec.extract_page(page)
                    keys = page.get(PAGE_KEYS)
                    rule_of: list[str | None] = []
                    for i, b in enumerate(page.blocks):
                        if b.step == CONTAINER_STEP:
                            rule_of.append("container")
                        elif b.step == TEMPLATE_STEP:
                            text_made = before.get(keys.fingerprints[i], 0) >= threshold
                            rule_of.append("text-template" if text_made else "structural-template")
                        else:
                            rule_of.append(None)
                    truth = s.main_content
                    without = {}
                    for rule in RULES:
                        blocks = [b for b, k, r in zip(page.blocks, kept, rule_of)
                                  if (k if r == rule else b.is_content)]
                        without[rule] = word_prf(join_blocks(blocks), truth).f1
                    generic_text = join_blocks([b for b, k in zip(page.blocks, kept) if k])
                    out.append(RuleEffect(site, s.file_id, mode, word_prf(result.text, truth).f1,
                                          word_prf(generic_text, truth).f1, without))
    return out


def format_rule_effects(effects: Sequence[RuleEffect], *, margin: float = 0.01) -> str:
    """Per rule and mode: the pages it made better and worse (by more than ``margin`` F1),
    their F1 sums, and its worst page."""
    lines = [f"{'rule':<20} {'mode':<8} {'fixed':>5} {'broke':>5} {'gain':>7} {'loss':>7}  worst page"]
    for rule in RULES:
        for mode in ("first", "recrawl"):
            deltas = [(e.f1 - e.without[rule], e) for e in effects if e.mode == mode]
            fixed = [d for d, _ in deltas if d > margin]
            broke = [d for d, _ in deltas if d < -margin]
            worst = min(deltas, key=lambda x: x[0], default=(0.0, None))
            where = f"{worst[1].site} {worst[1].file_id} {worst[0]:+.3f}" if worst[1] else "-"
            lines.append(f"{rule:<20} {mode:<8} {len(fixed):>5} {len(broke):>5} "
                         f"{sum(fixed):>+7.3f} {sum(broke):>+7.3f}  {where}")
    return "\n".join(lines)
