"""The shape of the package: layers, no import cycle, the lab apart from the runtime (issue 13).

Three checks with different reach:

* the import-linter contracts in ``setup.cfg`` (the runtime never imports
  ``scrapy_declutter.lab``; top-level parts import only downwards; no cycle
  between the children of any package);
* a module-level cycle check on grimp's graph, which also sees a package
  and its own modules importing each other (which the sibling contract cannot);
* what ``import scrapy_declutter`` loads, in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import deque
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "scrapy_declutter"


def _graph() -> dict[str, set[str]]:
    graph = grimp.build_graph(PACKAGE, include_external_packages=False)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def strongly_connected(adj: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative; only the components of more than one module (the cycles)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in sorted(adj):
        if start in index:
            continue
        work = [(start, iter(sorted(adj[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(adj.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def cycle_path(adj: dict[str, set[str]], component: set[str]) -> list[str]:
    """One shortest cycle through the component's first module, as a list of modules."""
    start = min(component)
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(adj[node] & component):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [start, *reversed(path[:-1]), start]
            if child not in previous:
                previous[child] = node
                queue.append(child)
    raise AssertionError(f"{sorted(component)} is not a cycle")


def test_the_cycle_finder_finds_cycles():
    adj = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert strongly_connected(adj) == [{"a", "b", "c"}]
    assert cycle_path(adj, {"a", "b", "c"}) == ["a", "b", "c", "a"]


def test_no_import_cycle_between_modules():
    adj = _graph()
    cycles = strongly_connected(adj)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle_path(adj, c)) for c in cycles)


def test_import_linter_contracts_hold():
    # In a child process: lint_imports reconfigures logging, which breaks later caplog tests.
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(ROOT / 'setup.cfg')!r}, no_cache=True, "
            "no_logo=True))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def _loaded_after(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.splitlines()[-1])


OPTIONAL = ("hypothesis", "sklearn", "lightgbm", "trafilatura", "readability", "boilerpy3")


def test_importing_the_package_loads_no_lab_and_no_optional_dependency():
    loaded = _loaded_after("import scrapy_declutter")
    assert not [m for m in loaded if m.startswith(f"{PACKAGE}.lab")]
    assert not [m for m in loaded if m.split(".")[0] in OPTIONAL]


def test_the_command_line_loads_the_lab_commands_but_no_optional_dependency():
    loaded = _loaded_after("from scrapy_declutter.cli import build_parser; build_parser()")
    assert f"{PACKAGE}.lab.commands.evaluate" in loaded  # registered by dotted path
    assert not [m for m in loaded if m.split(".")[0] in OPTIONAL]
