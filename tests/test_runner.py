"""Experiment runner: reproducible replications and a results folder that describes itself."""

from __future__ import annotations

import json

import pandas as pd
import pandas.testing as pdt
import pytest

import gridsim
from gridsim.experiments import window_search
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment

SCENARIO = """\
name: tiny
kind: window_search
seed: 11
replications: 3
environment:
  nodes: 12
  horizon: 400
  local_load: {max_utilisation: 0.4, tasks_per_node: [1, 4]}
request: {n: 3, volume: 300, budget: 200}
policies: [FirstFit, MinCost, MaxQ, DEPLite, {name: MultipleBest, target: MinCost}]
"""


@pytest.fixture(scope="module")
def scenario():
    model, text = load_scenario(SCENARIO)
    return model, text


def runs_of(scenario, **options):
    model, text = scenario
    options.setdefault("jobs", 1)
    result = run_experiment(model, text, progress=False, **options)
    assert result.status == "complete", result.error
    return result.tables["runs"]


def without_wall_clock(runs: pd.DataFrame) -> pd.DataFrame:
    return runs.drop(columns=["search_time_s"]).reset_index(drop=True)


def test_the_runs_table_has_one_row_per_policy_and_replication(scenario):
    runs = runs_of(scenario)
    assert len(runs) == 3 * 5
    assert runs["replication"].tolist() == [r for r in range(3) for _ in range(5)]
    assert runs["policy"].tolist()[:5] == [
        "FirstFit", "MinCost", "MaxQ", "DEPLite", "MultipleBest(target=MinCost)",
    ]  # fmt: skip
    assert runs["found"].any()


def test_the_same_scenario_and_seed_give_identical_runs(scenario):
    first, second = runs_of(scenario), runs_of(scenario)
    pdt.assert_frame_equal(without_wall_clock(first), without_wall_clock(second))


def test_another_seed_gives_other_runs(scenario):
    first, other = runs_of(scenario), runs_of(scenario, seed=12)
    assert not without_wall_clock(first).equals(without_wall_clock(other))


def test_each_replication_draws_its_own_environment(scenario):
    runs = without_wall_clock(runs_of(scenario))
    replications = [
        part.drop(columns=["replication"]).reset_index(drop=True)
        for _, part in runs.groupby("replication")
    ]
    assert not replications[0].equals(replications[1])
    assert not replications[1].equals(replications[2])


def test_two_worker_processes_give_the_same_runs_as_one(scenario):
    serial, parallel = runs_of(scenario, jobs=1), runs_of(scenario, jobs=2)
    pdt.assert_frame_equal(without_wall_clock(serial), without_wall_clock(parallel))


def test_a_replication_does_not_depend_on_how_many_replications_run(scenario):
    two, four = runs_of(scenario, replications=2), runs_of(scenario, replications=4)
    assert sorted(four["replication"].unique()) == [0, 1, 2, 3]
    first_two = four[four["replication"] < 2]
    pdt.assert_frame_equal(without_wall_clock(two), without_wall_clock(first_two))


def test_the_results_folder_holds_the_tables_the_summary_and_the_metadata(scenario, tmp_path):
    model, text = scenario
    result = run_experiment(
        model, text, jobs=1, out_dir=tmp_path, command="gridsim run tiny.yaml", progress=False
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "metadata.json", "runs.parquet", "summary.csv",
    ]  # fmt: skip
    pdt.assert_frame_equal(pd.read_parquet(tmp_path / "runs.parquet"), result.tables["runs"])
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert summary["policy"].tolist() == result.summary["policy"].tolist()
    assert summary["runs"].tolist() == [3] * 5
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert metadata["scenario_text"] == SCENARIO
    assert metadata["seed"] == 11
    assert metadata["gridsim_version"] == gridsim.__version__
    assert metadata["command"] == "gridsim run tiny.yaml"
    assert metadata["status"] == "complete"
    assert metadata["replications_requested"] == metadata["replications_completed"] == 3
    assert metadata["scenario_resolved"]["request"]["n"] == 3


def test_a_failing_replication_keeps_the_finished_ones_and_records_the_failure(
    scenario, tmp_path, monkeypatch
):
    real = window_search.run_replication

    def fails_on_replication_two(model, replication, seed):
        if replication == 2:
            raise RuntimeError("node exploded")
        return real(model, replication, seed)

    monkeypatch.setattr(window_search, "run_replication", fails_on_replication_two)
    model, text = scenario
    result = run_experiment(model, text, jobs=1, out_dir=tmp_path, progress=False)
    assert result.status == "failed"
    assert result.error == "RuntimeError: node exploded"
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    assert sorted(runs["replication"].unique()) == [0, 1]
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert metadata["status"] == "failed"
    assert "node exploded" in metadata["error"]
    assert metadata["replications_completed"] == 2
    assert (tmp_path / "summary.csv").exists()
