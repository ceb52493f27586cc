"""The runner's steps one at a time (gridsim.experiments.runner), on a stand-in kind whose
replications are two random numbers drawn from their seed: which cells a run runs, skips and
stores, what it records, how it stops, and how it hands chunks to an executor. Every run here
takes milliseconds, so the module's mutation run (docs/testing.md) can afford them all."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pyarrow.parquet as pq
import pytest
import tqdm
import yaml
from cloud_scenarios import small_scenario_document

from gridsim.analysis.results import load_table
from gridsim.experiments import jobflow as jobflow_kind
from gridsim.experiments import runner
from gridsim.experiments.cells import Chunk
from gridsim.experiments.executors import ExecutorError, SerialExecutor
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.rejections import Count
from gridsim.experiments.runner import run_experiment
from gridsim.experiments.store import MemoryStore, StoreError

SCENARIO = """\
name: flow
kind: jobflow
seed: 5
replications: 3
environment: {nodes: 6}
jobs: {n: [1, 3], volume: {low: 20, high: 60}}
queue_sizes: [4]
policies: [BFstart, BFfinish]
"""
#: Two points (6 and 4 nodes), three replications each: six cells; BFfinish, not the first
#: policy, is the baseline.
GRID = SCENARIO + "baseline: BFfinish\nsweep:\n  environment.nodes: [6, 4]\n"
POLICIES = ["BFstart", "BFfinish"]
UNFINISHED = Count("finished", None, "runs unfinished", "the stand-in leaves them")
TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00"


def drawn(seed: int, replication: int) -> list[float]:
    """What the stand-in draws for a replication: from the documented key ``(r,)``."""
    return (
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(replication,)))
        .random(2)
        .tolist()
    )


class StandInKind:
    """Replications of the jobflow kind replaced by two numbers drawn from the replication's
    seed (one per policy); the calls recorded as (nodes, replication, seed, spawn key)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int, tuple[int, ...]]] = []
        #: (nodes, replication) -> what that replication raises, or a runs table it returns.
        self.special: dict[tuple[int, int], BaseException | pd.DataFrame] = {}
        self.handlers_while_summarising: list = []

    def run_replication(self, scenario, replication, seed):
        nodes = scenario.environment.nodes
        self.calls.append((nodes, replication, seed.entropy, seed.spawn_key))
        special = self.special.get((nodes, replication))
        if isinstance(special, BaseException):
            raise special
        if special is not None:
            return {"runs": special}
        policies = [str(p) for p in scenario.policies]
        runs = pd.DataFrame({
            "scenario": scenario.name, "replication": replication, "policy": policies,
            "value": drawn(seed.entropy, replication)[: len(policies)],
            "finished": [True, replication != 1][: len(policies)],
        })  # fmt: skip
        return {"runs": runs}

    def summarise(self, runs: pd.DataFrame) -> pd.DataFrame:
        self.handlers_while_summarising.append(signal.getsignal(signal.SIGINT))
        per_policy = runs.groupby("policy", sort=False)
        return per_policy.agg(runs=("value", "size"), value_mean=("value", "mean")).reset_index()

    def cells(self) -> list[tuple[int, int]]:
        return [(nodes, replication) for nodes, replication, _, _ in self.calls]


@pytest.fixture(autouse=True)
def progress_lock_of_this_process(monkeypatch) -> None:
    """tqdm's bars share a lock between processes (a semaphore made by the first bar), so a
    process forked after it shares it with its parent and siblings: when a mutation run forks
    each mutant's tests from one process, a child killed while holding it would block every
    later one. Each test here gets a lock of its own process, and no monitor thread."""
    monkeypatch.setattr(tqdm.std.tqdm, "_lock", threading.RLock(), raising=False)
    monkeypatch.setattr(tqdm.std.tqdm, "monitor_interval", 0)


@pytest.fixture
def kind(monkeypatch) -> StandInKind:
    stand_in = StandInKind()
    monkeypatch.setattr(jobflow_kind, "run_replication", stand_in.run_replication)
    monkeypatch.setattr(jobflow_kind, "summarise", stand_in.summarise)
    monkeypatch.setattr(jobflow_kind, "DECLARATION",
                        replace(jobflow_kind.DECLARATION, paired_metrics=("value",)))  # fmt: skip
    monkeypatch.setattr(jobflow_kind, "REJECTIONS", (UNFINISHED,))
    return stand_in


