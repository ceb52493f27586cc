"""Job-flow schedulers from outside gridsim: the engine's Scheduler protocol on top of
``ReservationPlanner``, named in ``scheduler:`` by ``module:Class`` or by entry point, checked
when the scenario loads, and every window they announce checked while they run."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from temporary_dist import install_entry_points

from gridsim.cli import main
from gridsim.config import ScenarioError
from gridsim.experiments.jobflow import generate_instance
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment
from gridsim.plugins import PluginError
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import simulate

FLOW = {
    "name": "plugin-scheduler",
    "kind": "jobflow",
    "seed": 11,
    "replications": 3,
    "queue_sizes": [30],
    "jobs": {"runtime_factor": {"low": 0.5, "high": 1.3}},  # early finishes and overruns
    "policies": ["BFfinish", "CoP"],
}


def flow(**changes) -> str:
    return yaml.safe_dump({**FLOW, **changes})


def run(text: str, jobs: int = 2):
    scenario, _ = load_scenario(text)
    result = run_experiment(scenario, text, jobs=jobs, progress=False)
    assert result.status == "complete", result.error
    return result.tables


def without_wall_clock(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=["sim_time_s"], errors="ignore")


def test_a_plugin_scheduler_re_implementing_conservative_gives_its_tables_to_the_bit():
    built_in = run(flow())
    plugin = run(flow(scheduler="plugin_samples:Conservative"))
    for name in ("runs", "jobs", "tasks"):
        pd.testing.assert_frame_equal(
            without_wall_clock(plugin[name]), without_wall_clock(built_in[name]), check_exact=True
        )


def test_a_plugin_scheduler_takes_its_parameters_from_the_scenario():
    from gridsim.scheduling.queue_policies import build_planner

    spec = {"name": "plugin_samples:AreaFirst", "largest_first": True}
    scenario, _ = load_scenario(flow(scheduler=spec))
    instance = static_instance()
    guarded = build_planner(scenario.scheduler, instance.nodes, instance.busy, None)
    areas = [job.n * job.volume for job in sorted(instance.jobs, key=guarded.planner.key)]
    assert areas == sorted(areas, reverse=True)
    largest, smallest = run(flow(scheduler=spec))["runs"], run(flow())["runs"]
    assert not np.allclose(largest.mean_finish, smallest.mean_finish)


LOAD_ERRORS = {
    "wrong base": (
        "plugin_samples:NotAPlanner",
        r"plugin_samples:NotAPlanner is not a scheduler: expected a subclass of "
        r"gridsim\.scheduling\.backfilling\.ReservationPlanner$",
    ),
    "missing method": (
        "plugin_samples:NoOverrun",
        r"plugin_samples:NoOverrun does not define overrun\(job_id, now, end\)$",
    ),
    "wrong signature": (
        "plugin_samples:SubmitWithoutTime",
        r"plugin_samples:SubmitWithoutTime\.submit must accept \(jobs, now\), it takes "
        r"\(self, jobs\)$",
    ),
    "unknown parameter": (
        {"name": "plugin_samples:AreaFirst", "smallest": True},
        r"scheduler plugin_samples:AreaFirst takes no parameter 'smallest'; its constructor is "
        r"AreaFirst\(nodes, busy, criterion, priority='fcfs', largest_first: 'bool' = False\)$",
    ),
    "no such module": ("no_such_package:Planner", r"no_such_package:Planner: no module named"),
    "unknown name": (
        "consrvative",
        r"unknown scheduler 'consrvative'; did you mean 'conservative'\?: expected one of fcfs, "
        r"easy, conservative, a 'package\.module:Class' or an installed gridsim\.schedulers "
        r"entry point$",
    ),
    "built-in with parameters": (
        {"name": "easy", "depth": 2},
        r"scheduler easy takes no parameters, got \['depth'\]$",
    ),
}


@pytest.mark.parametrize("case", LOAD_ERRORS)
def test_a_scheduler_plugin_that_breaks_its_contract_is_refused_when_the_scenario_loads(case):
    spec, message = LOAD_ERRORS[case]
    with pytest.raises(ScenarioError, match=r"^scheduler: " + message):
        load_scenario(flow(scheduler=spec))


def test_a_scheduler_from_an_entry_point_is_named_like_a_built_in(tmp_path, monkeypatch):
    install_entry_points(
        tmp_path, "plugin_test_schedulers",
        {"gridsim.schedulers": {"conservative-again": "plugin_samples:Conservative"}},
        monkeypatch,
    )  # fmt: skip
    pd.testing.assert_frame_equal(
        without_wall_clock(run(flow(scheduler="conservative-again"))["jobs"]),
        without_wall_clock(run(flow())["jobs"]),
        check_exact=True,
    )


def static_instance():
    scenario, _ = load_scenario(flow())
    instance, _ = generate_instance(scenario, 30, np.random.default_rng(5))
    return instance


#: A deliberately wrong scheduler each, and the line that stops it.
BROKEN = {
    "StackedOnFirstNodes": r"gave job \d+ an infeasible window: node 0 is not free over "
    r"\[0, [\d.]+\) at time 0 \(30 jobs submitted together\)$",
    "Procrastinating": r"moved job \d+ to start at [\d.]+, later than the window it held "
    r"\(from [\d.]+\) at time [\d.]+ \(job \d+ finished\)$",
    "LosesTrack": r"raised KeyError: 'lost track of job (\d+)' at time [\d.]+ "
    r"\(job \1 finished\)$",
}


@pytest.mark.parametrize("plugin", BROKEN)
def test_a_scheduler_that_breaks_an_invariant_is_stopped_naming_it_the_job_and_the_time(plugin):
    with pytest.raises(PluginError) as raised:
        simulate(static_instance(), build_criterion("BFfinish"), "fcfs", f"plugin_samples:{plugin}")
    assert re.match(rf"^scheduler plugin_samples:{plugin} {BROKEN[plugin]}", str(raised.value)), (
        str(raised.value)
    )


def test_built_in_schedulers_pass_the_guard_under_early_finishes_and_overruns():
    """The guard accepts what the built-ins do (so it is no stricter than the engine)."""
    from gridsim.scheduling.guard import GuardedScheduler
    from gridsim.scheduling.queue_policies import build_planner
    from gridsim.sim.engine import Engine

    instance = static_instance()
    for name in ("fcfs", "easy", "conservative"):
        criterion = build_criterion("CoP")
        plain = Engine(instance, build_planner(name, instance.nodes, instance.busy, criterion))
        planner = build_planner(name, instance.nodes, instance.busy, criterion)
        guarded = Engine(instance, GuardedScheduler(planner, name))
        assert guarded.run().job_records() == plain.run().job_records()


def test_a_run_stopped_by_a_scheduler_plugin_is_one_line_and_exit_code_two(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(flow(scheduler="plugin_samples:StackedOnFirstNodes"))
    result = CliRunner().invoke(main, ["run", str(path), "-q", "-j", "2", "-o", tmp_path / "o"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(
        "gridsim: error: scheduler plugin_samples:StackedOnFirstNodes gave job"
    )


def test_debug_prints_the_plugin_traceback_from_the_worker(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(flow(scheduler="plugin_samples:LosesTrack"))
    quiet = CliRunner().invoke(main, ["run", str(path), "-q", "-j", "2", "-o", tmp_path / "a"])
    debug = CliRunner().invoke(
        main, ["run", str(path), "-q", "-j", "2", "-o", tmp_path / "b", "--debug"]
    )
    assert quiet.exit_code == debug.exit_code == 2
    assert "Traceback" not in quiet.stderr
    assert "Traceback" in debug.stderr
    assert 'in finish\n    raise KeyError(f"lost track of job {job_id}")' in debug.stderr
    # Which replication fails first differs between runs on two workers: compare the form.
    for stderr in (quiet.stderr, debug.stderr.strip().splitlines()[-1]):
        assert stderr.startswith("gridsim: error: ") and "lost track of job" in stderr
    assert len(quiet.stderr.strip().splitlines()) == 1


def test_validate_names_the_plugin_scheduler(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(flow(scheduler={"name": "plugin_samples:AreaFirst", "largest_first": True}))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "2 policies under scheduler plugin_samples:AreaFirst" in result.stdout


def test_installed_schedulers_are_described_and_one_named_like_a_built_in_is_hidden(
    tmp_path, monkeypatch
):
    from gridsim.scheduling.queue_policies import describe_plugin_schedulers

    install_entry_points(
        tmp_path, "plugin_test_described",
        {"gridsim.schedulers": {"easy": "plugin_samples:Conservative",
                                "area": "plugin_samples:AreaFirst",
                                "broken": "plugin_samples:NotAPlanner"}},
        monkeypatch,
    )  # fmt: skip
    rows = dict(describe_plugin_schedulers())
    assert rows["easy"] == "hidden by the built-in easy; name it as plugin_samples:Conservative"
    assert rows["area"].endswith(" [plugin_samples:AreaFirst]")
    assert rows["broken"].startswith("unusable: ")


def test_a_scheduler_spec_needs_a_name_and_leaves_the_priority_to_the_scenario():
    from gridsim.plugins import PluginLoadError
    from gridsim.scheduling.queue_policies import scheduler_class

    with pytest.raises(PluginLoadError, match=r"^unknown scheduler None: expected one of"):
        scheduler_class({"largest_first": True})
    with pytest.raises(PluginLoadError, match=r"takes no parameter 'priority'"):
        scheduler_class({"name": "plugin_samples:AreaFirst", "priority": "sjf"})


def test_a_built_in_planner_driving_a_plugin_criterion_comes_back_guarded_unchecked():
    from gridsim.scheduling.guard import GuardedScheduler
    from gridsim.scheduling.queue_policies import FcfsReservations, build_planner

    instance = static_instance()
    criterion = build_criterion("plugin_samples:EarliestFinish")
    planner = build_planner("fcfs", instance.nodes, instance.busy, criterion)
    assert isinstance(planner, GuardedScheduler) and not planner.checked
    assert isinstance(planner.planner, FcfsReservations)
    assert planner.origin == "plugin_samples:EarliestFinish"
