"""The crawl benchmark command: test sites on loopback addresses, real crawls, the tables.

A smoke test (2 sites x 2 pages): it checks that the command builds, serves
and crawls the sites in every way it can and reports what it measured, never
how fast (timings on a shared machine vary).
"""

from __future__ import annotations

import os
import re
import shutil

import pytest

from scrapy_declutter.cli import main
from scrapy_declutter.lab.bench import testsites
from scrapy_declutter.lab.bench.broadreport import broad_report


def test_sites_have_their_own_address_links_and_shared_files(tmp_path):
    sources = testsites.real_pages([])[:3]
    hosts = testsites.build(tmp_path, 4, 2, sources)
    assert hosts == ["127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.1.4"]
    assert testsites.host(254) == "127.0.2.1"
    page = (tmp_path / "127.0.1.1" / "p0.html").read_bytes()
    assert b'<a href="p1.html">' in page and page.count(b"bench-site") == 2
    # site 0 page 0 and site 3 page 0 come from the same source page: one file, two links
    assert os.path.samefile(tmp_path / "127.0.1.1" / "p0.html", tmp_path / "127.0.1.4" / "p0.html")
    assert not os.path.samefile(tmp_path / "127.0.1.1" / "p0.html",
                                tmp_path / "127.0.1.2" / "p0.html")


@pytest.mark.parametrize("server", [
    "python",
    pytest.param("nginx", marks=pytest.mark.skipif(
        not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")),
        reason="nginx is not installed (apt-get install nginx-light)")),
])
def test_bench_crawl_crawls_every_page_in_every_mode(server, capsys):
    argv = ["bench-crawl", "--sites", "2", "--pages", "2", "--rounds", "1", "--modes",
            "off,on-thread,on-proc1"]
    assert main(argv + (["--python-server"] if server == "python" else [])) == 0
    out = capsys.readouterr().out
    assert f"served by {server}" in out
    rows = dict(re.findall(r"^(off|on-thread|on-proc1) +(\d+) ", out, re.M))
    assert rows == {"off": "3", "on-thread": "3", "on-proc1": "3"}  # 4 pages, the first starts the clock
    assert re.search(r"^  on-thread: RSS MB at pages 0:\d+", out, re.M)
    # Measured when the spider closed, before the plugin's close: never above the crawl's peak.
    closing = re.search(r"^  on-thread: when the spider closed: RSS (\d+) MB, peak so far (\d+) MB; "
                        r"peak after its close (\d+) MB$", out, re.M)
    # ru_maxrss comes from the kernel's RSS counters, which it reads approximately (per-CPU
    # batches): two readings a moment apart can differ by a megabyte either way.
    assert closing and int(closing[1]) <= int(closing[2]) + 1 <= int(closing[3]) + 2
    # The worker's memory is there; with it at start, in the samples: "0:110+100".
    assert re.search(r"^  on-proc1: RSS MB at pages 0:\d+\+\d+", out, re.M)
    row = r" +3 +[\d.]+ +[\d.]+ +([\d.]+) +([\d.]+) +\d+ +(\d+) +[\d.]+ +\d+$"  # ... GC
    on = re.search("^on-thread" + row, out, re.M)
    # All the CPU in the crawl process (measured a moment apart), no worker.
    assert on and abs(float(on[1]) - float(on[2])) < 1 and on[3] == "0"
    worker = re.search("^on-proc1" + row, out, re.M)
    # The worker's CPU counts (its part is not in the crawl's), and its peak memory.
    assert worker and float(worker[1]) > float(worker[2]) and int(worker[3]) > 50


def test_report_gives_the_cost_of_the_first_and_last_block_of_pages():
    samples = [{"pages": p, "cpu": c, "wall": c, "rss_mb": 100.0}
               for p, c in [(0, 0.0), (10, 0.1), (20, 0.2), (30, 0.5), (31, 0.6)]]
    run = {"pages": 31, "wall": 1.0, "cpu": 0.6, "max_rss_mb": 120.0, "samples": samples,
           "gc_cpu": 0.062, "gc_collections": 40, "gc_full": 3}
    text = broad_report({"off": [run], "on": [run]}, sample_every=10)
    assert "first 10 pages 10.0, last 30.0" in text
    assert re.search(r"^on +31 +31.0 +1.00 +19.4 +19.4 +120 +0 +2.0 +3$", text, re.M)
    assert "when the spider closed" not in text  # figures from before it was measured
    run["before_close"] = {"pages": 31, "rss_mb": 101.0, "max_rss_mb": 110.0}
    text = broad_report({"on": [run]}, sample_every=10)
    assert ("  on: when the spider closed: RSS 101 MB, peak so far 110 MB; peak after its "
            "close 120 MB") in text


def test_report_gives_what_site_learning_adds_in_all_and_in_the_workers():
    def run(cpu: float, main_cpu: float) -> dict:
        samples = [{"pages": 0, "cpu": 0.0, "wall": 0.0, "rss_mb": 100.0},
                   {"pages": 100, "cpu": cpu, "wall": 1.0, "rss_mb": 100.0}]
        return {"pages": 100, "wall": 1.0, "cpu": cpu, "main_cpu": main_cpu,
                "max_rss_mb": 120.0, "samples": samples}
    # 3.0 s over 100 pages against 2.5 s: +20%; the crawl process moved by 0.3 s of it, so
    # the workers' part is 1.5 s against 1.3 s: +2 ms a page, +8% of 25 ms.
    text = broad_report({"on": [run(3.0, 1.5)], "on-nolearning": [run(2.5, 1.2)]}, sample_every=10)
    assert ("site learning: +20.0% CPU a page (on against on-nolearning); in the worker "
            "processes alone +2.0 ms a page, +8.0% of on-nolearning's CPU") in text
    # Without workers (all CPU in the crawl process) there is no workers' part.
    text = broad_report({"on": [run(3.0, 3.0)], "on-nolearning": [run(2.5, 2.5)]}, sample_every=10)
    assert "site learning: +20.0% CPU a page (on against on-nolearning)\n" in text
    assert "site learning" not in broad_report({"on": [run(3.0, 3.0)]}, sample_every=10)
    # Over rounds, each round's own ratio too (its two crawls ran one after the other).
    text = broad_report({"on": [run(3.0, 3.0), run(2.0, 2.0), run(2.2, 2.2)],
                         "on-nolearning": [run(2.5, 2.5), run(2.0, 2.0), run(2.0, 2.0)]},
                        sample_every=10)
    assert ("site learning: +10.0% CPU a page (on against on-nolearning); round by round "
            "+20.0, +0.0, +10.0%, median +10.0%\n") in text
    # With the plugin's own count of its analysis CPU (``declutter/seconds``): its part too.
    on, off = run(3.0, 1.5), run(2.5, 1.2)
    on["analysis_cpu"], off["analysis_cpu"] = 1.2, 1.1
    text = broad_report({"on": [on], "on-nolearning": [off]}, sample_every=10)
    assert text.split("\n")[3].endswith(
        "; in the analysis alone +1.0 ms a page, +4.0% of on-nolearning's CPU")