@pytest.fixture(scope="module")
def grid():
    return load_experiment(GRID)


def run(experiment, **options):
    options.setdefault("jobs", 1)
    options.setdefault("progress", False)
    return run_experiment(experiment, **options)


def metadata(folder: Path) -> dict:
    return json.loads((folder / "metadata.json").read_text())


def stored_cells(folder: Path) -> dict[str, list[list[int]]]:
    return metadata(folder)["done"]


# ---- which cells run, from which seed ----------------------------------------------------------


def test_each_cell_runs_once_from_the_seed_of_its_replication(kind, grid):
    result = run(grid)
    assert kind.calls == [(nodes, r, 5, (r,)) for nodes in (6, 4) for r in range(3)]
    runs = result.tables["runs"]
    assert runs["value"].tolist() == [v for _ in (6, 4) for r in range(3) for v in drawn(5, r)]
    assert list(runs.columns[:3]) == ["scenario", "environment.nodes", "replication"]
    assert runs["environment.nodes"].tolist() == [6] * 6 + [4] * 6
    assert (result.status, result.error, result.exception) == ("complete", None, None)
    assert (result.cells_run, result.cells_skipped, result.out_dir) == (6, 0, None)


def test_the_seed_and_replications_asked_for_replace_the_scenario_s(kind, grid):
    result = run(grid, replications=2, seed=9)
    assert kind.calls == [(nodes, r, 9, (r,)) for nodes in (6, 4) for r in range(2)]
    assert result.metadata["seed"] == 9  # what the tables were drawn from
    kind.calls.clear()
    run(grid, replications=range(1, 3))
    assert kind.calls == [(nodes, r, 5, (r,)) for nodes in (6, 4) for r in (1, 2)]


def test_one_scenario_runs_with_its_text_recorded(kind):
    model, text = load_scenario(SCENARIO)
    assert run_experiment(model, text, jobs=1, progress=False).metadata["scenario_text"] == text
    assert run_experiment(model, jobs=1, progress=False).metadata["scenario_text"] == ""
    assert kind.cells() == [(6, r) for r in range(3)] * 2


def test_a_shard_runs_its_slice_and_the_history_entry_says_so(kind, grid, tmp_path):
    result = run(grid, shard=(2, 3), out_dir=tmp_path, command="gridsim run flow.yaml")
    assert kind.cells() == [(6, 1), (4, 1)]
    [entry] = metadata(tmp_path)["history"]
    assert sorted(entry) == ["cells_run", "cells_skipped", "command", "dependencies", "error",
                             "executor", "finished", "replications", "shard", "started",
                             "status"]  # fmt: skip
    assert entry["command"] == "gridsim run flow.yaml"
    assert (entry["replications"], entry["shard"]) == ("1:2", "2/3")
    assert entry["executor"] == "this process"
    assert (entry["status"], entry["error"], entry["cells_run"], entry["cells_skipped"]) == (
        "complete", None, 2, 0
    )  # fmt: skip
    assert re.fullmatch(TIMESTAMP, entry["started"]) and re.fullmatch(TIMESTAMP, entry["finished"])
    assert metadata(tmp_path)["planned"] == {"0": [[1, 1]], "1": [[1, 1]]}
    assert result.metadata["replications_requested"] == 1


def test_without_a_command_the_history_records_the_process_s_command_line(kind, grid, tmp_path):
    run(grid, replications=1, out_dir=tmp_path)
    assert metadata(tmp_path)["history"][0]["command"] == " ".join(sys.argv)
    assert metadata(tmp_path)["command"] == " ".join(sys.argv)


# ---- what a results folder records -------------------------------------------------------------


