"""Job-flow metrics checked against hand computations on a three-job table."""

import numpy as np
import pandas as pd
import pytest
from pytest import approx

from gridsim.analysis.jobflow_metrics import (
    job_metrics,
    jobflow_summary,
    per_user_summary,
)
from gridsim.workloads.swf import bundled_swf, read_swf

# A machine of 4 processors.
#   job 1, user 1: submitted 0, runs [0, 5) on 2 processors.
#   job 2, user 1: submitted 2, runs [5, 25) on 4 processors, killed at its estimate.
#   job 3, user 2: submitted 4, runs [25, 26) on 1 processor.
JOBS = pd.DataFrame(
    {
        "job_id": [1, 2, 3],
        "user_id": [1, 1, 2],
        "submit_time": [0.0, 2.0, 4.0],
        "start_time": [0.0, 5.0, 25.0],
        "finish_time": [5.0, 25.0, 26.0],
        "run_time": [5.0, 20.0, 1.0],
        "processors": [2, 4, 1],
        "killed": [False, True, False],
    }
)


def test_per_job_wait_response_slowdown_and_bounded_slowdown():
    metrics = job_metrics(JOBS)
    assert list(metrics.wait_time) == [0, 3, 21]
    assert list(metrics.response_time) == [5, 23, 22]
    assert list(metrics.slowdown) == approx([5 / 5, 23 / 20, 22 / 1])
    # bounded: response / max(run, 10), at least 1
    assert list(metrics.bounded_slowdown) == approx([1.0, 23 / 20, 22 / 10])
    assert list(job_metrics(JOBS, bounded_slowdown_threshold=30).bounded_slowdown) == [1, 1, 1]


def test_overall_aggregates():
    summary = jobflow_summary(JOBS, machine_processors=4)
    assert summary.jobs == 3
    assert summary.mean_wait_time == approx(24 / 3)
    assert summary.mean_response_time == approx(50 / 3)
    assert summary.mean_slowdown == approx((1 + 1.15 + 22) / 3)
    assert summary.mean_bounded_slowdown == approx((1 + 1.15 + 2.2) / 3)
    assert summary.processor_seconds == 2 * 5 + 4 * 20 + 1 * 1
    assert summary.utilisation == approx(91 / (4 * 26))
    assert summary.makespan == 26
    assert summary.killed_jobs == 1


def test_per_user_aggregates_add_up_to_the_overall_utilisation():
    users = per_user_summary(JOBS, machine_processors=4)
    assert list(users.index) == [1, 2]
    assert list(users.jobs) == [2, 1]
    assert list(users.mean_wait_time) == approx([1.5, 21])
    assert list(users.mean_response_time) == approx([14, 22])
    assert list(users.mean_bounded_slowdown) == approx([(1 + 1.15) / 2, 2.2])
    assert list(users.utilisation) == approx([90 / 104, 1 / 104])
    assert list(users.makespan) == [25 - 0, 26 - 4]
    assert list(users.killed_jobs) == [1, 0]
    assert users.utilisation.sum() == approx(jobflow_summary(JOBS, 4).utilisation)


def test_inconsistent_or_incomplete_tables_are_rejected():
    with pytest.raises(ValueError, match=r"need columns \['processors'\]"):
        job_metrics(JOBS.drop(columns="processors"))
    with pytest.raises(ValueError, match="job 2: run_time differs from finish_time - start_time"):
        job_metrics(JOBS.assign(run_time=[5.0, 19.0, 1.0]))
    with pytest.raises(ValueError, match="job 3 starts before it is submitted"):
        job_metrics(JOBS.assign(submit_time=[0.0, 2.0, 30.0]))
    with pytest.raises(ValueError, match="positive bounded slowdown threshold"):
        job_metrics(JOBS, bounded_slowdown_threshold=0)
    with pytest.raises(ValueError, match="positive machine size"):
        jobflow_summary(JOBS, machine_processors=0)


def test_a_read_log_has_the_columns_and_a_plausible_utilisation():
    log = read_swf(bundled_swf())
    summary = jobflow_summary(log.jobs, log.machine_processors)
    assert summary.jobs == 2000 and summary.killed_jobs == 0
    assert 0 < summary.utilisation <= 1
    assert summary.mean_bounded_slowdown >= 1


def test_the_span_runs_from_the_first_submission_not_from_time_zero():
    later = JOBS.assign(**{c: JOBS[c] + 100 for c in ("submit_time", "start_time", "finish_time")})
    summary = jobflow_summary(later, machine_processors=4)
    assert summary.makespan == 26 and summary.utilisation == approx(91 / (4 * 26))
    users = per_user_summary(later, machine_processors=4)
    assert list(users.utilisation) == approx([90 / 104, 1 / 104])


def test_the_summaries_use_the_threshold_given():
    assert jobflow_summary(JOBS, 4, bounded_slowdown_threshold=30).mean_bounded_slowdown == 1
    users = per_user_summary(JOBS, 4, bounded_slowdown_threshold=30)
    assert list(users.mean_bounded_slowdown) == [1, 1]


def test_one_job_on_one_processor_and_a_span_shorter_than_a_second():
    job = JOBS.iloc[[2]].assign(submit_time=25.0, run_time=0.5, finish_time=25.5)
    summary = jobflow_summary(job, machine_processors=1)
    assert (summary.name, summary.jobs, summary.utilisation) == ("all", 1, 1.0)
    assert per_user_summary(job, machine_processors=1).utilisation.tolist() == [1.0]


