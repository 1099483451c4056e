"""edgedp's modules import each other in one direction: no import cycle, and every floor imports only
the floors below it (the plan in the README's Layout section). No module imports another's private
names (a leading underscore), in the runtime, the exporter, the benchmarks or the tests.

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
    {"edgedp.runtime"},
    {"edgedp.text", "edgedp.packs", "edgedp.languages"},
    {"edgedp.encoder"},
    {"edgedp.words", "edgedp.adept", "edgedp.documents"},
    {"edgedp.evaluation", "edgedp.registry"},
    {
        "edgedp.cli",
        "edgedp.engines",
        "edgedp.spark",
        "edgedp.dask",
        "edgedp.console",
        "edgedp.__main__",
        "edgedp",
    },
]
#: The upward references there are, each by name on first use and each a deliberate design: a
#: word mechanism's first-text utility warning estimates its own keep rate with the evaluation tool
#: built for it (public words only; nothing it computes is released).
ALLOWED_UPWARD = {
    ("edgedp.words.mechanism", "edgedp.evaluation.keep_rate"),
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
    assert "edgedp.words.pack" in graph["edgedp.registry"]  # TYPE_CHECKING and a string
    assert "edgedp.adept.pack" in graph["edgedp"]  # a string in a lazy table
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
    assert top == [
        "__init__",
        "__main__",
        "console",
        "dask",
        "errors",
        "progress",
        "registry",
        "spark",
    ]


# -- private names stay in their module --------------------------------------------------------------

#: The trees whose modules must not import each other's private names; the code that ships or
#: measures (runtime, exporter, benchmarks) must not read them as attributes either. Tests may reach
#: into a module's private state to set it up (``monkeypatch``), never import it.
CODE_TREES = ("edgedp", "export/edgedp_export", "bench")
TEST_TREES = ("tests",)
#: Top-level names of this repository's own modules (the helpers beside the tests among them).
OWN_MODULES = frozenset(
    {"edgedp", "edgedp_export", "bench"}
    | {path.stem for path in (REPO_ROOT / "tests").glob("*.py")}
)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _own(module: str) -> bool:
    return module.split(".")[0] in OWN_MODULES


def private_uses(source: str, *, attributes: bool) -> list[str]:
    """The private names ``source`` takes from another module of this repository: ``from m import
    _x``, ``import m._x``, and (with ``attributes``) ``name._x`` where ``name`` was imported from one
    of them (a module or a class, e.g. ``RandomSource._derived``)."""
    tree = ast.parse(source)
    found: list[str] = []
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or _own(node.module or "")):
            where = "." * node.level + (node.module or "")
            if any(_private(part) for part in (node.module or "").split(".")):
                found.append(f"line {node.lineno}: from {where} import ...")
            for alias in node.names:
                imported.add(alias.asname or alias.name)
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {where} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if not _own(alias.name):
                    continue
                imported.add(alias.asname or alias.name.split(".")[0])
                if any(_private(part) for part in alias.name.split(".")):
                    found.append(f"line {node.lineno}: import {alias.name}")
    if attributes:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                base = node.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in imported:
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return sorted(found, key=lambda use: int(use.split()[1].rstrip(":")))


def _sources(trees: tuple[str, ...]) -> list[Path]:
    return sorted(path for tree in trees for path in (REPO_ROOT / tree).rglob("*.py"))


TEST_SOURCES = frozenset(_sources(TEST_TREES))


@pytest.mark.parametrize(
    "path",
    _sources(CODE_TREES + TEST_TREES),
    ids=lambda path: str(path.relative_to(REPO_ROOT)),
)
def test_no_private_name_is_taken_from_another_module(path):
    uses = private_uses(path.read_text(encoding="utf-8"), attributes=path not in TEST_SOURCES)
    assert uses == [], f"{path.relative_to(REPO_ROOT)} takes private names: {uses}"


def test_a_private_name_taken_from_another_module_is_found():
    """The check fails on what issue 36 removed (shown failing once on the tree before it)."""
    before = (
        "from edgedp.evaluation.keep_rate import _KEEP_CACHE as _KEEP_CACHE\n"
        "from edgedp.privacy.randomness import RandomSource\n"
        "from edgedp.packs import native\n"
        "rng = RandomSource._derived(seed)\n"
        "native._threads = None\n"
    )
    assert private_uses(before, attributes=True) == [
        "line 1: from edgedp.evaluation.keep_rate import _KEEP_CACHE",
        "line 4: RandomSource._derived",
        "line 5: native._threads",
    ]
    assert private_uses(before, attributes=False) == [
        "line 1: from edgedp.evaluation.keep_rate import _KEEP_CACHE"
    ]
    assert private_uses("from .sibling import _helper\nimport edgedp._x\n", attributes=True) == [
        "line 1: from .sibling import _helper",
        "line 2: import edgedp._x",
    ]
    # Third-party and standard-library names are theirs to manage, and a module's own are fine.
    assert (
        private_uses("import numpy as np\nnp._core\nclass A:\n    _x = 1\nA._x\n", attributes=True)
        == []
    )
