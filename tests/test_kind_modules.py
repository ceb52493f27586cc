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


#: Modules allowed to name kinds: the registry and the kinds' own modules.
KIND_MODULES = {Path("experiments/kinds.py"), *(Path(f"experiments/{kind}.py") for kind in KINDS)}


def _kind_names_in(path: Path) -> list[str]:
    """String constants of ``path`` that are a kind's name (a table or a test keyed by kind)."""
    return [
        f"line {node.lineno}: {node.value!r}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in KINDS
    ]


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE) not in KIND_MODULES],
    ids=lambda path: str(path.relative_to(PACKAGE)),
)
def test_no_module_outside_the_kinds_names_a_kind(path):
    """What a kind offers (metrics, figures, exports, checks) is asked of its declaration,
    never looked up by its name elsewhere."""
    assert _kind_names_in(path) == []


def test_the_structure_test_finds_a_table_keyed_by_kind_name(tmp_path):
    planted = tmp_path / "report.py"
    planted.write_text('METRICS = {"jobflow": ["mean_finish"]}\nif kind == "batch":\n    pass\n')
    assert _kind_names_in(planted) == ["line 1: 'jobflow'", "line 2: 'batch'"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_declares_what_analysis_needs(kind):
    from gridsim.analysis.figures import FIGURES
    from gridsim.experiments.kinds import KindDeclaration, declaration

    found = declaration(kind)
    assert isinstance(found, KindDeclaration)
    assert set(found.figures) <= set(FIGURES)
    assert set(found.trace_commands) <= {"gantt", "export", "explore"}
    if found.trace_commands:  # the trace commands read the jobs table
        assert found.jobs_of_schema_1 is not None
    assert ("export" in found.trace_commands) == (found.swf_export is not None)
    for metric in (*found.report_metrics, *found.paired_metrics, *found.bar_metrics):
        assert metric in found.labels, metric  # every metric shown has a label with its unit
    assert callable(found.check_feasible)