def test_a_schedule_of_zero_length_has_no_utilisation_and_a_zero_run_an_infinite_slowdown():
    waited = JOBS.iloc[[0]].assign(start_time=2.0, finish_time=2.0, run_time=0.0)
    metrics = job_metrics(waited)
    assert metrics.slowdown.tolist() == [float("inf")] and metrics.bounded_slowdown.tolist() == [1]
    job = JOBS.iloc[[0]].assign(finish_time=0.0, run_time=0.0)
    assert np.isnan(job_metrics(job).slowdown.iloc[0])  # 0 / 0: no slowdown to speak of
    summary = jobflow_summary(job, machine_processors=4)
    assert summary.makespan == 0 and np.isnan(summary.utilisation)


def test_users_are_listed_by_id_with_unknown_users_kept():
    jobs = JOBS.assign(user_id=[7.0, np.nan, 3.0])
    users = per_user_summary(jobs, machine_processors=4)
    assert users.index.name == "user_id"
    assert users.index[:2].tolist() == [3.0, 7.0] and np.isnan(users.index[2])
    assert users.jobs.tolist() == [1, 1, 1]
    assert users.processor_seconds.tolist() == [1, 10, 80]


def test_more_tables_that_are_rejected_with_the_reason():
    with pytest.raises(
        ValueError, match=r"^jobflow metrics need known submit, start, finish and run times$"
    ):
        job_metrics(JOBS.assign(start_time=[0.0, np.nan, 25.0]))
    with pytest.raises(ValueError, match=r"^jobflow metrics need at least one job$"):
        jobflow_summary(JOBS.iloc[:0], machine_processors=4)
    with pytest.raises(ValueError, match="positive machine size, got 0"):
        per_user_summary(JOBS, machine_processors=0)
    with pytest.raises(ValueError, match="positive bounded slowdown threshold, got -1"):
        job_metrics(JOBS, bounded_slowdown_threshold=-1)
    assert job_metrics(JOBS, bounded_slowdown_threshold=0.5).bounded_slowdown.tolist() == (
        approx([1.0, 23 / 20, 22 / 1])
    )


def test_run_times_are_checked_to_a_millionth_relative_or_absolute_below_one_second():
    long = JOBS.assign(finish_time=[5.0, 2e6 + 5, 26.0], run_time=[5.0, 2e6, 1.0])
    job_metrics(long.assign(run_time=[5.0, 2e6 - 1.9, 1.0]))  # within 1e-6 of 2e6: 2
    with pytest.raises(ValueError, match="job 2: run_time differs"):
        job_metrics(long.assign(run_time=[5.0, 2e6 - 2.1, 1.0]))
    job_metrics(JOBS.assign(run_time=[5.0, 20.0, 1.0 - 0.9e-6]))  # 1e-6 absolute below 1
    with pytest.raises(ValueError, match="job 3: run_time differs"):
        job_metrics(JOBS.assign(run_time=[5.0, 20.0, 1.0 - 1.1e-6]))
    half = JOBS.assign(finish_time=[5.0, 25.0, 25.5], run_time=[5.0, 20.0, 0.5])
    with pytest.raises(ValueError, match="job 3: run_time differs"):
        job_metrics(half.assign(run_time=[5.0, 20.0, 0.5 - 1.5e-6]))


def test_a_jobs_table_with_final_states_counts_only_the_jobs_that_ran():
    table = pd.DataFrame({
        "job_id": [1, 2, 3, 4], "user_id": -1, "submit_time": [0.0, 1.0, 2.0, 3.0],
        "start_time": [0.0, 2.0, None, 4.0], "finish_time": [5.0, 4.0, None, 9.0],
        "run_time": [5.0, 2.0, None, 5.0], "processors": [2, 1, 3, 1],
        "final_state": ["finished", "killed", "rejected", "finished"],
    })  # fmt: skip
    metrics = job_metrics(table)
    assert metrics.wait_time.tolist()[:2] == [0.0, 1.0] and metrics.wait_time[3] == 1.0
    assert metrics.loc[2, ["wait_time", "response_time", "bounded_slowdown"]].isna().all()
    summary = jobflow_summary(table, 4)
    assert (summary.jobs, summary.killed_jobs) == (3, 1)
    assert summary.mean_wait_time == (0 + 1 + 1) / 3


def test_per_user_rows_are_exactly_the_summary_of_each_users_jobs():
    rng = np.random.default_rng(4)
    count = 3000
    submit = np.cumsum(rng.exponential(50.0, count))
    start = submit + rng.exponential(500.0, count) * rng.integers(0, 2, count)
    run_time = rng.exponential(300.0, count) * rng.integers(0, 4, count)  # some 0: NaN slowdown
    jobs = pd.DataFrame(
        {
            "job_id": np.arange(count),
            "user_id": np.where(rng.random(count) < 0.05, np.nan, rng.integers(0, 60, count)),
            "submit_time": submit,
            "start_time": start,
            "finish_time": start + run_time,
            "run_time": run_time,
            "processors": rng.integers(1, 65, count),
            "killed": rng.random(count) < 0.1,
        }
    )
    users = per_user_summary(jobs, machine_processors=64)
    span = float(jobs.finish_time.max() - jobs.submit_time.min())
    for user, row in users.iterrows():
        mine = jobs[jobs.user_id.isna()] if np.isnan(user) else jobs[jobs.user_id == user]
        alone = jobflow_summary(mine, machine_processors=64)  # its utilisation: its own span
        expected = alone.drop("utilisation").astype(float)
        assert row.drop("utilisation").astype(float).equals(expected), user  # bit for bit
        assert row.utilisation == alone.processor_seconds / (64 * span)