def test_the_folder_records_the_experiment_the_outcome_and_the_tables(kind, grid, tmp_path):
    result = run(grid, out_dir=tmp_path, command="gridsim run flow.yaml")
    written = metadata(tmp_path)
    assert sorted(written) == sorted([
        "store_format", "jobs_schema", "scenario", "kind", "seed", "scenario_hash",
        "gridsim_version", "git_commit", "dependencies", "axes", "points", "scenario_text",
        "scenario_resolved",
        "identity", "planned", "history", "done", "status", "error", "command",
        "replications_requested", "replications_completed", "tables", "rejections",
    ])  # fmt: skip
    assert (written["store_format"], written["scenario"]) == (1, "flow")
    assert written["kind"] == "jobflow"
    assert written["seed"] == 5 and written["scenario_hash"] == grid.scenario_hash()
    assert written["dependencies"]["python"] == sys.version.split()[0]
    assert written["dependencies"]["numpy"] == np.__version__
    assert written["axes"] == ["environment.nodes"]
    assert written["points"] == [{"point": 0, "environment.nodes": 6},
                                 {"point": 1, "environment.nodes": 4}]  # fmt: skip
    assert written["scenario_text"] == GRID
    assert written["scenario_resolved"] == grid.scenario.model_dump(mode="json")
    assert written["identity"] == json.loads(json.dumps(grid.identity()))
    assert (written["status"], written["error"], written["command"]) == (
        "complete", None, "gridsim run flow.yaml"
    )  # fmt: skip
    assert written["replications_requested"] == written["replications_completed"] == 3
    assert written["tables"] == ["paired", "runs"]
    assert written["done"] == written["planned"] == {"0": [[0, 2]], "1": [[0, 2]]}
    assert written["rejections"] == [
        {"environment.nodes": nodes, "policy": "BFfinish", "count": 1, "of": 3,
         "what": "runs unfinished", "why": "the stand-in leaves them"} for nodes in (6, 4)
    ]  # fmt: skip
    assert json.loads(json.dumps(result.metadata)) == written and result.out_dir == tmp_path
    summary = pd.read_csv(tmp_path / "summary.csv")
    pdt.assert_frame_equal(summary, result.summary)
    assert list(summary.columns) == ["environment.nodes", "policy", "runs", "value_mean"]
    pdt.assert_frame_equal(pd.read_parquet(tmp_path / "paired.parquet"), result.tables["paired"])
    # the file holds the table's columns and no index column (other readers would see one)
    assert pq.read_schema(tmp_path / "paired.parquet").names == list(result.tables["paired"])
    pdt.assert_frame_equal(load_table(tmp_path, "runs"), result.tables["runs"])
    assert len(result.tables["runs"]) == 12


def test_a_run_in_memory_records_what_a_folder_would(kind, grid, tmp_path):
    memory = run(grid, command="in memory").metadata
    folder = run(grid, command="in memory", out_dir=tmp_path).metadata
    assert sorted(memory) == sorted(set(folder) - {"done"})
    for key in ("status", "error", "command", "replications_requested", "replications_completed",
                "tables", "rejections", "scenario_resolved", "seed", "planned"):  # fmt: skip
        assert memory[key] == folder[key], key
    assert memory["replications_requested"] == 3  # per point, as in a folder (not 6 cells)
    [entry] = memory["history"]
    assert (entry["command"], entry["cells_run"], entry["status"]) == ("in memory", 6, "complete")
    # JSON values, as a folder's file holds them (lists, not the model's tuples)
    assert memory["scenario_resolved"] == grid.scenario.model_dump(mode="json")


def test_the_summary_and_the_paired_table_compare_against_the_scenario_s_baseline(kind, grid):
    result = run(grid)
    assert result.summary.values.tolist() == [
        [nodes, policy, 3, np.mean([drawn(5, r)[i] for r in range(3)])]
        for nodes in (6, 4) for i, policy in enumerate(POLICIES)
    ]  # fmt: skip
    paired = result.tables["paired"]
    assert paired["environment.nodes"].tolist() == [6, 4]
    assert paired["baseline"].unique().tolist() == ["BFfinish"]  # the scenario's, not the first
    assert paired["policy"].unique().tolist() == ["BFstart"]
    assert sorted(result.tables) == ["paired", "runs"] and len(result.tables) == 2


def test_a_scenario_without_a_baseline_is_compared_against_its_first_policy():
    model, text = load_scenario(yaml.safe_dump(small_scenario_document(replications=2)))
    assert not hasattr(model, "baseline")
    paired = run_experiment(model, text, jobs=1, progress=False).tables["paired"]
    assert paired["baseline"].unique().tolist() == ["EqualChunks(E=6000)"]
    assert paired["policy"].tolist() == ["DyTSS(L=1500,M=18000)"]


