"""Parameter grids: sweep: and zip: expand into validated points whose values are columns;
--set PATH=VALUE changes one field on the same paths, with the same errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from gridsim.cli import main
from gridsim.config import ScenarioError
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.overrides import overrides_of, parse_override
from gridsim.experiments.runner import run_experiment

ROOT = Path(__file__).resolve().parents[1]

BASE = """\
name: grid
kind: window_search
seed: 3
replications: 2
environment:
  nodes: 10
  horizon: 300
  local_load: {max_utilisation: 0.2, tasks_per_node: [1, 3]}
request: {n: 3, volume: 200, budget: 300}
policies: [FirstFit, MinCost]
"""


JOBFLOW = """\
name: flow
kind: jobflow
seed: 5
replications: 2
environment: {nodes: 6}
jobs: {n: [1, 3], volume: {low: 20, high: 60}}
queue_sizes: [4]
policies: [BFstart, BFfinish]
"""


#: A job flow that leaves out its environment: the kind's default one is not a bare section.
FLOW = "name: flow\nkind: jobflow\nqueue_sizes: [3]\npolicies: [BFstart, BFfinish]\n"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def experiment(grid: str):
    return load_experiment(BASE + grid)


def test_a_sweep_is_the_cartesian_product_first_axis_slowest():
    grid = experiment("sweep:\n  request.n: [2, 3]\n  environment.nodes: [8, 10, 12]\n")
    assert grid.axes == ("request.n", "environment.nodes")
    assert [p.values for p in grid.points] == [
        {"request.n": n, "environment.nodes": m} for n in (2, 3) for m in (8, 10, 12)
    ]
    assert [p.scenario.request.n for p in grid.points] == [2, 2, 2, 3, 3, 3]
    assert [p.scenario.environment.nodes for p in grid.points][:3] == [8, 10, 12]
    # the other fields of a section set by a path keep the file's values
    assert {p.scenario.environment.horizon for p in grid.points} == {300}


def test_zip_lists_vary_together_and_repeated_nulls_are_accepted():
    grid = load_experiment(
        JOBFLOW + "sweep:\n  jobs.n: [[1, 2], [1, 3]]\n"
        "zip:\n  arrivals.model: [static, uniform, static]\n  arrivals.span: [null, 90, null]\n"
        "  jobs.budget: [1000, 1000, 2000]\n"
    )
    assert len(grid.points) == 6
    assert grid.points[1].values == {"jobs.n": [1, 2], "arrivals.model": "uniform",
                                     "arrivals.span": 90, "jobs.budget": 1000}  # fmt: skip
    assert grid.points[2].scenario.jobs.budget == 2000
    assert grid.points[3].scenario.jobs.n == (1, 3)
    assert grid.points[0].scenario.arrivals.span is None


def test_zip_lists_of_different_lengths_are_refused():
    with pytest.raises(ScenarioError, match=r"zip: lists must have equal lengths \(request.n "
                                            r"has 2, request.volume has 3\)"):  # fmt: skip
        experiment("zip:\n  request.n: [2, 3]\n  request.volume: [1, 2, 3]\n")


def test_a_bad_point_is_named_by_its_path_and_value_before_anything_runs():
    with pytest.raises(ScenarioError, match=r"^sweep point request.n=-1: request.n: "):
        experiment("sweep:\n  request.n: [2, -1]\n")


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ("sweep:\n  seed: [1, 2]\n", "seed cannot be swept"),
        ("sweep:\n  request.n: 3\n", "expected a non-empty list"),
        ("sweep:\n  request.n: [2, 2]\n", "are the same scenario"),
        ("sweep:\n  request.nn: [2, 3]\n", r"request.nn: unknown field"),
        ("sweep: [1, 2]\n", "sweep: expected a mapping"),
        ("sweep:\n  request.n: [2]\nzip:\n  request.n: [3]\n", "request.n is swept twice"),
    ],
)
def test_grid_mistakes_are_one_line_naming_the_path(grid, message):
    with pytest.raises(ScenarioError, match=message):
        experiment(grid)


def test_queue_sizes_are_a_grid_axis_like_sweep_queue_size():
    static = (ROOT / "scenarios/coordinated-placement-static.yaml").read_text()
    listed = load_experiment(static)
    swept = load_experiment(
        static.replace(
            "queue_sizes: [50, 100, 150, 200]", "sweep:\n  queue_size: [50, 100, 150, 200]"
        )
    )
    assert listed.axes == swept.axes == ("queue_size",)
    assert [p.scenario.queue_sizes for p in listed.points] == [[50], [100], [150], [200]]
    assert listed.scenario_hash() == swept.scenario_hash()


def test_a_plain_scenario_is_one_point_and_load_scenario_refuses_grids():
    single = experiment("")
    assert single.axes == () and len(single.points) == 1
    with pytest.raises(ScenarioError, match="is a grid"):
        load_scenario(BASE + "sweep:\n  request.n: [2, 3]\n")


def test_point_values_are_columns_of_every_table_with_one_type_per_axis(tmp_path):
    grid = load_experiment(
        JOBFLOW + "zip:\n  arrivals.model: [static, uniform, uniform]\n"
        "  arrivals.span: [null, 50, 80.5]\nsweep:\n  jobs.n: [[1, 2], [2, 3]]\n"
    )
    result = run_experiment(grid, jobs=1, progress=False, out_dir=tmp_path)
    for name in ("runs", "jobs", "tasks"):
        columns = list(result.tables[name].columns)
        after = columns.index("scenario") + 1
        assert columns[after : after + 3] == ["jobs.n", "arrivals.model", "arrivals.span"], name
    runs = result.tables["runs"]
    assert runs["arrivals.span"].dtype == "float64"
    assert runs["arrivals.span"].isna().sum() == 2 * 2 * 2  # points x replications x policies
    assert set(runs["jobs.n"]) == {"[1,2]", "[2,3]"}  # lists as compact JSON text
    assert runs.groupby(["jobs.n", "arrivals.span"], dropna=False).ngroups == 6
    summary = result.summary
    assert list(summary.columns[:5]) == ["jobs.n", "arrivals.model", "arrivals.span",
                                         "queue_size", "policy"]  # fmt: skip
    assert len(summary) == 6 * 2


def test_points_share_replication_seeds():
    grid = experiment("sweep:\n  request.n: [2, 3]\n")
    runs = run_experiment(grid, jobs=1, progress=False).tables["runs"]
    # the same environment at both points: a start time found for n=2 and n=3 from one profile
    assert isinstance(runs, pd.DataFrame) and set(runs["request.n"]) == {2, 3}
    single = load_experiment(BASE.replace("n: 3,", "n: 2,"))
    alone = run_experiment(single, jobs=1, progress=False).tables["runs"]
    at_two = runs[runs["request.n"] == 2].drop(columns=["request.n", "search_time_s"])
    pd.testing.assert_frame_equal(at_two.reset_index(drop=True),
                                  alone.drop(columns="search_time_s"))  # fmt: skip


def test_validate_prints_the_points_and_the_runs(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(BASE + "sweep:\n  request.n: [2, 3]\n  environment.nodes: [8, 10, 12]\n")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "6 points x 2 replications = 12 runs" in result.output
    assert "point 5: request.n=3, environment.nodes=12" in result.output


def test_validate_counts_one_of_each_in_the_singular(tmp_path):
    path = tmp_path / "single.yaml"
    single = BASE.replace("replications: 2", "replications: 1")
    assert single != BASE
    path.write_text(single)
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 replication, " in result.output
    assert "1 point x 1 replication = 1 run\n" in result.output


def test_run_refuses_a_bad_point_with_one_line_and_exit_two(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(BASE + "sweep:\n  environment.nodes: [8, 0]\n")
    result = CliRunner().invoke(main, ["run", str(path), "-q", "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "sweep point environment.nodes=0: environment.nodes:" in result.stderr
    assert not (tmp_path / "out").exists()


# ---- --set PATH=VALUE ------------------------------------------------------------------------


def with_set(text: str, *items: str):
    return load_experiment(text, overrides_of(items))


def test_values_are_read_as_yaml():
    assert [parse_override(item).value for item in (
        "seed=3", "environment.q.high=2.5", "arrivals.span=null", "policies=[MaxQ, MinCost]",
        "name='3'", "description=two words", "jobs.n={low: 1, high: 4}",
    )] == [3, 2.5, None, ["MaxQ", "MinCost"], "3", "two words", {"low": 1, "high": 4}]  # fmt: skip
    assert parse_override("environment.nodes = 20").path == "environment.nodes"


def test_a_set_field_is_the_file_edited_and_seed_and_replications_may_be_set():
    edited = load_experiment(BASE.replace("n: 3,", "n: 5,").replace("seed: 3", "seed: 8"))
    changed = with_set(BASE, "request.n=5", "seed=8", "replications=4")
    assert changed.scenario_hash() == edited.scenario_hash()
    assert (changed.seed, changed.replications) == (8, 4)
    assert changed.overrides == ("request.n=5", "seed=8", "replications=4")


def test_a_path_into_a_section_the_file_leaves_out_keeps_the_kind_s_defaults_as_a_sweep_does():
    changed = with_set(FLOW, "environment.nodes=12").scenario
    swept = load_experiment(FLOW + "sweep:\n  environment.nodes: [12]\n").scenario
    assert changed == swept
    assert changed.environment.nodes == 12 and changed.environment.performance.high == 16


def test_set_and_sweep_give_the_same_error_for_the_same_value():
    for path, value in (("request.n", "-1"), ("request.nn", "2"), ("environment.nodes.x", "1"),
                        ("environment.horizon", "soon")):  # fmt: skip
        with pytest.raises(ScenarioError) as swept:
            load_experiment(BASE + f"sweep:\n  {path}: [{value}]\n")
        with pytest.raises(ScenarioError) as changed:
            with_set(BASE, f"{path}={value}")
        tail = str(changed.value).removeprefix(f"--set {path}={value}: ")
        assert str(swept.value).endswith(f": {tail}"), (str(swept.value), str(changed.value))


def test_a_set_path_the_scenario_sweeps_is_refused_whichever_set_names_it():
    grid = BASE + "sweep:\n  request.n: [2, 3]\n  environment: [{nodes: 8}, {nodes: 9}]\n"
    for items in (["request.n=4"], ["seed=1", "environment.nodes=12"]):
        with pytest.raises(ScenarioError, match=r"--set .* is swept by the scenario"):
            with_set(grid, *items)
    assert with_set(grid, "request.volume=150").scenario.request.volume == 150


def test_a_list_shorthand_set_becomes_the_grid_axis_it_is_in_a_file():
    static = ROOT / "scenarios" / "coordinated-placement-static.yaml"
    changed = with_set(static.read_text(), "queue_sizes=[8, 16]")
    assert changed.axes == ("queue_size",)
    assert [point.values for point in changed.points] == [{"queue_size": 8}, {"queue_size": 16}]


def test_a_path_into_list_elements_sets_one_by_index_or_all_with_a_star():
    replay = ROOT / "scenarios" / "swf-replay-heterogeneous.yaml"
    changed = with_set(replay.read_text(), "platform.node_classes.0.price=2.5").scenario
    assert [c.price for c in changed.platform.node_classes] == [2.5, 2.0]
    cloud = ROOT / "scenarios" / "cloud-federation-dytss.yaml"
    failing = with_set(cloud.read_text(), "providers.*.vm_failure_rate_per_h=0.1").scenario
    assert {p.vm_failure_rate_per_h for p in failing.providers} == {0.1}


def test_run_with_set_gives_the_numbers_of_the_edited_file_and_records_it(tmp_path):
    edited = tmp_path / "edited.yaml"
    edited.write_text(BASE.replace("n: 3,", "n: 4,"))
    original = tmp_path / "original.yaml"
    original.write_text(BASE)
    assert invoke("run", edited, "-j", 1, "-q", "-o", tmp_path / "a").exit_code == 0
    result = invoke("run", original, "-j", 1, "-q", "-o", tmp_path / "b", "--set", "request.n=4")
    assert result.exit_code == 0, result.output
    tables = [pd.read_parquet(tmp_path / name / "runs") for name in "ab"]
    pd.testing.assert_frame_equal(*(t.drop(columns="search_time_s") for t in tables))
    history = json.loads((tmp_path / "b" / "metadata.json").read_text())["history"]
    assert history[-1]["overrides"] == ["request.n=4"]
    assert history[-1]["command"].endswith("--set request.n=4")
    again = invoke("run", original, "-j", 1, "-q", "-o", tmp_path / "b")  # without the --set
    assert again.exit_code == 2 and "request.n" in again.stderr
