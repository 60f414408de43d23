"""Boilerpipe's block fusion: merge neighbouring units into one group.

Fusion never touches ``page.blocks``: it merges :class:`TextUnit` groups in
the Boilerpipe view, and every member Block takes the group's label (see
``document.py``): a boilerplate unit fused into content becomes content
(Java ``mergeNext`` ORs the content flags).

Java's four BlockProximityFusion instances are the named presets below; a
chain names the preset, never a row of positional booleans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import Step
from .document import TextUnit, document

if TYPE_CHECKING:
    from ...page import Page

#: Default gap, in original blocks, across which BlockProximityFusion still fuses.
MAX_BLOCKS_DISTANCE = 1


class BlockProximityFusion(Step):
    """Fuse a content unit into the unit before it when at most ``max_distance`` blocks lie between.

    Before any unit is removed every neighbour is at distance 0, so the
    unrestricted variant fuses each content unit with whatever precedes it, a
    boilerplate unit included, which then becomes content (the seed's author
    found this odd; it is what Boilerpipe does). With ``content_only`` both
    sides must be content: after BoilerplateBlockFilter it rejoins content
    that a small piece of boilerplate had split. ``same_tag_level`` further
    requires both units at the same depth in the tree.
    """

    def __init__(
        self,
        *,
        max_distance: int = MAX_BLOCKS_DISTANCE,
        content_only: bool = False,
        same_tag_level: bool = False,
        preset: str | None = None,
    ) -> None:
        self.max_distance = max_distance
        self.content_only = content_only
        self.same_tag_level = same_tag_level
        self.name = f"boilerpipe.BlockProximityFusion.{preset}" if preset else (
            f"boilerpipe.BlockProximityFusion(max_distance={max_distance}, "
            f"content_only={content_only}, same_tag_level={same_tag_level})"
        )

    def process(self, page: Page) -> None:
        doc = document(page)
        units = doc.units
        if len(units) < 2:
            return
        if self.content_only:
            first = next((i for i, u in enumerate(units) if u.is_content), None)
            if first is None:
                return
        else:
            first = 0
        kept: list[TextUnit] = units[: first + 1]
        prev = units[first]
        for unit in units[first + 1 :]:
            if not unit.is_content or not self._fuses(prev, unit):
                kept.append(unit)
                prev = unit
                continue
            prev.merge_next(unit, self.name)
        doc.units = kept

    def _fuses(self, prev: TextUnit, unit: TextUnit) -> bool:
        if unit.offset_start - prev.offset_end - 1 > self.max_distance:
            return False
        if self.content_only and not prev.is_content:
            return False
        return not (self.same_tag_level and prev.tag_level != unit.tag_level)


#: Java's presets, by their Java names.
MAX_DISTANCE_1 = BlockProximityFusion(preset="MAX_DISTANCE_1")
MAX_DISTANCE_1_SAME_TAGLEVEL = BlockProximityFusion(
    same_tag_level=True, preset="MAX_DISTANCE_1_SAME_TAGLEVEL"
)
MAX_DISTANCE_1_CONTENT_ONLY = BlockProximityFusion(
    content_only=True, preset="MAX_DISTANCE_1_CONTENT_ONLY"
)
MAX_DISTANCE_1_CONTENT_ONLY_SAME_TAGLEVEL = BlockProximityFusion(
    content_only=True, same_tag_level=True, preset="MAX_DISTANCE_1_CONTENT_ONLY_SAME_TAGLEVEL"
)


class SimpleBlockFusionProcessor(Step):
    """Merge each unit into the previous one while their text densities are exactly equal.

    Runs of equally dense blocks (a list of one-line links, a run of full
    lines) become one unit, so DensityRulesClassifier judges them together.
    """

    name = "boilerpipe.SimpleBlockFusionProcessor"

    def process(self, page: Page) -> None:
        doc = document(page)
        if len(doc.units) < 2:
            return
        kept = [doc.units[0]]
        for unit in doc.units[1:]:
            prev = kept[-1]
            if prev.text_density == unit.text_density:
                prev.merge_next(unit, self.name)
            else:
                kept.append(unit)
        doc.units = kept