def test_one_policy_or_a_kind_without_a_paired_metric_derives_no_paired_table(
    kind, grid, monkeypatch
):
    one = load_experiment(GRID.replace("[BFstart, BFfinish]", "[BFfinish]"))
    assert list(run(one).tables) == ["runs"]
    monkeypatch.setattr(jobflow_kind, "DECLARATION",
                        replace(jobflow_kind.DECLARATION, paired_metrics=()))  # fmt: skip
    monkeypatch.delattr(jobflow_kind, "REJECTIONS")
    result = run(grid)
    assert list(result.tables) == ["runs"] and result.metadata["rejections"] == []


def test_a_paired_table_no_longer_derived_is_removed_from_the_folder(kind, grid, tmp_path,
                                                                      monkeypatch):  # fmt: skip
    run(grid, replications=1, out_dir=tmp_path)
    assert (tmp_path / "paired.parquet").exists()
    monkeypatch.setattr(jobflow_kind, "DECLARATION",
                        replace(jobflow_kind.DECLARATION, paired_metrics=()))  # fmt: skip
    result = run(grid, replications=2, out_dir=tmp_path)
    assert not (tmp_path / "paired.parquet").exists()
    assert metadata(tmp_path)["tables"] == ["runs"] and list(result.tables) == ["runs"]


def test_the_result_s_tables_read_chunk_tables_from_the_store_and_hold_derived_ones():
    store = MemoryStore()
    store.add(Chunk(0, 0, 0), {"runs": pd.DataFrame({"x": [1]}), "jobs": pd.DataFrame({"j": [2]})})
    store.add(Chunk(0, 1, 1), {"runs": pd.DataFrame({"x": [3]})})
    paired = pd.DataFrame({"d": [0.5]})
    tables = runner.ResultTables(store, {"paired": paired})
    assert list(tables) == ["runs", "jobs", "paired"] and len(tables) == 3
    assert tables["paired"] is paired
    assert tables["runs"]["x"].tolist() == [1, 3] and tables["jobs"]["j"].tolist() == [2]
    with pytest.raises(KeyError, match="'tasks'"):
        tables["tasks"]


# ---- resuming ----------------------------------------------------------------------------------


def test_a_resumed_run_runs_only_the_missing_cells_and_says_how_many_were_done(
    kind, grid, tmp_path
):
    said: list[str] = []
    run(grid, replications=2, out_dir=tmp_path, say=said.append)
    assert said == []  # nothing to skip, nothing damaged: nothing to say
    kind.calls.clear()
    result = run(grid, out_dir=tmp_path, say=said.append)
    assert kind.cells() == [(6, 2), (4, 2)]
    assert said == [f"{tmp_path}: 4 of 6 cells (point, replication) already done, running the "
                    "2 missing"]  # fmt: skip
    assert (result.cells_run, result.cells_skipped) == (2, 4)
    first, second = metadata(tmp_path)["history"]
    assert (first["cells_run"], first["cells_skipped"]) == (4, 0)
    assert (second["cells_run"], second["cells_skipped"]) == (2, 4)
    assert metadata(tmp_path)["replications_requested"] == 3
    assert len(result.tables["runs"]) == 12

    kind.calls.clear()
    again = run(grid, out_dir=tmp_path)  # nothing missing
    assert kind.calls == [] and (again.status, again.cells_run, again.cells_skipped) == (
        "complete", 0, 6
    )  # fmt: skip
    assert metadata(tmp_path)["history"][-1]["cells_run"] == 0


def test_replications_asked_for_later_add_to_the_planned_ones(kind, grid, tmp_path):
    run(grid, replications=range(2, 4), out_dir=tmp_path)
    run(grid, replications=range(0, 1), out_dir=tmp_path)
    written = metadata(tmp_path)
    assert written["planned"] == {"0": [[0, 0], [2, 3]], "1": [[0, 0], [2, 3]]}
    assert written["replications_requested"] == written["replications_completed"] == 3


