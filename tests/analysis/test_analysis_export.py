"""A job-flow trace exported as SWF reads back with the same jobs; the Batsim export has
Batsim's jobs.csv columns."""

import numpy as np
import pandas as pd
import pytest
from analysis_runs import arrivals_run, heterogeneous_replay_run, jobflow_run, replay_run
from click.testing import CliRunner
from swf_checker import check_swf

import gridsim
from gridsim.analysis.export import (
    BATSIM_COLUMNS,
    batsim_table,
    write_jobs_swf,
)
from gridsim.analysis.results import select_run
from gridsim.cli import main
from gridsim.sim.trace import interval_set, node_ids
from gridsim.workloads.swf import SwfMapping, bundled_swf, read_swf


def _jobs(policy="CoP", replication=1, queue_size=8):
    jobs = gridsim.load_results(arrivals_run()).jobs
    return select_run(jobs, policy, replication, queue_size, what="jobs")


def _whole_seconds(times) -> np.ndarray:
    """The writer's rounding: nearest second, halves up."""
    return np.floor(np.asarray(times, dtype=float) + 0.5)


def test_the_swf_export_of_a_job_flow_conforms_and_reads_back_with_the_same_jobs(tmp_path):
    jobs = _jobs()
    assert jobs["wait_time"].gt(0).any() and jobs["submit_time"].nunique() > 1  # a real flow
    write_jobs_swf(jobs, tmp_path / "flow.swf", nodes=32)
    assert check_swf(tmp_path / "flow.swf") == []
    log = read_swf(tmp_path / "flow.swf")
    back = log.jobs
    jobs = jobs.sort_values(["submit_time", "job_id"]).reset_index(drop=True)
    assert log.report.jobs_kept == len(jobs) and log.machine_processors == 32
    np.testing.assert_array_equal(back["job_id"], np.arange(1, len(jobs) + 1))
    np.testing.assert_array_equal(back["submit_time"], _whole_seconds(jobs["submit_time"]))
    np.testing.assert_array_equal(back["start_time"], _whole_seconds(jobs["start_time"]))
    np.testing.assert_array_equal(back["finish_time"], _whole_seconds(jobs["finish_time"]))
    np.testing.assert_array_equal(back["processors"], jobs["processors"])
    assert (back["requested_time"] - jobs["requested_time"]).abs().max() <= 1
    assert (back["status"] == 1).all() and not back["killed"].any()
    assert log.header.values("MaxNodes") == ("32",) and log.header.values("Preemption") == ("No",)


def test_a_job_flow_exported_in_minutes_keeps_its_times_to_the_second(tmp_path):
    jobs = _jobs()
    write_jobs_swf(jobs, tmp_path / "flow.swf", nodes=32, time_unit_s=60)
    assert check_swf(tmp_path / "flow.swf") == []
    back = read_swf(tmp_path / "flow.swf").jobs
    jobs = jobs.sort_values(["submit_time", "job_id"])
    np.testing.assert_array_equal(back["start_time"], _whole_seconds(jobs["start_time"] * 60))
    assert "1 simulation time unit = 60 s" in (tmp_path / "flow.swf").read_text()


def test_jobs_that_never_ran_are_cancelled_in_swf_and_dropped_on_reading(tmp_path):
    jobs = _jobs().copy()
    jobs.loc[jobs.index[0], ["start_time", "finish_time", "wait_time", "run_time", "cost"]] = np.nan
    jobs.loc[jobs.index[0], ["final_state", "allocated_resources"]] = ["rejected", ""]
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
    assert interval_set(node_ids(nodes) if isinstance(nodes, str) else nodes) == text


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


def _export(results, *options):
    result = CliRunner().invoke(main, ["export", str(results), *options])
    assert result.exit_code == 0, result.output
    return result


def test_the_swf_export_of_a_log_replay_conforms_and_reads_back_as_replayed(tmp_path):
    _export(replay_run(), "--policy", "conservative", "--format", "swf", "-o", tmp_path / "r.swf")
    assert check_swf(tmp_path / "r.swf") == []
    log = read_swf(tmp_path / "r.swf", SwfMapping(on_overrun="run"))
    replayed = select_run(gridsim.load_results(replay_run()).jobs, "conservative", 0)
    assert log.report.jobs_kept == len(replayed) == 150
    for column in ("job_id", "user_id", "submit_time", "start_time", "finish_time", "run_time"):
        np.testing.assert_array_equal(log.jobs[column], replayed[column], err_msg=column)
    np.testing.assert_array_equal(log.jobs["requested_time"], replayed["requested_time"])
    np.testing.assert_array_equal(
        log.jobs["status"], np.where(replayed["final_state"] == "killed", 0, 1)
    )
    source = read_swf(bundled_swf()).header
    for key in ("Computer", "Installation", "UnixStartTime", "TimeZoneString", "MaxProcs"):
        assert log.header.values(key) == source.values(key), key
    assert log.header.values("AllowOveruse") == ("No",)  # jobs are killed at their estimate


def test_a_replay_on_node_classes_is_exported_with_its_machine_and_rounded_times(tmp_path):
    _export(heterogeneous_replay_run(), "--policy", "easy/BFfinish", "--format", "swf",
            "-o", tmp_path / "h.swf")  # fmt: skip
    assert check_swf(tmp_path / "h.swf") == []
    log = read_swf(tmp_path / "h.swf", SwfMapping(on_overrun="run"))
    replayed = gridsim.load_results(heterogeneous_replay_run()).jobs
    assert (replayed["run_time"] % 1 != 0).any()  # faster nodes: fractional run times
    np.testing.assert_array_equal(log.jobs["start_time"], _whole_seconds(replayed["start_time"]))
    np.testing.assert_array_equal(log.jobs["finish_time"], _whole_seconds(replayed["finish_time"]))
    assert log.header.values("MaxProcs") == ("100",)
    assert log.header.values("Computer")[0].startswith("gridsim node classes: 60 nodes")


def test_a_replay_exports_to_batsim_with_its_node_intervals(tmp_path):
    _export(replay_run(), "--policy", "easy", "--format", "batsim", "-o", tmp_path / "r.csv")
    table = pd.read_csv(tmp_path / "r.csv", keep_default_na=False)
    replayed = select_run(gridsim.load_results(replay_run()).jobs, "easy", 0)
    assert tuple(table.columns) == BATSIM_COLUMNS and len(table) == 150
    np.testing.assert_array_equal(table["allocated_resources"], replayed["allocated_resources"])
    np.testing.assert_array_equal(table["starting_time"], replayed["start_time"])


def test_export_of_a_kind_without_job_traces_is_one_clear_line(tmp_path):
    from analysis_runs import window_search_run

    options = ["--policy", "MaxQ", "--format", "swf", "-o", str(tmp_path / "x.swf")]
    result = CliRunner().invoke(main, ["export", str(window_search_run()), *options])
    assert result.exit_code == 2
    assert result.output.endswith(
        "export reads the results of jobflow and swf_replay scenarios, not window_search\n"
    )
