"""Where scenario kinds live (docs/architecture.md): each kind is the module
``gridsim/experiments/<kind>.py``, registered in ``KINDS``, and the domain packages (models and
algorithms) never import the experiment layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gridsim.experiments.kinds import KINDS

PACKAGE = Path(__file__).resolve().parents[1] / "gridsim"
#: Modules and packages that hold models and algorithms only.
DOMAIN = ["model.py", "profile.py", "cloud", "faults", "scheduling", "selection", "sim",
          "workloads"]  # fmt: skip


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_is_the_module_of_its_name_under_experiments(kind):
    entry = KINDS[kind]
    assert entry.module == f"gridsim.experiments.{kind}"
    module = entry.load()
    assert getattr(module, entry.scenario_class).model_fields["kind"].annotation.__args__ == (kind,)
    assert callable(module.run_replication)
    assert callable(module.summarise)


def test_no_other_module_under_experiments_defines_a_scenario_kind():
    experiments = PACKAGE / "experiments"
    defining = {
        path.stem
        for path in experiments.glob("*.py")
        if any(
            isinstance(node, ast.FunctionDef) and node.name == "run_replication"
            for node in ast.parse(path.read_text()).body
        )
    }
    assert defining == set(KINDS)


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def _domain_files() -> list[Path]:
    files = []
    for name in DOMAIN:
        path = PACKAGE / name
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


@pytest.mark.parametrize("path", _domain_files(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_domain_modules_do_not_import_the_experiment_layer(path):
    layer = sorted(
        name for name in _imports(path) if name.split(".")[:2] == ["gridsim", "experiments"]
    )
    assert layer == []