def test_damaged_chunk_files_are_named_and_their_cells_run_again(kind, grid, tmp_path):
    run(grid, out_dir=tmp_path)
    runs = tmp_path / "runs"
    one = runs / "point=0" / "rep-000001-000001.parquet"
    one.write_bytes(b"not a table")
    said: list[str] = []
    kind.calls.clear()
    run(grid, out_dir=tmp_path, say=said.append)
    assert kind.cells() == [(6, 1)]
    assert re.fullmatch(rf"{re.escape(str(one))}: damaged Parquet file \([^)]*\); its cells run "
                        r"again", said[0]), said  # fmt: skip

    first = runs / "point=0" / "rep-000000-000000.parquet"
    other = runs / "point=1" / "rep-000002-000002.parquet"
    first.write_bytes(b"")
    other.write_bytes(b"not a table")
    said.clear()
    kind.calls.clear()
    run(grid, out_dir=tmp_path, say=said.append)
    assert kind.cells() == [(6, 0), (4, 2)]
    assert re.fullmatch(rf"{re.escape(str(first))}: damaged Parquet file \(empty\) \(and 1 "
                        r"more\); its cells run again", said[0]), said  # fmt: skip


def test_a_folder_of_another_experiment_is_replaced_only_when_asked(kind, grid, tmp_path):
    other = load_experiment(SCENARIO + "sweep:\n  environment.nodes: [6, 5]\n")
    run(other, replications=1, out_dir=tmp_path)
    with pytest.raises(StoreError, match="holds another experiment"):
        run(grid, replications=1, out_dir=tmp_path)
    result = run(grid, replications=1, out_dir=tmp_path, overwrite=True)
    assert result.status == "complete" and metadata(tmp_path)["points"][1]["environment.nodes"] == 4


# ---- how a run stops ---------------------------------------------------------------------------


def test_a_failing_replication_stops_the_run_and_every_finished_chunk_is_kept(kind, grid,
                                                                             tmp_path):  # fmt: skip
    kind.special[(4, 1)] = RuntimeError("node exploded")
    result = run(grid, out_dir=tmp_path)
    assert (result.status, result.error) == ("failed", "RuntimeError: node exploded")
    assert isinstance(result.exception, RuntimeError) and str(result.exception) == "node exploded"
    # one worker, two chunks in flight: (4, 2) had finished when (4, 1)'s failure was read
    assert stored_cells(tmp_path) == {"0": [[0, 2]], "1": [[0, 0], [2, 2]]}
    assert result.cells_run == 5
    written = metadata(tmp_path)
    assert (written["status"], written["error"], written["replications_completed"]) == (
        "failed", "RuntimeError: node exploded", 2
    )  # fmt: skip
    assert (written["history"][0]["status"], written["history"][0]["cells_run"]) == ("failed", 5)
    assert written["history"][0]["error"] == "RuntimeError: node exploded"
    assert len(result.summary) == 4  # the summary of what was kept


def test_ctrl_c_stops_the_run_and_keeps_the_chunk_that_had_finished(kind, grid, tmp_path):
    kind.special[(4, 0)] = KeyboardInterrupt()
    result = run(grid, out_dir=tmp_path)
    assert (result.status, result.error) == ("interrupted", "interrupted by the user")
    assert result.exception is None  # Ctrl-C is not an error of the run
    # (6, 2) had finished but was not stored yet when Ctrl-C came
    assert stored_cells(tmp_path) == {"0": [[0, 2]]}
    assert result.cells_run == 3 and metadata(tmp_path)["history"][0]["cells_run"] == 3
    written = metadata(tmp_path)
    assert (written["status"], written["error"], written["replications_completed"]) == (
        "interrupted", "interrupted by the user", 0
    )  # fmt: skip


def test_a_run_that_kept_nothing_still_records_its_outcome(kind, grid, tmp_path):
    kind.special[(6, 0)] = KeyboardInterrupt()
    result = run(grid, out_dir=tmp_path)
    assert (result.status, result.cells_run) == ("interrupted", 0)
    assert result.summary.empty and list(result.tables) == []
    written = metadata(tmp_path)
    assert (written["tables"], written["rejections"], written["replications_completed"]) == (
        [], [], 0
    )  # fmt: skip


