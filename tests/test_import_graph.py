"""edgedp's modules import each other in one direction: no import cycle, and every floor imports only
the floors below it (the plan in the README's Layout section).

The graph is read from the source, so it sees every import whatever runs: module-level imports,
deferred imports inside functions, ``TYPE_CHECKING`` imports, and modules named by string for
``importlib`` (the lazy registries and pack loaders).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "edgedp"

#: The floors, lowest first; a module may import its own floor and the floors below it.
FLOORS = [
    {"edgedp.errors", "edgedp.progress"},
    {"edgedp.privacy"},
    {"edgedp.text", "edgedp.packs"},
    {"edgedp.words", "edgedp.adept", "edgedp.documents"},
    {"edgedp.evaluation", "edgedp.registry"},
    {"edgedp.cli", "edgedp.engines", "edgedp.spark", "edgedp.dask", "edgedp.console", "edgedp"},
]
#: The upward references there are, each by name on first use and each a deliberate design:
#: ``load_pack`` reaches the loader of the kind it is asked for (so a words program never loads
#: onnxruntime), and the sentence mechanisms' word-level baseline runs a word mechanism.
ALLOWED_UPWARD = {
    ("edgedp.packs.loading", "edgedp.words.pack"),
    ("edgedp.packs.loading", "edgedp.documents.pack"),
    ("edgedp.packs.loading", "edgedp.documents.subspace_pack"),
    ("edgedp.packs.loading", "edgedp.adept.pack"),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported_names(path: Path) -> Iterator[str]:
    """Every module name the file refers to: imports at any depth, and strings naming a module."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value.partition(":")[0]  # "edgedp.words.brr:BRR" in a registry


@functools.cache
def parsed_graph() -> dict[str, frozenset[str]]:
    return {
        name: frozenset(
            target for target in imported_names(path) if target in MODULES and target != name
        )
        for name, path in MODULES.items()
    }


def import_graph() -> dict[str, set[str]]:
    """A fresh, editable copy of the graph (parsed once)."""
    return {name: set(targets) for name, targets in parsed_graph().items()}


def floor_of(name: str) -> int:
    for level, members in enumerate(FLOORS):
        if any(name == member or name.startswith(member + ".") for member in members - {"edgedp"}):
            return level
    assert name == "edgedp", f"{name} is on no floor: add it to FLOORS"
    return len(FLOORS) - 1


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), and self-loops."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_every_kind_of_import():
    graph = import_graph()
    assert "edgedp.privacy.randomness" in graph["edgedp.privacy.noise"]  # module level
    assert "edgedp.evaluation.explain" in graph["edgedp.cli.explain"]  # deferred, in a function
    assert "edgedp.words.pack" in graph["edgedp.packs.loading"]  # TYPE_CHECKING and a string
    assert "edgedp.words.brr" in graph["edgedp.registry"]  # "module:Class" in a registry


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_a_cycle_is_found():
    graph = import_graph()
    graph["edgedp.words.mechanism"].add("edgedp.evaluation.explain")  # the circle issue 29 broke
    assert any("edgedp.words.mechanism" in component for component in cycles(graph))


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down_the_floors(name):
    upward = sorted(
        target
        for target in parsed_graph()[name]
        if floor_of(target) > floor_of(name) and (name, target) not in ALLOWED_UPWARD
    )
    assert upward == [], f"{name} (floor {floor_of(name)}) imports from above: {upward}"


def test_top_level_is_a_handful_of_modules():
    top = sorted(path.stem for path in PACKAGE.glob("*.py"))
    assert top == ["__init__", "console", "dask", "errors", "progress", "registry", "spark"]
