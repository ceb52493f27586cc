"""Criteria from outside gridsim: named by ``module:Class`` or by entry point, checked against
their contract when the scenario loads, and guarded while they run."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from temporary_dist import install_entry_points

from gridsim.analysis.results import load_results
from gridsim.cli import main
from gridsim.config import ScenarioError
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment
from gridsim.plugins import PluginError
from gridsim.selection.registry import CriterionError, build_criterion
from gridsim.sim.engine import simulate

GRIDSIM = Path(sys.executable).with_name("gridsim")

JOB_FLOW = {
    "name": "plugin-flow",
    "kind": "jobflow",
    "seed": 7,
    "replications": 3,
    "queue_sizes": [25],
    "jobs": {"runtime_factor": {"low": 0.5, "high": 1.0}},  # early finishes: compression
    "arrivals": {"model": "uniform", "span": 200},
}


def job_flow(*policies, **changes) -> str:
    return yaml.safe_dump({**JOB_FLOW, "policies": list(policies), **changes})


def tables_by_policy(table: pd.DataFrame, policy: str) -> pd.DataFrame:
    wall_clock = [c for c in table.columns if c == "sim_time_s"]
    return (
        table[table.policy == policy].drop(columns=["policy", *wall_clock]).reset_index(drop=True)
    )


@pytest.mark.parametrize(
    ("built_in", "plugin"),
    [("BFfinish", "plugin_samples:EarliestFinish"), ("CoP", "plugin_samples:PlacementRules")],
)
def test_a_plugin_re_implementing_a_built_in_gives_its_tables_to_the_bit_in_two_workers(
    built_in, plugin
):
    text = job_flow(built_in, plugin, baseline=built_in)
    scenario, _ = load_scenario(text)
    result = run_experiment(scenario, text, jobs=2, progress=False)
    assert result.status == "complete", result.error
    shown = plugin.partition(":")[2]
    for name in ("runs", "jobs", "tasks"):
        table = result.tables[name]
        pd.testing.assert_frame_equal(
            tables_by_policy(table, shown).drop(columns="finish_advantage_pct", errors="ignore"),
            tables_by_policy(table, built_in).drop(columns="finish_advantage_pct", errors="ignore"),
            check_exact=True,
        )


def test_a_lite_slot_criterion_plugin_finds_the_windows_min_cost_finds():
    text = yaml.safe_dump({
        "name": "plugin-windows", "kind": "window_search", "replications": 5,
        "environment": {"nodes": 40, "horizon": 600},
        "request": {"n": 4, "volume": 300, "budget": 400},
        "policies": ["MinCost", "plugin_samples:Cheapest"],
    })  # fmt: skip
    scenario, _ = load_scenario(text)
    runs = run_experiment(scenario, text, jobs=1, progress=False).tables["runs"]
    pd.testing.assert_frame_equal(
        tables_by_policy(runs, "Cheapest").drop(columns="search_time_s"),
        tables_by_policy(runs, "MinCost").drop(columns="search_time_s"),
        check_exact=True,
    )


def test_a_plugin_label_carries_its_non_default_parameters():
    criterion = build_criterion({"name": "plugin_samples:Cheapest", "weight": 2.0})
    assert (criterion.name, criterion.label) == ("Cheapest", "Cheapest(weight=2.0)")
    assert criterion.weight == 2.0  # parameters stay readable through the guard


LOAD_ERRORS = {
    "no such module": (
        "no_such_package.rules:Rule",
        r"no_such_package\.rules:Rule: no module named 'no_such_package' \(not installed, "
        r"and no no_such_package\.py in the working directory\)$",
    ),
    "no such class": (
        "plugin_samples:Earliestfinish",
        r"plugin_samples:Earliestfinish: plugin_samples has no 'Earliestfinish'; did you mean "
        r"'EarliestFinish'\?$",
    ),
    "not a class": (
        "plugin_samples:NOT_A_CLASS",
        r"plugin_samples:NOT_A_CLASS names a value of type int, not a class$",
    ),
    "wrong base": (
        "plugin_samples:NotACriterion",
        r"plugin_samples:NotACriterion is not a criterion: expected a subclass of "
        r"gridsim\.selection\.criteria\.WindowCriterion or .*SlotCriterion or .*Criterion$",
    ),
    "missing method": (
        "plugin_samples:NoValue",
        r"plugin_samples:NoValue does not define value\(start, runtime\)$",
    ),
    "missing bound": (
        "plugin_samples:NoBound",
        r"plugin_samples:NoBound does not define slot_value_bound\(slot_start, slot_end, q, "
        r"cost, runtime, lo, hi, performance\)$",
    ),
    "wrong signature": (
        "plugin_samples:ValueTakesOneArgument",
        r"plugin_samples:ValueTakesOneArgument\.value must accept \(start, runtime\), "
        r"it takes \(self, start\)$",
    ),
    "not a dataclass": (
        "plugin_samples:Undecorated",
        r"plugin_samples:Undecorated must be decorated with @dataclass\(frozen=True\)$",
    ),
    "unknown parameter": (
        {"name": "plugin_samples:Cheapest", "wieght": 2},
        r"criterion plugin_samples:Cheapest has no parameter 'wieght' \(allowed: \['weight'\]\)",
    ),
    "bad parameter value": (
        {"name": "plugin_samples:PlacementRules", "alpha1": -1},
        r"criterion plugin_samples:PlacementRules: alpha1 must be >= 0, got -1",
    ),
    "malformed reference": ("plugin_samples:", r"expected 'package\.module:Class'"),
}


@pytest.mark.parametrize("case", LOAD_ERRORS)
def test_a_plugin_that_breaks_its_contract_is_refused_when_the_scenario_loads(case):
    spec, message = LOAD_ERRORS[case]
    with pytest.raises(ScenarioError, match=r"^policies: policy 1: " + message):
        load_scenario(job_flow("BFfinish", spec, baseline="BFfinish"))


def test_a_plugin_load_error_is_one_line_and_exit_code_two(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(job_flow("BFfinish", "plugin_samples:NoValue", baseline="BFfinish"))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"gridsim: error: {path}: policies: policy 1: plugin_samples:NoValue does not define "
        "value(start, runtime)"
    )


def test_a_single_file_plugin_in_the_working_directory_runs_from_the_command(tmp_path):
    (tmp_path / "my_rules.py").write_text(
        textwrap.dedent("""
        from dataclasses import dataclass
        from gridsim.selection.criteria import WindowCriterion
        from gridsim.selection.placement import InSlotOrder

        @dataclass(frozen=True)
        class LatestStart(InSlotOrder, WindowCriterion):
            def value(self, start, runtime):
                return start + 0.0 * runtime
    """)
    )
    (tmp_path / "flow.yaml").write_text(
        job_flow("BFstart", "my_rules:LatestStart", baseline="BFstart")
    )
    completed = subprocess.run(
        [GRIDSIM, "run", "flow.yaml", "-r", "2", "-j", "2", "-q", "-o", "out"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    runs = load_results(tmp_path / "out").runs
    assert sorted(runs.policy.unique()) == ["BFstart", "LatestStart"]


# -- entry points ----------------------------------------------------------------------------


def test_an_installed_entry_point_is_named_like_a_built_in_and_listed(tmp_path, monkeypatch):
    install_entry_points(
        tmp_path, "plugin_test_dist",
        {"gridsim.criteria": {"Finish": "plugin_samples:EarliestFinish",
                              "Broken": "plugin_samples:NoValue"}},
        monkeypatch,
    )  # fmt: skip
    criterion = build_criterion("Finish")
    assert criterion.label == "Finish"
    scenario, text = load_scenario(job_flow("BFfinish", "Finish", baseline="BFfinish"))
    result = run_experiment(scenario, text, jobs=2, progress=False)
    jobs = result.tables["jobs"]
    pd.testing.assert_frame_equal(
        tables_by_policy(jobs, "Finish"), tables_by_policy(jobs, "BFfinish"), check_exact=True
    )
    listing = CliRunner().invoke(main, ["policies"]).stdout
    assert re.search(r"^Finish +BFfinish through the plugin contract \[plugin_samples:", listing,
                     re.MULTILINE)  # fmt: skip
    assert re.search(r"^Broken +unusable: Broken does not define value", listing, re.MULTILINE)
    with pytest.raises(CriterionError, match=r"^Broken does not define value\(start, runtime\)"):
        build_criterion("Broken")


def test_an_entry_point_whose_package_fails_to_import_is_one_line(tmp_path, monkeypatch):
    install_entry_points(
        tmp_path, "plugin_test_dist", {"gridsim.criteria": {"Gone": "vanished_package:Rule"}},
        monkeypatch,
    )  # fmt: skip
    with pytest.raises(CriterionError) as raised:
        build_criterion("Gone")
    assert str(raised.value) == (
        "entry point 'Gone' (vanished_package:Rule, group gridsim.criteria) cannot be loaded: "
        "ModuleNotFoundError: No module named 'vanished_package'"
    )


def test_a_misspelt_installed_criterion_is_suggested(tmp_path, monkeypatch):
    install_entry_points(
        tmp_path, "plugin_test_dist",
        {"gridsim.criteria": {"EarliestFinishSample": "plugin_samples:EarliestFinish"}},
        monkeypatch,
    )  # fmt: skip
    with pytest.raises(CriterionError, match=r"did you mean 'EarliestFinishSample'\?"):
        build_criterion("EarliestFinishSampel")


# -- guard rails -----------------------------------------------------------------------------


def flow_instance():
    scenario, _ = load_scenario(job_flow("BFfinish"))
    import numpy as np

    from gridsim.experiments.jobflow import generate_instance, with_arrivals

    instance, draws = generate_instance(scenario, 25, np.random.default_rng(3))
    return with_arrivals(scenario, instance, draws)


#: What each plugin's error says; the job and the time follow (one job arrives at a time).
RUN_ERRORS = {
    "AlwaysNodeZero": r"returned an infeasible window for a request of \d+ nodes from time "
    r"([\d.]+): node \d+ is not free over \[\1, [\d.]+\)",
    "TooEarly": r"returned an infeasible window for a request of \d+ nodes from time ([\d.]+): "
    r"it starts at [\d.]+, before the earliest start \1",
    "Crashing": r"raised ZeroDivisionError: no value today for a request of \d+ nodes from "
    r"time ([\d.]+)",
}


@pytest.mark.parametrize("plugin", RUN_ERRORS)
def test_a_plugin_returning_an_infeasible_window_or_raising_is_stopped_naming_it(plugin):
    context = r"; job (\d+), at time \1 \(job \2 submitted\)$"
    with pytest.raises(PluginError) as raised:
        simulate(flow_instance(), build_criterion(f"plugin_samples:{plugin}"))
    pattern = rf"^policy plugin_samples:{plugin} {RUN_ERRORS[plugin]}{context}"
    assert re.match(pattern, str(raised.value)), str(raised.value)


def test_a_run_stopped_by_a_plugin_is_one_line_and_exit_code_two(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(job_flow("BFfinish", "plugin_samples:AlwaysNodeZero", baseline="BFfinish"))
    result = CliRunner().invoke(main, ["run", str(path), "-q", "-j", "1", "-o", tmp_path / "o"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(
        "gridsim: error: policy plugin_samples:AlwaysNodeZero returned an infeasible window"
    )
    assert "the run stopped; 0 replications finished" in lines[0]