class TwoWorkers(SerialExecutor):
    """Chunks run here when submitted, as by two workers (four kept in flight); what the
    runner asks of the executor recorded."""

    workers = 2
    description = "two stand-in workers"

    def __init__(self, asked: list) -> None:
        self.asked = asked

    def stop(self) -> None:
        self.asked.append("stop")

    def close(self) -> None:
        self.asked.append("close")


@pytest.fixture
def two_workers(monkeypatch) -> list:
    asked: list = []

    def open_executor(jobs, cluster, tasks):
        asked.append(("open", jobs, cluster, tasks))
        return TwoWorkers(asked)

    monkeypatch.setattr(runner, "open_executor", open_executor)
    return asked


def test_a_table_that_cannot_be_stored_fails_the_run_after_storing_what_finished(
    kind, grid, tmp_path, two_workers
):
    kind.special[(6, 1)] = pd.DataFrame({"scenario": "flow", "replication": [1],
                                         "policy": "BFstart", "value": ["text"],
                                         "finished": [True]})  # fmt: skip
    result = run(grid, out_dir=tmp_path, jobs=2)
    assert result.status == "failed"
    assert result.error.startswith("SchemaDriftError: runs: point 0 replications 1-1 cannot be")
    # four chunks were in flight and had finished: all but the one that cannot be stored kept
    assert stored_cells(tmp_path) == {"0": [[0, 0], [2, 2]], "1": [[0, 0]]}
    assert result.cells_run == 3
    assert two_workers == [("open", 2, None, 6), "stop", "close"]
    assert metadata(tmp_path)["history"][0]["executor"] == "two stand-in workers"


def test_the_executor_is_opened_for_the_cells_to_run_and_closed_after(kind, grid, tmp_path,
                                                                      two_workers):  # fmt: skip
    run(grid, replications=2, out_dir=tmp_path, jobs=3)
    run(grid, out_dir=tmp_path, cluster="local:2")
    assert two_workers == [("open", 3, None, 4), "close", ("open", 1, "local:2", 2), "close"]


def test_the_executor_runs_here_for_one_worker_or_one_cell(kind, grid, tmp_path):
    run(grid, replications=2, out_dir=tmp_path / "one worker", jobs=1)
    run(grid.points[0].scenario, replications=1, out_dir=tmp_path / "one cell", jobs=2)
    for folder in ("one worker", "one cell"):
        assert metadata(tmp_path / folder)["history"][0]["executor"] == "this process"


def test_a_cluster_address_that_is_not_one_is_the_error_raised(kind, grid, tmp_path):
    with pytest.raises(ExecutorError, match=r"^--cluster 'nowhere': expected local:N"):
        run(grid, cluster="nowhere", out_dir=tmp_path)
    assert kind.calls == []


def on_ctrl_c(signum, frame) -> None:
    raise KeyboardInterrupt


@pytest.fixture
def ctrl_c_handled():
    """Ctrl-C handled by :func:`on_ctrl_c` (the process running the tests may ignore it)."""
    previous = signal.signal(signal.SIGINT, on_ctrl_c)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_is_held_off_while_the_run_writes_its_outcome_and_restored_after(
    kind, grid, ctrl_c_handled
):
    run(grid, replications=1)
    assert kind.handlers_while_summarising == [signal.SIG_IGN] * 2  # once per point
    assert signal.getsignal(signal.SIGINT) is on_ctrl_c


def test_a_run_in_another_thread_leaves_ctrl_c_to_the_main_thread(kind, grid, ctrl_c_handled):
    results = []
    thread = threading.Thread(target=lambda: results.append(run(grid, replications=1)))
    thread.start()
    thread.join()
    assert [r.status for r in results] == ["complete"]
    assert kind.handlers_while_summarising == [on_ctrl_c] * 2


def test_the_progress_counts_cells_on_stderr_only_when_asked(kind, grid, capsys):
    run(grid, replications=1, progress=False)
    assert capsys.readouterr().err == ""
    run_experiment(grid, replications=1, jobs=1)  # by default only on a terminal
    assert capsys.readouterr().err == ""
    run_experiment(grid, replications=1, jobs=1, progress=True)  # two points, one cell each
    shown = capsys.readouterr().err
    assert re.fullmatch(r"flow: 2/2 rep \(100%\) in 00:0\d, ETA 00:00, this process\n", shown)


