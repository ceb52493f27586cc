"""Experiment runner: reproducible replications and a results folder that describes itself."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

import gridsim
from gridsim.analysis.results import load_table
from gridsim.experiments import jobflow as jobflow_kind
from gridsim.experiments import runner, window_search
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
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "metadata.json", "paired.parquet", "runs", "summary.csv",
    ]  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["point=0"]
    pdt.assert_frame_equal(load_table(tmp_path, "runs"), result.tables["runs"])
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
    assert metadata["store_format"] == 1 and len(metadata["scenario_hash"]) == 64
    assert metadata["done"] == {"0": [[0, 2]]}
    [entry] = metadata["history"]
    assert entry["command"] == "gridsim run tiny.yaml" and entry["status"] == "complete"
    assert entry["cells_run"] == 3 and entry["cells_skipped"] == 0


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
    runs = load_table(tmp_path, "runs")
    assert sorted(runs["replication"].unique()) == [0, 1]
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert metadata["status"] == "failed"
    assert "node exploded" in metadata["error"]
    assert metadata["replications_completed"] == 2
    assert (tmp_path / "summary.csv").exists()


# The store: with a folder, every table is written chunk by chunk and read back in order.

ROOT = Path(__file__).resolve().parents[1]


def in_memory_as_written(table: pd.DataFrame, tmp_path: Path) -> pd.DataFrame:
    """What the in-memory path writes, read back."""
    table.to_parquet(tmp_path / "in_memory.parquet", index=False)
    return pd.read_parquet(tmp_path / "in_memory.parquet")


@pytest.fixture(scope="module")
def jobflow():
    model, text = load_scenario(ROOT / "scenarios/coordinated-placement-static.yaml")
    return model.model_copy(update={"queue_sizes": [8, 16], "replications": 5}), text


def test_stored_tables_equal_the_in_memory_ones(jobflow, tmp_path):
    model, text = jobflow
    memory = run_experiment(model, text, jobs=1, progress=False)
    stored = run_experiment(model, text, jobs=1, out_dir=tmp_path / "out", progress=False)
    files = list((tmp_path / "out/tasks").glob("point=*/rep-*.parquet"))
    assert len(files) > 2  # several chunks per table
    assert sorted(stored.tables) == sorted(memory.tables) == stored.metadata["tables"]
    loaded = gridsim.load_results(tmp_path / "out")
    for name in ("runs", "jobs", "tasks"):
        expected = in_memory_as_written(memory.tables[name], tmp_path).drop(
            columns="sim_time_s", errors="ignore"
        )
        pdt.assert_frame_equal(loaded.table(name).drop(columns="sim_time_s", errors="ignore"),
                               expected)  # fmt: skip
        assert stored.tables[name].equals(loaded.table(name))
    pdt.assert_frame_equal(stored.summary.filter(regex="^(?!sim_time)"),
                           memory.summary.filter(regex="^(?!sim_time)"))  # fmt: skip


def with_extra_table(monkeypatch, extra_of_replication) -> None:
    """window_search replications that also return an ``extra`` table (one chunk each)."""
    real = window_search.run_replication

    def run_replication(model, replication, seed):
        return {**real(model, replication, seed), "extra": extra_of_replication(replication)}

    monkeypatch.setattr(window_search, "run_replication", run_replication)
    monkeypatch.setattr(runner, "MAX_CHUNK", 1)


EMPTY = pd.Series([], dtype=object)
DRIFTING = [
    pd.DataFrame({"label": EMPTY, "count": EMPTY}),  # no rows: nothing to fix the file's types
    pd.DataFrame({"label": ["a", "b"], "count": [1, 2], "value": [0.5, 1.5], "note": ["x", "y"]}),
    pd.DataFrame({"label": ["", ""], "count": [3.0, np.nan], "value": [2, 3], "note": [None] * 2}),
    pd.DataFrame({"label": EMPTY, "count": EMPTY}),
    pd.DataFrame({"count": [4], "value": [np.nan]}),
]


def test_columns_that_drift_between_replications_read_back_as_concatenated(
    scenario, tmp_path, monkeypatch
):
    model, text = scenario
    with_extra_table(monkeypatch, lambda r: DRIFTING[r])
    memory = run_experiment(model, text, replications=5, jobs=1, progress=False)
    result = run_experiment(model, text, replications=5, jobs=1, out_dir=tmp_path / "out",
                            progress=False)  # fmt: skip
    assert result.status == "complete", result.error
    assert len(list((tmp_path / "out/extra").glob("point=0/rep-*.parquet"))) == 5
    expected = in_memory_as_written(memory.tables["extra"], tmp_path)
    pdt.assert_frame_equal(load_table(tmp_path / "out", "extra"), expected)
    assert expected["count"].tolist()[:3] == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    "later",
    [
        pd.DataFrame({"count": ["three"]}),  # text in a numeric column
        pd.DataFrame({"count": [2.5]}),  # a fraction in an integer column
        pd.DataFrame({"count": [3], "new": [1]}),  # a column the file does not have
    ],
)
def test_a_table_that_cannot_be_stored_fails_the_run_and_keeps_the_finished_chunks(
    scenario, tmp_path, monkeypatch, later
):
    model, text = scenario
    with_extra_table(monkeypatch, lambda r: pd.DataFrame({"count": [1, 2]}) if r == 0 else later)
    result = run_experiment(model, text, jobs=1, out_dir=tmp_path, progress=False)
    assert result.status == "failed"
    assert result.error.startswith("SchemaDriftError: extra: point 0 replications 1-1")
    assert load_table(tmp_path, "extra")["count"].tolist() == [1, 2]
    assert load_table(tmp_path, "runs")["replication"].unique().tolist() == [0]
    assert json.loads((tmp_path / "metadata.json").read_text())["replications_completed"] == 1


@pytest.mark.parametrize("error", [RuntimeError("node exploded"), KeyboardInterrupt()])
def test_finished_chunks_are_kept_after_a_failing_or_interrupted_replication(
    jobflow, tmp_path, monkeypatch, error
):
    real = jobflow_kind.run_replication

    def stops_at_replication_three(model, replication, seed):
        if replication == 3:
            raise error
        return real(model, replication, seed)

    monkeypatch.setattr(jobflow_kind, "run_replication", stops_at_replication_three)
    monkeypatch.setattr(runner, "MAX_CHUNK", 1)
    model, text = jobflow
    result = run_experiment(model, text, jobs=1, out_dir=tmp_path, progress=False)
    assert result.status == ("failed" if isinstance(error, RuntimeError) else "interrupted")
    for name in ("runs", "jobs", "tasks"):
        table = load_table(tmp_path, name)
        assert sorted(set(table["replication"])) == [0, 1, 2]
        assert set(table["queue_size"]) == {8}  # the first point stopped the run
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert metadata["done"] == {"0": [[0, 2]]}
    assert metadata["replications_completed"] == 0  # at every point
