"""The reference pages list every setting, meta key and stat the package's code uses, and no other.

Names are found in the code, not in a list kept by hand. Settings come from
their one table: every field of ``integration.settings.DeclutterOptions`` is
a setting (``text_field`` is ``DECLUTTER_TEXT_FIELD``, by the module's own
``setting_name``), and the table's defaults and "per request" flags are
checked against the docs' columns too. Any other ``DECLUTTER_*`` string in
the package's syntax trees is a setting as well (one read outside the table
would still need a row). A ``*META_KEY`` constant or a
string key of ``*.meta[...]`` / ``*.meta.get(...)`` is a meta key; a string
starting ``declutter/`` is a stat, an f-string one a pattern (its
placeholders match any name, as ``<kind>`` does in the docs). A page lists
names in the first column of its tables.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "scrapy_declutter"
DOCS = ROOT / "docs"

SETTING = re.compile(r"DECLUTTER_[A-Z0-9_]+")
STAT = re.compile(r"declutter/[\w/]*")
_CODE = re.compile(r"`([^`]+)`")
_PLACEHOLDER = re.compile(r"<[^<>]+>")
_META_METHODS = {"get", "pop", "setdefault"}


def _trees() -> list[tuple[Path, ast.AST]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"), str(p))) for p in PACKAGE.rglob("*.py")]


def _is_meta(node: ast.AST) -> bool:
    """``request.meta``, ``response.meta``, ``self.request.meta``... (not a model's ``meta``)."""
    if not (isinstance(node, ast.Attribute) and node.attr == "meta"):
        return False
    owner = node.value
    name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
    return name.endswith(("request", "response"))


def _meta_constants(tree: ast.AST) -> dict[str, str]:
    """``NAME_META_KEY = "..."`` constants of one module (names are resolved per module)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id.endswith("META_KEY"):
                    found[target.id] = node.value.value
    return found


def table_settings() -> dict[str, tuple[object, bool]]:
    """Setting name -> (default, settable per request), from the options table itself."""
    from scrapy_declutter.integration import settings as table

    return {table.setting_name(f.name): (f.default, f.metadata["setting"].per_request)
            for f in dataclasses.fields(table.DeclutterOptions) if "setting" in f.metadata}


def code_names() -> dict[str, set[str]]:
    """Settings, meta keys and stat patterns (regular expressions) found in the package."""
    settings: set[str] = set(table_settings())
    meta: set[str] = set()
    stats: set[str] = set()
    trees = _trees()
    constants: dict[str, str] = {}
    for _, tree in trees:
        constants.update(_meta_constants(tree))
    meta.update(constants.values())

    def key_of(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return constants.get(node.id)
        return None

    for _, tree in trees:
        # docstrings, and the literal parts of f-strings (read whole, below), are no names
        skip = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr)}
        skip.update(id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in skip:
                    continue
                if SETTING.fullmatch(node.value):
                    settings.add(node.value)
                elif STAT.fullmatch(node.value):
                    # a prefix such as "declutter/skipped/" stands for the names under it
                    stats.add(re.escape(node.value) + (r"\S+" if node.value.endswith("/") else ""))
            elif isinstance(node, ast.JoinedStr):
                parts = [re.escape(v.value) if isinstance(v, ast.Constant) else r"\S+"
                         for v in node.values]
                if parts and isinstance(node.values[0], ast.Constant) \
                        and STAT.match(node.values[0].value):
                    stats.add("".join(parts))
            elif isinstance(node, ast.Subscript) and _is_meta(node.value):
                key = key_of(node.slice)
                if key is not None:
                    meta.add(key)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in _META_METHODS and _is_meta(node.func.value) and node.args):
                key = key_of(node.args[0])
                if key is not None:
                    meta.add(key)
    return {"settings": settings, "meta": meta, "stats": stats}


def documented(page: str) -> set[str]:
    """The names in the first column of every table on a docs page."""
    names = set()
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2 and not set(cells[1].strip()) <= {"-", " "}:
            names.update(_CODE.findall(cells[1]))
    return names


def _readable(pattern: str) -> str:
    return pattern.replace(r"\S+", "<name>").replace("\\", "")


def _as_pattern(name: str) -> str:
    """A documented stat as the code would spell it: ``<kind>`` becomes a placeholder."""
    return _PLACEHOLDER.sub("X", name)


@pytest.fixture(scope="module")
def names():
    return code_names()


def test_the_scan_finds_what_the_code_uses(names):
    """Guards the scanner itself: names known to be in the code today must be found."""
    assert {"DECLUTTER_ENABLED", "DECLUTTER_EXTRACTOR", "DECLUTTER_INSPECT_DIR"} <= names["settings"]
    assert "declutter" in names["meta"]
    assert any(re.fullmatch(p, "declutter/pages") for p in names["stats"])
    assert any(re.fullmatch(p, "declutter/errors/RuntimeError") for p in names["stats"])


def test_every_setting_is_documented(names):
    listed = {n for n in documented("settings.md") if SETTING.fullmatch(n)}
    missing = sorted(names["settings"] - listed)
    assert not missing, f"add to docs/settings.md: {missing}"
    stale = sorted(listed - names["settings"])
    assert not stale, f"docs/settings.md lists settings the code no longer has: {stale}"


def setting_rows() -> dict[str, dict[str, str]]:
    """docs/settings.md's settings table: setting name -> {column heading: cell}."""
    rows: dict[str, dict[str, str]] = {}
    header: list[str] = []
    for line in (DOCS / "settings.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|"):
            header = []
        elif not header:
            header = cells
        elif (names := _CODE.findall(cells[0])) and SETTING.fullmatch(names[0]):
            rows[names[0]] = dict(zip(header, cells))
    return rows


def test_settings_table_gives_each_default_and_where_it_may_be_set():
    """The Default and Per request columns say what the options table says."""
    rows = setting_rows()
    wrong = []
    for name, (default, per_request) in table_settings().items():
        row = rows.get(name)
        if row is None:
            continue  # test_every_setting_is_documented names it
        shown = _CODE.findall(row["Default"])
        if not shown or shown[0] != repr(default):
            wrong.append(f"{name}: Default should start with `{default!r}`, not {row['Default']!r}")
        if row["Per request"].startswith("yes") != per_request:
            wrong.append(f"{name}: Per request should start with "
                         f"{'yes' if per_request else 'no'}, not {row['Per request']!r}")
    assert not wrong, "docs/settings.md:\n" + "\n".join(wrong)


def test_every_meta_key_is_documented(names):
    listed = documented("meta-keys.md")
    missing = sorted(names["meta"] - listed)
    assert not missing, f"add to docs/meta-keys.md: {missing}"
    stale = sorted(listed - names["meta"])
    assert not stale, f"docs/meta-keys.md lists meta keys the code no longer uses: {stale}"


def test_every_stat_is_documented(names):
    listed = {n for n in documented("stats.md") if n.startswith("declutter/")}
    missing = sorted(_readable(p) for p in names["stats"]
                     if not any(re.fullmatch(p, _as_pattern(n)) for n in listed))
    assert not missing, f"add to docs/stats.md: {missing}"
    stale = sorted(n for n in listed
                   if not any(re.fullmatch(p, _as_pattern(n)) for p in names["stats"]))
    assert not stale, f"docs/stats.md lists stats the code no longer counts: {stale}"