# ---- handing chunks to an executor (_dispatch, _store_what_finished) --------------------------


class RecordingStore:
    def __init__(self) -> None:
        self.added: list[Chunk] = []
        self.on_add = lambda chunk: None

    def add(self, chunk: Chunk, tables) -> None:
        assert tables == {"chunk": chunk}
        self.added.append(chunk)
        self.on_add(chunk)


def stand_in_experiment():
    points = [SimpleNamespace(scenario=f"scenario {i}") for i in range(2)]
    return SimpleNamespace(name="stand-in", points=points,
                           columns=lambda point: [("p", point.scenario, "object")])  # fmt: skip


CHUNKS = [Chunk(0, 0, 1), Chunk(0, 2, 2), Chunk(0, 3, 5), Chunk(1, 0, 0), Chunk(1, 1, 2),
          Chunk(1, 3, 3), Chunk(1, 4, 4)]  # fmt: skip


class FinishedAtOnce:
    """Two workers whose chunks have finished when submitted; how many chunks were submitted
    and not yet stored, at each submission."""

    workers = 2
    description = "stand-in"

    def __init__(self, store: RecordingStore) -> None:
        self.store, self.submitted, self.in_flight = store, [], []

    def submit(self, function, *args) -> Future:
        self.submitted.append((function, *args))
        self.in_flight.append(len(self.submitted) - len(self.store.added))
        future: Future = Future()
        future.set_result({"chunk": args[1]})
        return future


def test_chunks_are_submitted_with_their_point_and_stored_in_order_a_few_per_worker_at_once():
    store = RecordingStore()
    executor = FinishedAtOnce(store)
    experiment = stand_in_experiment()
    ran = runner._dispatch(experiment, 7, CHUNKS, store, executor, False, 11)
    assert ran == sum(chunk.size for chunk in CHUNKS) == 11
    assert store.added == CHUNKS
    assert executor.submitted == [
        (runner.run_chunk, f"scenario {c.point}", c, 7, [("p", f"scenario {c.point}", "object")])
        for c in CHUNKS
    ]
    assert max(executor.in_flight) == 2 * runner.IN_FLIGHT_PER_WORKER


class FinishedWhenReleased:
    """Two workers whose chunks finish when the test releases them (or after 3 s)."""

    workers = 2
    description = "stand-in"

    def __init__(self) -> None:
        self.released = {chunk: threading.Event() for chunk in CHUNKS}

    def submit(self, function, *args) -> Future:
        chunk, future = args[1], Future()

        def finish() -> None:
            self.released[chunk].wait(3)
            future.set_result({"chunk": chunk})

        threading.Thread(target=finish, daemon=True).start()
        return future


def test_a_chunk_is_stored_as_soon_as_it_finishes_while_others_still_run():
    chunks = CHUNKS[:4]
    store, executor = RecordingStore(), FinishedWhenReleased()
    following = {chunks[2]: chunks[0], chunks[0]: chunks[3], chunks[3]: chunks[1]}
    store.on_add = lambda chunk: following.get(chunk) and executor.released[following[chunk]].set()
    executor.released[chunks[2]].set()
    ran = runner._dispatch(stand_in_experiment(), 7, chunks, store, executor, False, 7)
    assert store.added == [chunks[2], chunks[0], chunks[3], chunks[1]]
    assert ran == 7


def finished(value) -> Future:
    future: Future = Future()
    future.set_result(value)
    return future


def failed() -> Future:
    future: Future = Future()
    future.set_exception(RuntimeError("lost"))
    return future


def cancelled() -> Future:
    future: Future = Future()
    future.cancel()
    return future


def test_after_a_stop_the_chunks_finished_before_the_first_unfinished_one_are_stored():
    given: list = []
    a, b, c, d = finished(1), finished(2), failed(), finished(4)
    runner._store_what_finished(given.append, {a: 0, b: 1, c: 2, d: 3})
    e, f, g = finished(1), cancelled(), finished(3)
    runner._store_what_finished(given.append, {e: 0, f: 1, g: 2})
    runner._store_what_finished(given.append, {c: 0, d: 1})
    assert given == [{a, b}, {e}, set()]


