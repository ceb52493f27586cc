"""Imports inside a package run one way: no module imports one that imports it back.

Read from the sources (``ast``), so imports under ``TYPE_CHECKING`` and inside functions count
too: a cycle hidden there is still a cycle for the reader.
"""

import ast
from pathlib import Path

import pytest

import gridsim

ROOT = Path(gridsim.__file__).parent


def imports_within(package: str) -> dict[str, set[str]]:
    """Module name -> the modules of ``package`` it imports (``gridsim.selection.x`` -> ``x``)."""
    prefix = f"gridsim.{package}."
    graph = {}
    for path in sorted((ROOT / package).glob("*.py")):
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith(prefix):
                    targets.add(node.module.removeprefix(prefix))
                elif node.module == f"gridsim.{package}":
                    targets.update(alias.name for alias in node.names)
        graph[path.stem] = targets - {path.stem}
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module], _ = "open", path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        state[module], _ = "done", path.pop()
        return None

    for module in graph:
        if module not in state and (found := visit(module)):
            return found
    return None


@pytest.mark.parametrize("package", ["selection", "scheduling"])
def test_a_package_has_no_import_cycle(package):
    found = cycle(imports_within(package))
    assert found is None, " -> ".join(found)


def test_the_registry_sits_above_the_searches():
    graph = imports_within("selection")
    importers = {module for module, targets in graph.items() if "registry" in targets}
    assert importers == set()
    assert {"criteria", "placement"} <= graph["registry"]


def test_a_planted_cycle_is_found():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None
