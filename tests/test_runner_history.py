"""What a run records about itself (gridsim.experiments.runner): each invocation's history entry,
the outcome of a stopped run, and the derived ``paired`` table written next to the chunks; and
what it leaves behind: its progress bar only when asked, no worker processes, the point's
values in every table row and in the summary, points in the grid's order."""

from __future__ import annotations

import io
import json
import multiprocessing
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pandas.testing as pdt
import pytest
import yaml
from cloud_scenarios import small_scenario_document

import gridsim
from gridsim.analysis.results import load_table
from gridsim.experiments import window_search
from gridsim.experiments.executors import ExecutorError
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment, summarise_points, with_point_columns

SCENARIO = """\
name: tiny
kind: window_search
seed: 11
replications: 4
environment:
  nodes: 8
  horizon: 300
  local_load: {max_utilisation: 0.4, tasks_per_node: [1, 3]}
request: {n: 2, volume: 200, budget: 200}
policies: [FirstFit, MinCost]
"""


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(SCENARIO)


def history(folder) -> list[dict]:
    return json.loads((folder / "metadata.json").read_text())["history"]


def test_each_invocation_records_its_command_times_replications_and_shard(scenario, tmp_path):
    model, text = scenario
    run_experiment(model, text, jobs=1, out_dir=tmp_path, shard=(1, 2), progress=False)
    run_experiment(model, text, jobs=1, out_dir=tmp_path, command="gridsim run again",
                   progress=False)  # fmt: skip
    first, second = history(tmp_path)
    assert first["command"] == " ".join(sys.argv)  # the process's own command line
    assert (first["replications"], first["shard"], first["cells_run"]) == ("0:2", "1/2", 2)
    assert (first["executor"], first["status"], first["error"]) == ("this process", "complete",
                                                                    None)  # fmt: skip
    assert (second["command"], second["shard"], second["cells_skipped"]) == (
        "gridsim run again", None, 2
    )  # fmt: skip
    for entry in (first, second):
        for key in ("started", "finished"):
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", entry[key]), key


@pytest.mark.parametrize(
    ("error", "status", "message"),
    [
        (RuntimeError("node exploded"), "failed", "RuntimeError: node exploded"),
        (KeyboardInterrupt(), "interrupted", "interrupted by the user"),
    ],
)
def test_a_stopped_run_reports_why_what_it_ran_and_the_exception(
    scenario, tmp_path, monkeypatch, error, status, message
):
    real = window_search.run_replication

    def stops_at_replication_two(model, replication, seed):
        if replication == 2:
            raise error
        return real(model, replication, seed)

    monkeypatch.setattr(window_search, "run_replication", stops_at_replication_two)
    model, text = scenario
    result = run_experiment(model, text, jobs=1, out_dir=tmp_path, progress=False)
    assert (result.status, result.error) == (status, message)
    stored = set(load_table(tmp_path, "runs")["replication"])
    assert 2 not in stored and {0, 1} <= stored  # what finished before the stop is kept
    assert result.cells_run == history(tmp_path)[0]["cells_run"] == len(stored)
    assert (history(tmp_path)[0]["status"], history(tmp_path)[0]["error"]) == (status, message)
    if status == "failed":
        assert isinstance(result.exception, RuntimeError)
        assert str(result.exception) == "node exploded"
    else:
        assert result.exception is None  # Ctrl-C is not an error of the run


def test_the_paired_table_is_written_beside_the_chunks_as_the_run_returns_it(tmp_path):
    model, text = load_scenario(yaml.safe_dump(small_scenario_document()))
    result = run_experiment(model, text, jobs=1, out_dir=tmp_path, progress=False)
    written = pd.read_parquet(tmp_path / "paired.parquet")
    pdt.assert_frame_equal(written, result.tables["paired"])
    assert written.index.tolist() == list(range(len(written)))
    assert written["baseline"].unique().tolist() == ["EqualChunks(E=6000)"]


def test_progress_shows_on_a_terminal_or_when_asked_and_as_one_whole_line_in_a_log(
    scenario, tmp_path, capsys
):
    model, text = scenario
    for progress in (False, None):  # None: only on a terminal, and stderr is captured here
        run_experiment(model, text, replications=2, jobs=1, out_dir=tmp_path / str(progress),
                       progress=progress)  # fmt: skip
        assert capsys.readouterr().err == ""
    run_experiment(model, text, replications=2, jobs=1, out_dir=tmp_path / "shown",
                   progress=True)  # fmt: skip
    shown = capsys.readouterr().err
    assert re.fullmatch(r"tiny: 2/2 rep \(100%\) in 00:0\d, ETA 00:00, this process\n", shown)