def test_an_error_storing_after_a_stop_is_not_the_one_reported():
    def store_finished(futures):
        raise OSError("disk full")

    runner._store_what_finished(store_finished, {finished(1): 0})  # does not raise


# ---- a chunk's tables --------------------------------------------------------------------------


def test_a_chunk_runs_its_replications_in_order_and_joins_their_tables(grid, monkeypatch):
    calls = []

    def run_replication(scenario, replication, seed):
        calls.append((scenario, replication, seed.entropy, seed.spawn_key))
        tables = {"runs": pd.DataFrame({"scenario": ["flow"], "replication": [replication]})}
        if replication == 3:  # a table only some replications write
            tables = {"jobs": pd.DataFrame({"job": [1, 2]}), **tables}
        return tables

    monkeypatch.setattr(jobflow_kind, "run_replication", run_replication)
    point = grid.points[1]
    tables = runner.run_chunk(point.scenario, Chunk(1, 2, 4), 8, grid.columns(point))
    assert calls == [(point.scenario, r, 8, (r,)) for r in (2, 3, 4)]
    assert list(tables) == ["runs", "jobs"]
    assert tables["runs"].values.tolist() == [["flow", 4, r] for r in (2, 3, 4)]
    assert tables["runs"].index.tolist() == [0, 1, 2]
    assert list(tables["runs"].columns) == ["scenario", "environment.nodes", "replication"]
    assert tables["jobs"].values.tolist() == [[4, 1], [4, 2]]


def test_the_replication_seed_is_the_child_of_the_documented_key():
    seed = runner.replication_seed(11, 3)
    expected = np.random.SeedSequence(11, spawn_key=(3,))
    assert (seed.entropy, seed.spawn_key) == (11, (3,))
    assert seed.generate_state(4).tolist() == expected.generate_state(4).tolist()


def test_point_columns_take_the_axis_type_also_for_a_whole_number_or_no_rows():
    table = pd.DataFrame({"scenario": ["s", "s"], "x": [1.0, 2.0]})
    added = runner.with_point_columns(table, [("load", 1, "float64"), ("name", "a", "object")])
    assert list(added.columns) == ["scenario", "load", "name", "x"]
    assert added["load"].dtype == "float64" and added["load"].tolist() == [1.0, 1.0]
    empty = runner.with_point_columns(table.iloc[:0], [("load", 1, "float64")])
    assert empty["load"].dtype == "float64" and len(empty) == 0
    assert runner.with_point_columns(table, [("x", 9.0, "float64")]) is table  # nothing to add


def test_the_summary_keeps_a_point_whose_value_is_missing_and_numbers_its_rows():
    runs = pd.DataFrame(
        {"load": [None, None, 0.2], "policy": ["A", "B", "A"], "x": [1.0, 2.0, 3.0]}
    )
    kind = SimpleNamespace(summarise=lambda part: part[["policy", "x"]].reset_index(drop=True))
    summary = runner.summarise_points(kind, runs, ("load",))
    assert summary["x"].tolist() == [1.0, 2.0, 3.0]
    assert summary.index.tolist() == [0, 1, 2]


# ---- the commit recorded -----------------------------------------------------------------------


def fake_git(folder: Path, script: str) -> None:
    git = folder / "git"
    git.write_text("#!/bin/sh\n" + script)
    git.chmod(0o755)


def test_the_commit_is_asked_of_git_in_gridsim_s_folder_without_optional_locks(
    tmp_path, monkeypatch
):
    fake_git(tmp_path, 'echo "$(pwd -P) locks=$GIT_OPTIONAL_LOCKS $*"\n')
    monkeypatch.setenv("PATH", f"{tmp_path}:{Path('/usr/bin')}:{Path('/bin')}")
    monkeypatch.chdir(tmp_path)
    folder = Path(runner.__file__).resolve().parent
    assert runner._git_commit() == f"{folder} locks=0 rev-parse HEAD"


def test_no_commit_is_recorded_where_git_cannot_name_one(tmp_path, monkeypatch):
    repository = tmp_path / "no commits yet"
    (repository / "gridsim").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    monkeypatch.setattr(runner, "__file__", str(repository / "gridsim" / "runner.py"))
    assert runner._git_commit() is None  # git prints "HEAD" and fails there
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert runner._git_commit() is None  # no git at all
