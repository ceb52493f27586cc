"""One jobs table for every kind that has jobs (gridsim.sim.trace.JOB_COLUMNS), and results
folders of the first schema read as today's.

Every kind is run once here; a kind that writes a ``jobs`` table must write the schema's
columns first, in order, with their types, node sets as sorted interval sets, and per-job
metrics that are the ones gridsim.analysis.jobflow_metrics defines. Job flows are run with
and without faults, log replays on the log's machine and on node classes.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from kind_scenarios import BY_KIND, scenario

import gridsim
from gridsim.analysis.jobflow_metrics import job_metrics
from gridsim.experiments.kinds import KINDS, declaration, kind_module, load_scenario
from gridsim.experiments.runner import replication_seed, run_experiment
from gridsim.experiments.store import StoreError
from gridsim.sim.trace import JOB_COLUMN_NAMES, JOB_COLUMNS, JOBS_SCHEMA, node_ids

SCHEMA_1 = Path(__file__).resolve().parents[1] / "data" / "results-schema-1"
FAULTS = {"local_overruns": {"probability": 0.5, "distribution": "exponential", "mean": 0.5},
          "failures": {"rate": 0.004, "distribution": "exponential", "repair_mean": 20},
          "consequences": {"resubmit": "keep_priority", "max_retries": 1}}  # fmt: skip
NODE_CLASSES = {"node_classes": [{"count": 60, "performance": 1.0, "price": 1.0},
                                 {"count": 40, "performance": 1.5, "price": 2.0}]}  # fmt: skip
CASES = {
    **{kind: {} for kind in BY_KIND},
    "jobflow with faults": {"faults": FAULTS},
    "swf_replay on node classes": {"platform": NODE_CLASSES, "schedulers": ["easy"]},
}
INTERVAL = re.compile(r"^\d+(-\d+)?$")


def _kind(case: str) -> str:
    return case.split(" ")[0]


def _tables(case: str) -> dict[str, pd.DataFrame]:
    model, _ = scenario(_kind(case), **CASES[case])
    return kind_module(model).run_replication(model, 1, replication_seed(model.seed, 1))


def check_jobs_table(jobs: pd.DataFrame, threshold: float = 10.0) -> None:
    """The schema's columns first and typed, node sets as interval sets, metrics as defined."""
    assert tuple(jobs.columns[: len(JOB_COLUMNS)]) == JOB_COLUMN_NAMES
    for column in JOB_COLUMNS:
        kind = "O" if column.dtype == "str" else column.dtype
        assert jobs[column.name].dtype == np.dtype(kind) or (
            column.dtype == "str" and pd.api.types.is_string_dtype(jobs[column.name])
        ), (column.name, jobs[column.name].dtype)
    for text in jobs["allocated_resources"]:
        parts = text.split()
        assert all(INTERVAL.match(part) for part in parts), text
        ids = node_ids(text)
        assert ids == sorted(set(ids)), text  # sorted, no node twice
        assert all(int(b) > int(a) for a, _, b in (p.partition("-") for p in parts) if b)
    ran = jobs["final_state"].isin(["finished", "killed"])
    assert (jobs.loc[ran, "allocated_resources"] != "").all() or (
        jobs.loc[ran, "allocated_resources"] == ""
    ).all()  # recorded for every job that ran, or (record_nodes: false) for none
    assert set(jobs["final_state"]) <= {"finished", "killed", "failed", "rejected", "unfinished"}
    done = jobs[ran]
    np.testing.assert_allclose(done["run_time"], done["finish_time"] - done["start_time"],
                               rtol=1e-9, atol=1e-9)  # fmt: skip
    expected = job_metrics(jobs[list(JOB_COLUMN_NAMES[:13])], threshold)
    for name in ("wait_time", "response_time", "slowdown", "bounded_slowdown"):
        pd.testing.assert_series_equal(jobs[name], expected[name], check_names=False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_kind_with_jobs_writes_the_one_jobs_table(case):
    tables = _tables(case)
    has_jobs = declaration(_kind(case)).jobs_of_schema_1 is not None
    assert ("jobs" in tables) == has_jobs
    if has_jobs:
        jobs = tables["jobs"]
        assert len(jobs) > 0
        check_jobs_table(jobs)
        if case == "jobflow with faults":
            assert jobs["retries"].sum() > 0  # the faults did something


def test_every_kind_is_covered_by_the_schema_test():
    assert {_kind(case) for case in CASES} == set(KINDS)


@pytest.mark.parametrize("name", ["flow", "replay", "cycles"])
def test_a_results_folder_of_the_first_schema_loads_as_today_s(name):
    folder = SCHEMA_1 / name
    assert "jobs_schema" not in json.loads((folder / "metadata.json").read_text())
    jobs = gridsim.load_results(folder).jobs
    check_jobs_table(jobs[list(JOB_COLUMN_NAMES)].reset_index(drop=True))
    stored = pd.concat([pd.read_parquet(f) for f in sorted((folder / "jobs").rglob("*.parquet"))],
                       ignore_index=True)  # fmt: skip
    old_names = {"flow": ("arrival", "start", "n"), "replay": ("submit_time", "start_time",
                 "processors"), "cycles": ("job", "start", "requested_nodes")}[name]  # fmt: skip
    for old, new in zip(old_names, ("submit_time" if name != "cycles" else "job_id",
                                    "start_time", "processors"), strict=True):  # fmt: skip
        np.testing.assert_array_equal(jobs[new].to_numpy(), stored[old].to_numpy())
    if name == "flow":  # node ids "2 3 5" became the interval set "2-3 5"
        now = [node_ids(text) for text in jobs["allocated_resources"]]
        assert now == [sorted(map(int, text.split())) for text in stored["nodes"]]
        np.testing.assert_allclose(jobs["wait_time"], stored["wait"])
    if name == "replay":
        assert (jobs["final_state"] == np.where(stored["killed"], "killed", "finished")).all()


def test_a_report_and_an_export_of_a_first_schema_folder_work(tmp_path):
    from click.testing import CliRunner

    from gridsim.cli import main

    result = CliRunner().invoke(main, ["report", str(SCHEMA_1 / "replay"), "-o",
                                       str(tmp_path / "report"), "--no-explore"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Means with 95% intervals" in (tmp_path / "report" / "report.md").read_text()
    options = ["--format", "batsim", "--policy", "CoP", "-o", str(tmp_path / "flow.csv")]
    result = CliRunner().invoke(main, ["export", str(SCHEMA_1 / "flow"), *options])
    assert result.exit_code == 0, result.output
    assert len(pd.read_csv(tmp_path / "flow.csv")) == 6


def test_a_first_schema_folder_is_not_resumed_with_today_s_jobs_table(tmp_path):
    folder = tmp_path / "flow"
    shutil.copytree(SCHEMA_1 / "flow", folder)
    manifest = json.loads((folder / "metadata.json").read_text())
    model, text = load_scenario(manifest["scenario_text"])
    with pytest.raises(
        StoreError, match=r"jobs table of schema 1 in the folder \(an earlier gridsim\), 2 asked"
    ):
        run_experiment(model, text, replications=3, jobs=1, out_dir=folder, progress=False)


def test_a_folder_of_a_newer_jobs_schema_is_named_and_refused(tmp_path):
    folder = tmp_path / "flow"
    shutil.copytree(SCHEMA_1 / "flow", folder)
    manifest = json.loads((folder / "metadata.json").read_text())
    (folder / "metadata.json").write_text(json.dumps({**manifest, "jobs_schema": JOBS_SCHEMA + 1}))
    with pytest.raises(ValueError, match=f"jobs_schema: {JOBS_SCHEMA + 1} is newer"):
        gridsim.load_results(folder)


def test_docs_results_md_states_every_column_with_its_unit_and_meaning():
    text = (Path(__file__).resolve().parents[2] / "docs" / "results.md").read_text()
    for column in JOB_COLUMNS:
        assert f"| `{column.name}` | {column.unit} | {column.meaning} |" in text, column.name