def test_a_log_gets_a_progress_line_per_interval_and_the_last_once():
    from gridsim.experiments.progress import LOG_INTERVAL_S, LogProgress

    now, log = [0.0], io.StringIO()
    progress = LogProgress(10, "s", "this process", log, clock=lambda: now[0])
    for _ in range(10):
        now[0] += LOG_INTERVAL_S / 4
        progress.update(1)
    progress.close()
    progress.close()
    lines = log.getvalue().splitlines(keepends=True)
    assert [line.split(" rep ")[0] for line in lines] == ["s: 4/10", "s: 8/10", "s: 10/10"]
    assert lines[-1] == "s: 10/10 rep (100%) in 00:25, ETA 00:00, this process\n"
    assert "\r" not in log.getvalue()


def test_a_run_on_local_processes_leaves_none_running(scenario, tmp_path):
    model, text = scenario
    result = run_experiment(model, text, jobs=2, out_dir=tmp_path, progress=False)
    assert history(tmp_path)[0]["executor"] == "2 local processes"
    assert result.status == "complete" and multiprocessing.active_children() == []


def test_a_cluster_address_that_is_not_one_is_the_error_raised(scenario, tmp_path):
    model, text = scenario
    with pytest.raises(ExecutorError, match=r"^--cluster 'nowhere': expected local:N"):
        run_experiment(model, text, cluster="nowhere", out_dir=tmp_path, progress=False)


def test_a_point_s_values_are_inserted_after_the_scenario_column_with_their_types():
    table = pd.DataFrame({"scenario": ["s", "s"], "policy": ["A", "B"], "queue_size": [1, 2]})
    columns = [("load", 0.5, "float64"), ("nodes", 8, "int64"), ("queue_size", 9, "int64")]
    added = with_point_columns(table, columns)
    assert list(added.columns) == ["scenario", "load", "nodes", "policy", "queue_size"]
    assert added["load"].tolist() == [0.5, 0.5] and added["load"].dtype == "float64"
    assert added["nodes"].tolist() == [8, 8] and added["nodes"].dtype == "int64"
    assert added["queue_size"].tolist() == [1, 2]  # what the kind wrote is kept
    assert list(table.columns) == ["scenario", "policy", "queue_size"]  # not changed in place
    first = with_point_columns(pd.DataFrame({"x": [1]}), [("load", 0.5, "float64")])
    assert list(first.columns) == ["load", "x"]  # no scenario column: first


def test_a_request_no_window_meets_is_counted_in_the_folder_s_rejections(tmp_path):
    model, text = load_scenario(SCENARIO.replace("budget: 200", "budget: 0.01"))
    run_experiment(model, text, replications=3, jobs=1, out_dir=tmp_path, progress=False)
    rejections = json.loads((tmp_path / "metadata.json").read_text())["rejections"]
    assert [(r["policy"], r["count"], r["of"], r["what"]) for r in rejections] == [
        (policy, 3, 3, "replications without a window") for policy in ("FirstFit", "MinCost")
    ]  # fmt: skip


def test_the_summary_has_a_row_per_point_and_policy_in_the_grid_s_order():
    """Points listed from high load to low stay in that order, each row with its values."""
    runs = pd.DataFrame({"load": [0.6, 0.6, 0.2, 0.2], "nodes": [8, 8, 4, 4],
                         "policy": ["B", "A", "B", "A"], "x": [1.0, 2.0, 3.0, 4.0]})  # fmt: skip
    kind = SimpleNamespace(
        summarise=lambda part: part.groupby("policy", sort=False)["x"].mean().reset_index()
    )
    summary = summarise_points(kind, runs, ("load", "nodes", "not_a_column"))
    assert list(summary.columns) == ["load", "nodes", "policy", "x"]
    assert summary.values.tolist() == [[0.6, 8, "B", 1.0], [0.6, 8, "A", 2.0],
                                       [0.2, 4, "B", 3.0], [0.2, 4, "A", 4.0]]  # fmt: skip
    assert summarise_points(kind, runs, ()).values.tolist() == [["B", 2.0], ["A", 3.0]]
    assert summarise_points(kind, runs.iloc[:0], ("load",)).empty


def test_the_manifest_returned_is_the_one_written_as_json(scenario, tmp_path):
    model, text = scenario
    in_memory = run_experiment(model, text, replications=1, jobs=1, progress=False)
    run_experiment(model, text, replications=1, jobs=1, out_dir=tmp_path, progress=False)
    written = json.loads((tmp_path / "metadata.json").read_text())
    assert in_memory.metadata["scenario_resolved"] == written["scenario_resolved"]
    assert written["scenario_resolved"]["environment"]["local_load"]["tasks_per_node"] == [1, 3]


def test_the_recorded_commit_is_gridsim_s_wherever_it_runs_from(scenario, tmp_path, monkeypatch):
    source = Path(gridsim.__file__).parent
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True,
                          text=True, check=False).stdout.strip() or None  # fmt: skip
    monkeypatch.chdir(tmp_path)  # not a git repository
    model, text = scenario
    result = run_experiment(model, text, replications=1, jobs=1, progress=False)
    assert result.metadata["git_commit"] == head
