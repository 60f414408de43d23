"""Security: nothing the plugin loads can run code, it opens no sockets, hidden markup never leaks."""

from __future__ import annotations

import ast
import socket
from pathlib import Path

import pytest

import scrapy_declutter
from scrapy_declutter import extract, extractors

PACKAGE = Path(scrapy_declutter.__file__).parent
#: Modules that turn bytes into code or arbitrary objects.
FORBIDDEN_MODULES = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "joblib", "dill", "cloudpickle"}
#: Calls that run code or build arbitrary objects from data.
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}


def _sources() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 10
    return files


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            found += [f"{where} imports {a.name}" for a in node.names
                      if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in FORBIDDEN_MODULES:
            found.append(f"{where} imports from {node.module}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if isinstance(func, ast.Name) and name in FORBIDDEN_CALLS:
                found.append(f"{where} calls {name}()")
            if name in {"load", "load_all", "unsafe_load"} and isinstance(func, ast.Attribute) \
                    and isinstance(func.value, ast.Name) and func.value.id == "yaml":
                found.append(f"{where} calls yaml.{name}()")
            for kw in node.keywords:  # numpy.load(..., allow_pickle=True)
                if kw.arg == "allow_pickle" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    found.append(f"{where} passes allow_pickle={ast.unparse(kw.value)}")
            if name == "load" and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id in {"np", "numpy"} and not any(k.arg == "allow_pickle" for k in node.keywords):
                found.append(f"{where} calls np.load without allow_pickle=False")
    return found


def test_no_code_executing_loaders_in_the_package():
    violations = [v for path in _sources() for v in _violations(path)]
    assert violations == []


def test_the_checker_catches_what_it_forbids(tmp_path, monkeypatch):
    bad = tmp_path / "scrapy_declutter" / "bad.py"
    bad.parent.mkdir()
    bad.write_text("import pickle\nfrom joblib import load\nimport yaml\nimport numpy as np\n"
                   "eval('1')\nyaml.load(s)\nnp.load(f)\nnp.load(f, allow_pickle=True)\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "scrapy_declutter")
    found = " ".join(_violations(bad))
    for what in ("imports pickle", "from joblib", "calls eval", "yaml.load", "without allow_pickle",
                 "allow_pickle=True"):
        assert what in found


def test_shipped_model_files_are_plain_data():
    models = PACKAGE / "models"
    for path in sorted(models.glob("*")) if models.is_dir() else []:
        assert path.suffix in {".json", ".gz", ".npz", ".md", ".txt"}, path
        if path.suffix == ".npz":
            import numpy as np

            with np.load(path, allow_pickle=False) as data:  # raises on object arrays
                assert all(data[k].dtype != object for k in data.files)


# -- no network ---------------------------------------------------------------------------------
class NetworkUsed(AssertionError):
    pass


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise NetworkUsed(f"the plugin tried to use the network: {args!r}")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_extraction_opens_no_socket(no_network, wcxb):
    html, _ = wcxb("0082")
    page = html.replace(b"<body", b"<body><img src='https://tracker.example/p.gif'>"
                        b"<script src='https://cdn.example/x.js'></script>", 1)
    for name in extractors():
        result = extract(page, "https://example.com/a", extractor=name)
        assert "NetworkUsed" not in result.reason, (name, result.reason)
        # An extractor whose model file is not trained in this checkout is not this test's concern.
        assert not result.reason.startswith("error") or "ModelError" in result.reason, (name, result.reason)
    with pytest.raises(NetworkUsed):  # the guard itself works
        socket.create_connection(("example.com", 80))


def test_site_learning_with_a_local_store_opens_no_socket(no_network, tmp_path, wcxb):
    declutter_cls = getattr(scrapy_declutter, "Declutter", None)
    if declutter_cls is None:
        pytest.skip("site learning is not in this checkout")
    html, _ = wcxb("0082")
    for uri in ("memory:", f"sqlite:///{tmp_path}/sites.db"):
        with declutter_cls(store=uri) as dec:
            for i in range(3):
                assert dec.extract(html, f"https://example.com/{i}").text


# -- hidden markup never reaches the text ---------------------------------------------------------
SECRET = "SECRETMARK"
# <noscript> is not here: a crawler runs no scripts, so its content is what it sees (see segment.py).
HIDDEN_PAGES = [
    f"<script>document.write('<p>{SECRET}</p>')</script>",
    f"<SCRIPT type='text/template'><div class='post'><p>{SECRET} in a template</p></div></SCRIPT>",
    f"<script>var s = '</scr' + 'ipt><p>{SECRET}</p>';</script>",
    f"<script type='application/ld+json'>{{\"articleBody\": \"<p>{SECRET}</p>\"}}</script>",
    f"<style>p::before {{ content: '<b>{SECRET}</b>' }}</style>",
    f"<p>Visible <style>.x{{}}/* {SECRET} */</style>text</p>",
    f"<svg><script>alert('{SECRET}')</script><text>{SECRET}</text></svg>",
    f"<template><article><p>{SECRET}</p></article></template>",
    f"<!-- <p>{SECRET} in a comment</p> -->",
    f"<iframe srcdoc='<p>{SECRET}</p>'><p>{SECRET}</p></iframe>",
    f"<table><tr><td>cell<script>x='<td>{SECRET}</td>'</script></td></tr></table>",
    f"<p>unclosed script follows</p><script>var a = '<p>{SECRET}</p>';",
]
FILLER = "<p>" + "An ordinary paragraph with enough ordinary words to be kept as content. " * 4 + "</p>"


@pytest.mark.parametrize("hidden", HIDDEN_PAGES)
def test_script_style_and_hidden_markup_never_reach_the_text(hidden):
    html = f"<html><head><title>t</title><script>var h='<p>{SECRET}</p>'</script></head>" \
           f"<body>{FILLER}{hidden}{FILLER}</body></html>"
    for name in extractors():
        result = extract(html, "https://example.com/a", extractor=name)
        assert SECRET not in result.text, name
        assert all(SECRET not in b.text for b in result.blocks), name
        assert "<script" not in result.text.lower() and "<p>" not in result.text


@pytest.mark.parametrize("tag", ["noframes", "noembed"])
def test_raw_text_fallback_elements_never_reach_the_text(tag):
    html = f"<html><body>{FILLER}<{tag}><p>{SECRET} fallback</p></{tag}>{FILLER}</body></html>"
    result = extract(html, "https://example.com/a")
    assert all(SECRET not in b.text for b in result.blocks)
