"""``evaluate --stages``: the learned step's parts are timed within it and left out of the total."""

from __future__ import annotations

import re


def test_the_learned_steps_parts_follow_it_and_fit_inside_it(tiny_dataset):
    from scrapy_declutter.lab.dataset import load_dataset
    from scrapy_declutter.lab.evaluation.stages import LEARNED_PARTS, PART, format_stages, stage_times
    from scrapy_declutter.steps.learned import decide, features

    times = stage_times(load_dataset(tiny_dataset), "default")
    names = list(times)
    learned = names.index("step 1: learned")
    parts = names[learned + 1:learned + 1 + len(LEARNED_PARTS)]
    assert parts == [PART + label for label, _, _ in LEARNED_PARTS]
    assert names[learned + 1 + len(LEARNED_PARTS)].startswith("step 2: ")
    assert all(times[p] > 0 for p in parts)
    assert sum(times[p] for p in parts) <= times["step 1: learned"]
    # The wrappers are gone afterwards: the step calls the functions themselves again.
    assert features.page_features.__name__ == "page_features" and decide.decide.__name__ == "decide"
    table = format_stages(times)
    total = float(re.search(r"total \(parse to freed page\)\s+([\d.]+)", table).group(1))
    whole = sum(v for k, v in times.items() if k != "lxml parse (floor)" and not k.startswith(PART))
    assert abs(total - whole) < 0.01
