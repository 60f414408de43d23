"""The density filter of seed 000, per line (its exact form) and per block."""

from __future__ import annotations

import statistics

import pytest

from scrapy_declutter import Page
from scrapy_declutter.steps.density import DensityFilter, density_threshold, filter_lines

LONG = "x" * 70  # over the 60-character minimum


def test_line_density_is_the_seeds_formula():
    # '<p>' and '</p>' contribute 1 + 2 markup characters (brackets excluded).
    (chunk,) = filter_lines(f"<p>{LONG}</p>")
    assert chunk.density == pytest.approx((70 + 1) / (3 + 70 + 1))


def test_lines_under_60_text_chars_are_dropped():
    assert filter_lines("<p>" + "y" * 59 + "</p>") == []
    assert len(filter_lines("<p>" + "y" * 60 + "</p>")) == 1


def test_threshold_keeps_lines_above_half_minus_sample_stddev():
    heavy_markup = "span " + "data-x=" + "q" * 1300  # 1,312 markup characters
    html = "\n".join([LONG] * 9 + [f"<{heavy_markup}>{LONG}</span>"])
    d_heavy = 71 / (1312 + 5 + 70 + 1)  # '/span' adds 5
    densities = [1.0] * 9 + [d_heavy]
    threshold = 0.5 - statistics.stdev(densities)
    assert d_heavy < threshold < 1.0  # by hand: stdev 0.3003, threshold 0.1997
    assert threshold == pytest.approx(0.1997, abs=1e-3)
    kept = filter_lines(html)
    assert [c.density for c in kept] == [1.0] * 9


def test_hand_computed_page_threshold():
    # Densities 1.0, 0.9, 0.2: sample stddev = 0.4359, threshold = 0.0641 -> all kept;
    # checked against the helper so the sample (n-1) form is pinned.
    assert density_threshold([1.0, 0.9, 0.2]) == pytest.approx(0.5 - 0.43589, abs=1e-4)
    assert density_threshold([0.7]) == 0.5  # one value: stddev 0, as in Commons Math
    assert density_threshold([]) == 0.5


def test_markers_label_lines_for_training():
    html = f"{LONG}\n<!-- content -->\n<p>{LONG}</p>\n<!-- /content -->\n<div>{LONG}</div>"
    assert [c.keep for c in filter_lines(html)] == [False, True, False]


def test_block_rule_on_a_hand_computed_page():
    body = "w" * 80
    html = (
        "<html><body>"
        f"<p>{body}</p>"                                  # dense: 81/(81+3)
        f'<div class="nav-menu-item-with-a-long-class-name and-more-classes and-more-classes-again and-yet-more-classes-here-too"><a href="/x/y/z/a/b/c/d/e/f">{body}</a></div>'
        "<p>short</p>"                                     # under 60 chars: boilerplate
        "</body></html>"
    )
    page = Page.from_html(html)
    DensityFilter().process(page)
    dense, heavy, short = page.blocks
    densities = [dense.char_density, heavy.char_density]
    threshold = 0.5 - statistics.stdev(densities)
    assert dense.char_density > threshold and dense.label == "content"
    assert short.label == "boilerplate"
    assert heavy.label == ("content" if heavy.char_density > threshold else "boilerplate")
    assert heavy.char_density < dense.char_density
    assert all(b.step == "density" for b in page.blocks)


def test_a_second_run_gives_the_same_labels():
    page = Page.from_html(f"<p>{LONG}</p><p>tiny</p>")
    step = DensityFilter()
    step.process(page)
    first = [(b.label, b.score) for b in page.blocks]
    assert first[0][0] == "content" and first[1][0] == "boilerplate"
    step.process(page)
    assert [(b.label, b.score) for b in page.blocks] == first
