"""A job-flow trace exported as SWF reads back with the same jobs; the Batsim export has
Batsim's jobs.csv columns."""

import numpy as np
import pandas as pd
import pytest
from analysis_runs import arrivals_run, jobflow_run
from click.testing import CliRunner

import gridsim
from gridsim.analysis.export import (
    BATSIM_COLUMNS,
    batsim_table,
    resource_intervals,
    write_jobs_swf,
)
from gridsim.analysis.results import select_run
from gridsim.cli import main
from gridsim.workloads.swf import read_swf


def _jobs(policy="CoP", replication=1, queue_size=8):
    jobs = gridsim.load_results(arrivals_run()).jobs
    return select_run(jobs, policy, replication, queue_size, what="jobs")


def test_the_swf_export_reads_back_with_the_same_jobs_times_and_sizes(tmp_path):
    jobs = _jobs()
    assert jobs["wait"].gt(0).any() and jobs["arrival"].nunique() > 1  # a real flow
    write_jobs_swf(jobs, tmp_path / "flow.swf", nodes=32)
    log = read_swf(tmp_path / "flow.swf")
    back = log.jobs.sort_values("job_id").reset_index(drop=True)
    jobs = jobs.sort_values("job_id").reset_index(drop=True)
    assert log.report.jobs_kept == len(jobs) and log.machine_processors == 32
    np.testing.assert_array_equal(back["job_id"], jobs["job_id"] + 1)
    np.testing.assert_array_equal(back["submit_time"], jobs["arrival"])
    np.testing.assert_array_equal(back["start_time"], jobs["start"])
    np.testing.assert_allclose(back["finish_time"], jobs["finish"], rtol=1e-12)
    np.testing.assert_array_equal(back["run_time"], jobs["runtime"])
    np.testing.assert_array_equal(back["processors"], jobs["n"])
    np.testing.assert_allclose(back["requested_time"], jobs["planned_runtime"], rtol=1e-12)
    assert (back["status"] == 1).all() and not back["killed"].any()


def test_jobs_that_never_ran_are_cancelled_in_swf_and_dropped_on_reading(tmp_path):
    jobs = _jobs().copy()
    jobs.loc[jobs.index[0], ["start", "finish", "wait", "runtime", "cost"]] = np.nan
    jobs.loc[jobs.index[0], ["final_state", "nodes"]] = ["rejected", ""]
    write_jobs_swf(jobs, tmp_path / "flow.swf")
    log = read_swf(tmp_path / "flow.swf")
    assert log.report.dropped["cancelled_before_start"] == 1
    states = batsim_table(jobs).set_index("job_id")["final_state"]
    assert states[jobs["job_id"].iloc[0]] == "REJECTED"


def test_the_batsim_table_has_the_batsim_columns_and_consistent_times():
    jobs = _jobs()
    table = batsim_table(jobs, workload_name="w")
    assert tuple(table.columns) == BATSIM_COLUMNS
    assert (table["final_state"] == "COMPLETED_SUCCESSFULLY").all()
    assert (table["success"] == 1).all() and (table["workload_name"] == "w").all()
    np.testing.assert_allclose(
        table["waiting_time"], table["starting_time"] - table["submission_time"], atol=1e-9
    )
    np.testing.assert_allclose(
        table["turnaround_time"], table["finish_time"] - table["submission_time"], atol=1e-9
    )
    np.testing.assert_allclose(table["stretch"], table["turnaround_time"] / table["execution_time"])
    sizes = table["allocated_resources"].map(
        lambda text: sum(int(b) - int(a) + 1 for a, _, b in
                         (part.partition("-") if "-" in part else (part, "", part)
                          for part in text.split()))
    )  # fmt: skip
    np.testing.assert_array_equal(sizes, table["requested_number_of_resources"])


@pytest.mark.parametrize(
    ("nodes", "text"),
    [("0 1 2 3 5", "0-3 5"), ("7", "7"), ("4 2 3 9 10", "2-4 9-10"), ([1, 3], "1 3")],
)
def test_node_ids_become_batsim_intervals(nodes, text):
    assert resource_intervals(nodes) == text


def test_the_jobs_of_several_runs_are_refused():
    with pytest.raises(ValueError, match="select one policy"):
        batsim_table(gridsim.load_results(jobflow_run()).jobs)


def test_export_from_the_command_line_in_both_formats(tmp_path):
    base = ["export", str(jobflow_run()), "--policy", "BFfinish", "--queue-size", "16"]
    result = CliRunner().invoke(main, [*base, "--format", "swf", "-o", str(tmp_path / "a.swf")])
    assert result.exit_code == 0, result.output
    assert read_swf(tmp_path / "a.swf").report.jobs_kept == 16
    result = CliRunner().invoke(main, [*base, "--format", "batsim", "-o", str(tmp_path / "a.csv")])
    assert result.exit_code == 0, result.output
    assert len(pd.read_csv(tmp_path / "a.csv")) == 16
    result = CliRunner().invoke(
        main,
        [
            "export",
            str(jobflow_run()),
            "--policy",
            "BFfinish",
            "--format",
            "swf",
            "-o",
            str(tmp_path / "b.swf"),
        ],
    )
    assert result.exit_code == 2 and "choose --queue-size [8, 16]" in result.output
