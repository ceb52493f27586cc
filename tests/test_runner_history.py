"""What a run records about itself (gridsim.experiments.runner): each invocation's history entry,
the outcome of a stopped run, and the derived ``paired`` table written next to the chunks."""

from __future__ import annotations

import json
import re
import sys

import pandas as pd
import pandas.testing as pdt
import pytest
import yaml
from cloud_scenarios import small_scenario_document

from gridsim.analysis.results import load_table
from gridsim.experiments import window_search
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment

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
