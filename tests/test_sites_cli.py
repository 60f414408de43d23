"""The site-learning commands: train, sites list/show/forget, evaluate --site-learning."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_declutter.cli import main
from test_sitemodel import FOOTER, article

ROOT = Path(__file__).resolve().parents[1]


def write_pages(folder, n=4, **kw):
    paths = []
    for i in range(n):
        p = folder / f"page{i}.html"
        p.write_text(article(i, **kw), encoding="utf-8")
        paths.append(str(p))
    return paths


def test_train_with_a_selector_then_list_show_and_forget(tmp_path, capsys):
    store = f"sqlite:///{tmp_path}/sites.db"
    paths = write_pages(tmp_path)
    assert main(["train", "--site", "gazette", "--selector", "#main", "--extractor", "density",
                 "--store", store, *paths]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["pages"] == 4 and summary["supervised_files"] == 4
    assert summary["examples"]["keep"] >= 20 and summary["examples"]["discard"] >= 8
    # Training again on the same files does not count them twice.
    main(["train", "--site", "gazette", "--selector", "#main", "--extractor", "density",
                 "--store", store, *paths])
    assert json.loads(capsys.readouterr().out)["pages"] == 4

    assert main(["sites", "list", "--store", store]) == 0
    assert capsys.readouterr().out.split() == ["gazette", "4", "pages"]
    assert main(["sites", "show", "gazette", "--store", store, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["site"] == "gazette"
    assert main(["sites", "forget", "gazette", "--store", store]) == 0
    capsys.readouterr()
    assert main(["sites", "show", "gazette", "--store", store]) == 2
    assert "no (readable) model" in capsys.readouterr().err


def test_train_with_markers(tmp_path, capsys):
    paths = write_pages(tmp_path, markers=True)
    store = f"sqlite:///{tmp_path}/m.db"
    assert main(["train", "--site", "g", "--markers", "--extractor", "density", "--store", store,
                 *paths]) == 0
    assert json.loads(capsys.readouterr().out)["supervised_files"] == 4


def test_evaluate_site_learning_prints_the_per_site_table(tmp_path, capsys):
    (tmp_path / "html").mkdir()
    (tmp_path / "ground-truth").mkdir()
    files = {}
    for i in range(5):
        fid = f"{i:04d}"
        (tmp_path / "html" / f"{fid}.html.gz").write_bytes(gzip.compress(article(i).encode()))
        content = "\n\n".join(
            line for line in __import__("scrapy_declutter").extract(article(i), extractor="density").text.split("\n\n")
            if not line.startswith("Copyright"))
        (tmp_path / "ground-truth" / f"{fid}.json").write_text(json.dumps(
            {"url": f"https://gazette.example/{i}", "ground_truth": {"main_content": content}}))
        files[fid] = {"domain": "gazette.example", "page_type": "article"}
    (tmp_path / "metadata.json").write_text(json.dumps({"files": files}))
    assert main(["evaluate", str(tmp_path), "-e", "density", "--site-learning"]) == 0
    out = capsys.readouterr().out
    assert "gazette.example" in out and "recrawl: boilerplate share cut by" in out
    row = next(line for line in out.splitlines() if line.startswith("gazette.example"))
    bp_generic, bp_first, bp_recrawl = (float(x) for x in row.split("|")[1].split())
    assert bp_recrawl < bp_generic  # the repeated footer is gone on the re-crawl
    assert FOOTER.split()[0] == "Copyright"


def test_sites_show_prints_the_container_as_a_selector_and_the_template_with_examples(
        tmp_path, capsys):
    from conftest import SAMPLE_DATA
    from scrapy_declutter import Declutter

    site, store = SAMPLE_DATA / "scrapy", f"sqlite:///{tmp_path}/s.db"
    names = ["index", "tomatoes", "compost", "bees", "pruning"]
    with Declutter(store=store, site_key="fixed:club") as dec:
        for name in names * 2:  # twice: a page is counted once
            dec.extract((site / f"{name}.html").read_bytes(), f"http://club.example/{name}.html")
    assert main(["sites", "show", "club", "--store", store]) == 0
    out = capsys.readouterr().out
    head, container, template, *rows = out.splitlines()
    assert head.startswith("site club: 5 pages (0 supervised), last learned 20")
    assert container.startswith("content container: html > body")
    assert template.startswith("template: ") and rows
    assert all("pages  text" in r or "pages  place" in r for r in rows)
    assert any("'" in r and r.split("'")[1] for r in rows)  # an example text
    summary = json.loads(main(["sites", "show", "club", "--store", store, "--json"]) == 0
                         and capsys.readouterr().out)
    assert len(rows) == len(summary["template"]) and summary["pages"] == 5


def test_css_selector_escapes_names_and_leaves_folded_ones_out():
    from scrapy_declutter.cli.sites import css_selector

    assert css_selector("/html/body/div#main.post/article") == "html > body > div#main.post > article"
    assert css_selector("/html/body/div#post-0.entry") == "html > body > div.entry"
    assert css_selector("/html/body/div.md:w-full") == "html > body > div.md\\:w-full"


@pytest.fixture
def no_project_env(monkeypatch):
    """A shell with no Scrapy project named in the environment (the folder decides)."""
    monkeypatch.delenv("SCRAPY_SETTINGS_MODULE", raising=False)
    monkeypatch.delenv("SCRAPY_PROJECT", raising=False)


def test_sites_list_in_the_example_project_reads_what_its_crawl_learned(
        tmp_path, monkeypatch, capsys, no_project_env):
    project = tmp_path / "example_project"
    shutil.copytree(ROOT / "example_project", project,
                    ignore=shutil.ignore_patterns(".scrapy", "__pycache__", "*.jsonl"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPY_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    subprocess.run([sys.executable, "-m", "scrapy", "crawl", "docs", "-s", "LOG_LEVEL=WARNING",
                    "-s", "TELNETCONSOLE_ENABLED=False"],
                   cwd=project, env=env, check=True, capture_output=True, timeout=300)
    assert (project / ".scrapy" / "declutter.sqlite3").is_file()  # the crawl's default store
    monkeypatch.chdir(project / "docs_example")  # any folder of the project: scrapy.cfg is above
    assert main(["sites", "list"]) == 0
    site, pages = capsys.readouterr().out.strip().split("\t")
    assert site == "docs.python.org" and pages == "26 pages"


def test_a_project_without_a_crawl_yet_has_no_store_to_list(tmp_path, monkeypatch, capsys,
                                                            no_project_env):
    (tmp_path / "scrapy.cfg").write_text("[settings]\ndefault = nothing.settings\n")
    monkeypatch.chdir(tmp_path)
    assert main(["sites", "list"]) == 2
    err = capsys.readouterr().err
    assert f"no site store at {tmp_path / '.scrapy' / 'declutter.sqlite3'} yet" in err
    assert not (tmp_path / ".scrapy" / "declutter.sqlite3").exists()


def test_outside_a_project_only_a_store_left_in_this_folder_is_read(tmp_path, monkeypatch, capsys,
                                                                   no_project_env):
    monkeypatch.chdir(tmp_path)
    assert main(["sites", "list"]) == 2
    assert "no Scrapy project here" in capsys.readouterr().err
    assert not (tmp_path / ".scrapy").exists()  # nothing created, least of all at the root
    # What `scrapy runspider` run in this folder writes is read, and named.
    store = f"sqlite:///{tmp_path}/.scrapy/declutter.sqlite3"
    main(["train", "--site", "gazette", "--extractor", "density", "--store", store,
          *write_pages(tmp_path, n=2)])
    capsys.readouterr()
    assert main(["sites", "list"]) == 0
    out, err = capsys.readouterr()
    assert out.split() == ["gazette", "2", "pages"]
    assert f"using the site store {tmp_path / '.scrapy' / 'declutter.sqlite3'}" in err
