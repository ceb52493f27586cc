"""Job-flow metrics checked against hand computations on a three-job table."""

import pandas as pd
import pytest
from pytest import approx

from gridsim.analysis.jobflow_metrics import job_metrics, jobflow_summary, per_user_summary
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
    with pytest.raises(ValueError, match=r"need columns \['killed'\]"):
        job_metrics(JOBS.drop(columns="killed"))
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
