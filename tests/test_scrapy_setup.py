"""A broken set-up stops the crawl at start with one message and a non-zero exit (issue 40).

Real crawls: each bad setting, unknown setting name, unusable store or
extractor that cannot be imported must stop the crawl before its first
request and before any feed is opened, with one error naming the setting and
what it accepts, logged first and whole (Scrapy may print a traceback after
it). The last tests run ``scrapy crawl`` itself in the example project: it
exits 1 and leaves the previous feed file as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_scrapy_crawl import crawl, site_url  # noqa: F401 (fixture)

EXAMPLE = Path(__file__).resolve().parents[1] / "example_project"

#: (settings, spider arguments, modules that fail to import) -> what the one message must say.
BROKEN = [
    ({"DECLUTTER_EXTRACTOR": "nosuch"}, {}, [],
     ["DECLUTTER_EXTRACTOR='nosuch' is not an extractor", "valid names: ", "density"]),
    ({"DECLUTTER_EXTRACTR": "density"}, {}, [],
     ["DECLUTTER_EXTRACTR is not a scrapy_declutter setting; did you mean DECLUTTER_EXTRACTOR?",
      "Valid: DECLUTTER_ENABLED"]),
    ({"DECLUTTER_CONTENT_SELECTOR": "div[", "DECLUTTER_MAX_SIZE": "big",
      "DECLUTTER_THREADS": "maybe", "DECLUTTER_INSPECT_SAMPLE": "2"}, {}, [],
     ["DECLUTTER_CONTENT_SELECTOR='div[' is not a CSS or XPath selector",
      "DECLUTTER_MAX_SIZE='big' is not a size; use a whole number of bytes",
      "DECLUTTER_THREADS='maybe' is not a boolean; use True or False",
      "DECLUTTER_INSPECT_SAMPLE='2' is not a rate; use a number from 0 to 1"]),
    ({"DECLUTTER_EXTRACTOR": "missing-module-test"}, {}, [],
     ["DECLUTTER_EXTRACTOR='missing-module-test' cannot be loaded: ModuleNotFoundError",
      "scrapy_declutter_no_such_module", "pip install"]),
    ({"DECLUTTER_STORE": "redis://127.0.0.1:6399/0"}, {}, ["redis"],
     ["DECLUTTER_STORE='redis://127.0.0.1:6399/0' cannot be opened",
      "pip install scrapy-declutter[redis]"]),
    ({"DECLUTTER_STORE": "ftp://example.com/models"}, {}, [],
     ["DECLUTTER_STORE='ftp://example.com/models' cannot be opened: unknown store URI"]),
    ({"DECLUTTER_TEXT_FIELD": "text", "DECLUTTER_TITLE_FIELD": "text"}, {}, [],
     ["DECLUTTER_TEXT_FIELD and DECLUTTER_TITLE_FIELD both name the item field 'text'"]),
    ({}, {"declutter_extractr": "density", "declutter_site_learning": "sometimes"}, [],
     [("declutter_extractr is not a scrapy_declutter spider argument; did you mean "
       "declutter_extractor?"), "declutter_site_learning='sometimes' is not a boolean"]),
]


def _error_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if "] ERROR:" in line or "] CRITICAL:" in line]


def test_each_broken_setup_stops_the_crawl_at_start_with_one_message(site_url, tmp_path):  # noqa: F811
    logs = [tmp_path / f"crawl{i}.log" for i in range(len(BROKEN))]
    specs = [
        {"settings": {**settings, "LOG_FILE": str(log)}, "unimportable": unimportable,
         "args": {"start_url": f"{site_url}/index.html", **args}}
        for (settings, args, unimportable, _), log in zip(BROKEN, logs)
    ]
    stats, _ = crawl(tmp_path, *specs)
    for (settings, args, _, expected), log, s in zip(BROKEN, logs, stats):
        text = log.read_text()
        case = settings or args
        assert s["bootstrap_error"].startswith("scrapy_declutter cannot start:"), case
        errors = _error_lines(text)
        assert len(errors) == 1 and "scrapy_declutter cannot start" in errors[0], (case, errors)
        for phrase in expected:
            assert phrase in text, (case, phrase, text[-3000:])
            assert phrase in s["bootstrap_error"], (case, phrase)
        assert "Crawled (" not in text, case  # not one page fetched


@pytest.mark.parametrize("setting", ["DECLUTTER_FORMAT=md", "DECLUTTER_FORMT=markdown"])
def test_scrapy_crawl_with_a_bad_setting_exits_1_and_keeps_the_previous_feed(tmp_path, setting):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(EXAMPLE),
                                                                     os.environ.get("PYTHONPATH")]))}
    out = tmp_path / "items.jsonl"
    out.write_text('{"url": "yesterday"}\n')
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "docs", "-O", str(out),
         "-s", setting, "-s", "TELNETCONSOLE_ENABLED=False"],
        cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    log = proc.stderr
    assert proc.returncode == 1, log[-3000:]
    name = setting.split("=")[0]
    first = _error_lines(log)[0]
    assert "scrapy_declutter cannot start" in first, log[-3000:]
    # The message, first and whole, before anything Scrapy prints after it.
    message = log[log.index("scrapy_declutter cannot start"):].split("\n20")[0]
    assert name in message and ("use one of text, markdown, both" in message
                                or "did you mean DECLUTTER_FORMAT?" in message), message
    assert "Crawled (" not in log
    assert out.read_text() == '{"url": "yesterday"}\n'  # the feed was never opened


def test_disabled_plugin_skips_validation(site_url, tmp_path):  # noqa: F811
    # DECLUTTER_ENABLED=False removes the components (NotConfigured); a bad value elsewhere
    # is then nobody's business, and the crawl runs as if the plugin were not installed.
    (stats,), _ = crawl(tmp_path, {
        "settings": {"DECLUTTER_ENABLED": "off", "DECLUTTER_EXTRACTOR": "nosuch"},
        "args": {"start_url": f"{site_url}/tomatoes.html"},
    })
    assert stats["finish_reason"] == "finished"
    assert not any(k.startswith("declutter/") for k in stats)
