"""``bench-extract``: extract()'s speed here and in another checkout, alternated, in one run.

A command that prints numbers: the test checks what it prints (every code and round,
positive figures, the ratio line), never how fast anything is."""

from __future__ import annotations

import re
from pathlib import Path

from scrapy_declutter.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_bench_extract_times_every_code_every_round_against_lxml(capsys, tiny_dataset):
    # This checkout twice (as itself and as "another" checkout): the same code, two labels' rows.
    assert main(["bench-extract", str(tiny_dataset), "--rounds", "2", "--pythonpath", str(ROOT)]) == 0
    out = capsys.readouterr().out
    assert "extract() on 3 pages" in out and "bytes in" in out
    rows = [line.split() for line in out.splitlines() if re.match(r"[12] ", line)]
    assert [r[0] for r in rows] == ["1", "1", "2", "2"]
    for _, _, pages_s, x_lxml, lxml_ms, ms in rows:
        assert float(pages_s) > 0 and float(x_lxml) > 0 and float(lxml_ms) > 0 and float(ms) > 0
    ratio = next(line for line in out.splitlines() if " over " in line)
    assert re.search(r"\(median \d+\.\d\d\)$", ratio)
    # The plain floor: one reference line a code, extract() as a multiple of it.
    references = [line for line in out.splitlines() if line.startswith("reference ")]
    assert len(references) == 2
    for line in references:
        floor, factor = re.search(r"tree freed, (\d+\.\d+) ms/page; .* = (\d+\.\d\d)x", line).groups()
        assert float(floor) > 0 and float(factor) > 0


def test_bench_extract_gives_the_text_when_asked(capsys, tiny_dataset):
    assert main(["bench-extract", str(tiny_dataset), "--rounds", "1", "--text"]) == 0
    out = capsys.readouterr().out
    assert "text in" in out and len([l for l in out.splitlines() if l.startswith("1 ")]) == 1


def test_bench_extract_refuses_a_folder_without_the_package(capsys, tmp_path, tiny_dataset):
    assert main(["bench-extract", str(tiny_dataset), "--pythonpath", str(tmp_path)]) == 2
    assert "holds no scrapy_declutter package" in capsys.readouterr().err


def test_bench_extract_times_other_chains_of_this_checkout_against_every_other_code(capsys, tiny_dataset):
    assert main(["bench-extract", str(tiny_dataset), "--rounds", "1", "--here-also", "title",
                 "--pythonpath", str(ROOT)]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("1 ")]
    labels = [r[1] for r in rows]
    assert len(rows) == 3 and labels[1].endswith("/title") and "/" not in labels[0] + labels[2]
    ratios = [line for line in out.splitlines() if " over " in line]
    assert [line.split(" over ")[0] for line in ratios] == labels[:2]


def test_bench_extract_refuses_an_unknown_extractor_before_timing(capsys, tiny_dataset):
    assert main(["bench-extract", str(tiny_dataset), "--here-also", "no-such-chain"]) == 2
    assert "no-such-chain" in capsys.readouterr().err


def test_bench_extract_keeps_only_the_pages_up_to_max_bytes(capsys, tiny_dataset):
    from scrapy_declutter.lab.dataset import load_dataset

    sizes = sorted(len(s.html_bytes()) for s in load_dataset(tiny_dataset))
    assert main(["bench-extract", str(tiny_dataset), "--rounds", "1", "--max-bytes", str(sizes[1])]) == 0
    out = capsys.readouterr().out
    assert f"extract() on 2 pages of at most {sizes[1]:,} bytes" in out
    assert f"({sum(sizes[:2]) / 2 / 1000:.1f} KB a page)" in out


def test_bench_extract_times_a_folder_of_html_pages(capsys, tmp_path):
    site = ROOT / "example_project" / "site"
    (tmp_path / "one" / "a").mkdir(parents=True)
    for name in ("tutorial/index.html", "faq/index.html"):
        body = (site / "docs.python.org" / "3.11" / name).read_bytes()
        (tmp_path / "one" / "a" / name.replace("/", "-")).write_bytes(body)
    assert main(["bench-extract", str(tmp_path / "one"), "--rounds", "1"]) == 0
    assert "extract() on 2 pages of " in capsys.readouterr().out


def test_bench_extract_refuses_a_size_no_page_is_under(capsys, tiny_dataset):
    assert main(["bench-extract", str(tiny_dataset), "--max-bytes", "10"]) == 2
    assert "no page of at most 10 bytes" in capsys.readouterr().err


def test_bench_extract_fits_each_pages_time_to_its_size(capsys, tiny_dataset):
    assert main(["bench-extract", str(tiny_dataset), "--rounds", "2", "--fit"]) == 0
    out = capsys.readouterr().out
    fits = [line for line in out.splitlines() if line.startswith("fit ")]
    assert len(fits) == 3 and " floor: " in fits[0] and " extract(): " in fits[1]
    for line in fits[:2]:
        mean = re.search(r": -?\d+\.\d+ ms fixed .* mean page (\d+\.\d+) ms", line).group(1)
        shares = [int(s) for s in re.findall(r"(-?\d+)%", line)]
        assert len(shares) == 4 and abs(sum(shares) - 100) <= 2 and float(mean) > 0
    assert re.search(r"mean page \d+ blocks, \d+ elements, \d+\.\d KB, 3 pages$", fits[2])
