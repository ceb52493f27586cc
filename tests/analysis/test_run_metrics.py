"""The per-run metrics of a job flow and the paired advantage, computed by hand.

Every published comparison is a mean of these numbers over replications; the experiments'
tests see them only through whole simulations, where a metric off by a clipped term or a
wrong job set would still look plausible. Here each is checked on a trace small enough to
work out on paper: one finished job, one killed (overran), two rejected (too wide, no
window), one failed after its retries, one unfinished.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from gridsim.analysis.jobflow_metrics import job_metrics
from gridsim.analysis.jobflow_stats import (
    RUN_METRICS,
    add_advantage,
    relative_advantage,
    run_metrics,
)

NAN = math.nan
JOB_COLUMNS = [
    "job_id", "submit_time", "first_reservation", "start_time", "finish_time", "run_time",
    "processors", "cost", "delay", "final_state", "retries", "lost_work", "lost_cost",
    "disturbed",
]  # fmt: skip
JOBS = [
    # started 1 earlier than first promised: no start delay
    (1, 0.0, 3.0, 2.0, 12.0, 10.0, 2, 20.0, 0.0, "finished", 0, 0.0, 0.0, False),
    (2, 1.0, 3.0, 5.0, 9.0, 4.0, 1, 8.0, 0.5, "killed", 1, 3.0, 6.0, True),
    (3, 2.0, NAN, NAN, NAN, NAN, 6, NAN, 0.0, "rejected", 0, 0.0, 0.0, False),
    (4, 3.0, NAN, NAN, NAN, NAN, 3, NAN, 0.0, "rejected", 0, 0.0, 0.0, False),
    (5, 4.0, 6.0, NAN, NAN, NAN, 1, NAN, 0.0, "failed", 2, 5.0, 10.0, True),
    (6, 5.0, 20.0, NAN, NAN, NAN, 1, NAN, 0.0, "unfinished", 0, 0.0, 0.0, False),
]
TASKS = [  # (job_id, node, start, end, kind)
    (1, 0, 2.0, 12.0, "job"), (1, 1, 2.0, 12.0, "job"), (2, 2, 5.0, 9.0, "job"),
    (2, 3, 1.0, 4.0, "lost"),
    (-1, 3, -5.0, 2.0, "local_load"),  # 2 inside [first arrival 0, last finish 12]
    (-1, 3, 10.0, 20.0, "local_load"),  # 2 inside
    (-1, 2, 30.0, 40.0, "local_load"),  # none inside
    (-1, 0, 12.0, 13.0, "local_overrun"), (-1, 1, 0.0, 1.0, "down"),  # not announced load
]  # fmt: skip
N_NODES = 4


def jobs(rows=JOBS, threshold: float = 10.0) -> pd.DataFrame:
    """The jobs table with the per-job metrics, as a job flow writes it."""
    return job_metrics(pd.DataFrame(rows, columns=JOB_COLUMNS), threshold)


def tasks(rows=TASKS) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["job_id", "node", "start", "end", "kind"])


def test_each_metric_of_a_small_trace_is_the_one_worked_out_by_hand():
    metrics = run_metrics(jobs(), tasks(), N_NODES)
    assert list(metrics) == RUN_METRICS
    assert metrics == {
        "mean_finish": (12 + 9) / 2,
        "makespan": 12.0,  # first arrival 0, last finish 12
        "mean_wait": (2 + 4) / 2,
        "mean_response": (12 + 8) / 2,
        "mean_slowdown": (12 / 10 + 8 / 4) / 2,
        "mean_bounded_slowdown": (12 / 10 + 1) / 2,  # job 2: max(1, 8 / max(4, 10))
        "total_cost": 28.0,
        "mean_cost": 14.0,
        "utilisation": (10 + 10 + 4) / (4 * 12 - 4),  # job node-time / node-time not local
        "jobs_finished": 1,
        "jobs_not_finished": 5,
        "delayed_jobs": 1,
        "disturbed_share": 2 / 4,  # of the jobs not rejected
        "mean_start_delay": (0 + 2) / 2,  # over the jobs that ran; an early start counts 0
        "lost_work": 8.0,
        "retries": 3,
        "jobs_failed": 1,
        "total_cost_with_losses": 28.0 + 6 + 10,
        "jobs_rejected_too_wide": 1,  # 6 nodes of 4
        "jobs_rejected_no_window": 1,
    }


def test_the_bounded_slowdown_threshold_is_the_one_given():
    metrics = run_metrics(jobs(threshold=2.0), tasks(), N_NODES)
    assert metrics["mean_bounded_slowdown"] == (12 / 10 + 8 / 4) / 2


def test_a_run_in_which_no_job_ran_has_no_means_and_zero_totals():
    rows = [row for row in JOBS if row[9] not in ("finished", "killed")]
    metrics = run_metrics(jobs(rows), tasks(TASKS[4:]), N_NODES)
    for name in ("mean_finish", "mean_wait", "mean_slowdown", "mean_bounded_slowdown",
                 "mean_cost", "mean_start_delay", "utilisation"):  # fmt: skip
        assert math.isnan(metrics[name]), name
    assert metrics["makespan"] == 0.0
    assert (metrics["total_cost"], metrics["total_cost_with_losses"]) == (0.0, 10.0)
    assert (metrics["jobs_finished"], metrics["jobs_not_finished"]) == (0, 4)
    assert metrics["disturbed_share"] == 1 / 2


def test_a_run_of_rejected_jobs_only_has_no_disturbed_share():
    metrics = run_metrics(jobs(JOBS[2:4]), tasks([]), N_NODES)
    assert math.isnan(metrics["disturbed_share"])
    assert (metrics["jobs_rejected_too_wide"], metrics["jobs_rejected_no_window"]) == (1, 1)


def test_a_job_asking_for_exactly_every_node_is_rejected_for_want_of_a_window():
    rows = [(*JOBS[3][:6], N_NODES, *JOBS[3][7:])]
    metrics = run_metrics(jobs(rows), tasks([]), N_NODES)
    assert (metrics["jobs_rejected_too_wide"], metrics["jobs_rejected_no_window"]) == (0, 1)


def test_the_first_arrival_counts_even_when_that_job_did_not_run():
    # Job 1 left out: the first arrival is job 2's at 1, the rejected job 3 arrives at 2.
    metrics = run_metrics(jobs(JOBS[1:]), tasks(TASKS[2:]), N_NODES)
    assert metrics["makespan"] == 9.0 - 1.0
    local = (2 - 1) + 0  # node 3's [-5, 2) inside [1, 9); its [10, 20) after the last finish
    assert metrics["utilisation"] == 4 / (4 * 8 - local)


def test_an_empty_flow_has_a_makespan_of_zero_and_no_utilisation():
    metrics = run_metrics(jobs([]), tasks([]), N_NODES)
    assert metrics["makespan"] == 0.0 and math.isnan(metrics["utilisation"])
    assert (metrics["jobs_finished"], metrics["total_cost"]) == (0, 0.0)


def test_utilisation_over_less_than_one_unit_of_node_time():
    rows = [(1, 0.0, 0.0, 0.0, 0.5, 0.5, 1, 1.0, 0.0, "finished", 0, 0.0, 0.0, False)]
    metrics = run_metrics(jobs(rows), tasks([(1, 0, 0.0, 0.5, "job")]), 1)
    assert metrics["utilisation"] == 1.0


RUNS = pd.DataFrame({
    "load": [0.0, 0.0, 0.0, 0.0, 0.5, 0.5],
    "replication": [0, 0, 1, 1, 0, 0],
    "policy": ["A", "B", "A", "B", "A", "B"],
    "mean_finish": [100.0, 90.0, 200.0, 210.0, 50.0, 40.0],
    "total_cost": [10.0, 20.0, 10.0, 5.0, 4.0, 2.0],
})  # fmt: skip


def test_the_advantage_is_paired_on_the_same_instance_and_positive_when_smaller():
    out = add_advantage(RUNS, "A", axes=["load"])
    assert out["finish_advantage_pct"].tolist() == [0.0, 10.0, 0.0, -5.0, 0.0, 20.0]
    assert out.drop(columns="finish_advantage_pct").equals(RUNS)  # a copy; nothing else moves
    assert "finish_advantage_pct" not in RUNS


def test_the_advantage_of_another_metric_and_under_another_name():
    out = add_advantage(RUNS, "B", metric="total_cost", axes=["load"])
    assert out["total_cost_advantage_pct"].tolist() == [50.0, 0.0, -100.0, 0.0, -100.0, 0.0]
    named = add_advantage(RUNS, "A", column="gain", axes=["load"])
    assert named["gain"].tolist() == [0.0, 10.0, 0.0, -5.0, 0.0, 20.0]


def test_a_baseline_that_is_not_in_the_results_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"baseline policy 'C' is not in the results"):
        add_advantage(RUNS, "C", axes=["load"])


def test_an_instance_without_a_baseline_run_has_no_advantage():
    runs = pd.concat([RUNS, RUNS.iloc[[1]].assign(replication=2)], ignore_index=True)
    out = add_advantage(runs, "A", axes=["load"])
    assert out["finish_advantage_pct"].iloc[:6].tolist() == [0.0, 10.0, 0.0, -5.0, 0.0, 20.0]
    assert math.isnan(out["finish_advantage_pct"].iloc[6])


def test_advantages_are_averaged_per_point_and_policy_in_the_order_of_the_runs():
    table = relative_advantage(RUNS, "A", axes=["load"])
    assert table[["load", "policy", "runs"]].values.tolist() == [
        [0.0, "A", 2], [0.0, "B", 2], [0.5, "A", 1], [0.5, "B", 1],
    ]  # fmt: skip
    assert table["advantage_pct"].tolist() == [0.0, 2.5, 0.0, 20.0]
    first_b = relative_advantage(RUNS.iloc[::-1], "A", axes=["load"])
    assert first_b[["load", "policy"]].values.tolist()[0] == [0.5, "B"]


def test_advantages_of_another_metric_and_at_a_point_whose_field_is_missing():
    runs = RUNS.assign(load=[None, None, None, None, 0.5, 0.5])
    table = relative_advantage(runs, "A", metric="total_cost", axes=["load"])
    assert table["policy"].tolist() == ["A", "B", "A", "B"]
    assert table["load"].isna().tolist() == [True, True, False, False]
    assert table["advantage_pct"].tolist() == [0.0, -25.0, 0.0, 50.0]
