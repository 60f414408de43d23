"""What a page's time grows with: ``bench-extract --fit``'s least-squares split.

The plain floor (parsing) grows with a page's bytes; ``extract()`` also with
its blocks and elements, and it pays a fixed cost per page besides. Which of
these makes ``extract()`` a larger multiple of the floor on small pages is
read from the pages' own times: each page's minimum over the rounds, fitted
as ``fixed + per_block * blocks + per_element * elements + per_kb * KB`` for
the floor and for ``extract()``, and each term's share of the mean page.
"""

from __future__ import annotations

import numpy as np

#: What the fit's terms are named in its lines, after the fixed cost.
TERMS = ("block", "element", "KB")


def fitted(label: str, rounds: list[dict]) -> str:
    """Two lines (floor, extract()) of ms a page: the fit's fixed cost and cost per term,
    and the mean page's ms with each part's share, from one code's rounds of
    ``extracttime`` figures (``per_page`` rows: floor s, extract s, blocks, elements, bytes)."""
    rows = np.array([r["per_page"] for r in rounds], dtype=np.float64)  # rounds x pages x 5
    floor, spent = rows[:, :, 0].min(axis=0), rows[:, :, 1].min(axis=0)
    sizes = rows[0, :, 2:].copy()
    sizes[:, 2] /= 1000.0  # bytes -> KB
    design = np.column_stack([np.ones(len(sizes)), sizes])
    means = design.mean(axis=0)
    lines = []
    for name, seconds in (("floor", floor), ("extract()", spent)):
        coef = np.linalg.lstsq(design, 1000.0 * seconds, rcond=None)[0]
        parts = coef * means
        total = parts.sum()
        terms = ", ".join(f"{c:.4f}/{t}" for c, t in zip(coef[1:], TERMS))
        shares = ", ".join(f"{n} {100 * p / total:.0f}%" for n, p in zip(("fixed", *TERMS), parts))
        lines.append(f"fit {label} {name}: {coef[0]:.3f} ms fixed + {terms}; mean page "
                     f"{total:.3f} ms ({shares})")
    lines.append(f"fit {label}: mean page {means[1]:.0f} blocks, {means[2]:.0f} elements, "
                 f"{means[3]:.1f} KB, {len(sizes)} pages")
    return "\n".join(lines)
