"""The Tsafrir-Etsion-Feitelson estimate model against what its paper reports and its
reference implementation defines: 20 values for 89% of the jobs (the abstract: "about
90%"), the largest allowed estimate the most popular, the number of distinct values of the
bin-count model, every estimate at least its job's run time, the user's hint kept."""

from __future__ import annotations

import numpy as np
import pytest

from gridsim.workloads.lublin import LublinParameters, lublin_jobs
from gridsim.workloads.tsafrir import (
    HOUR,
    JOINT,
    MINUTE,
    bin_count,
    estimate_distribution,
    head_sizes,
    head_times,
    tsafrir_estimates,
)


def test_the_bin_count_model_goes_through_its_points_and_stays_flat_beyond():
    for jobs, bins in ((0, 0), (20, 10), (200, 20), (1000, 35), (10_000, 90), (70_000, 340),
                       (250_000, 565), (10**6, 565)):  # fmt: skip
        assert bin_count(jobs) == bins
    assert bin_count(600) == 28  # halfway between (200, 20) and (1000, 35), rounded


def test_the_head_holds_the_largest_the_joint_values_below_it_and_round_ones():
    head = head_times(36 * HOUR)
    assert len(head) == 20 and head[0] == 36 * HOUR and head[1:] == sorted(head[1:])
    assert set(JOINT) <= set(head)  # all 15 are below 36 h
    # multiples of 10 h, then of 5 h, counted down from 36 h: 30, 20, then 35, 25
    assert set(head) - set(JOINT) - {36 * HOUR} == {20 * HOUR, 25 * HOUR, 30 * HOUR, 35 * HOUR}
    short = head_times(2 * HOUR)  # 5, 10, 15, 20, 30 min and 1 h are below 2 h
    fill = {40, 50, 65, 70, 75, 80, 85, 90, 95, 100, 105, 110, 115}  # 20, 10, 5 min steps
    assert set(short) == {2 * HOUR, HOUR, *(m * MINUTE for m in (5, 10, 15, 20, 30, *fill))}
    with pytest.raises(ValueError, match="at least an hour"):
        head_times(30 * MINUTE)


def test_the_head_takes_89_percent_and_the_user_s_share_is_the_largest_estimate_s():
    assert sum(head_sizes(20, None)) == pytest.approx(89.0)
    sizes = head_sizes(20, 30.0)
    assert sizes[0] == 30.0 and sum(sizes) == pytest.approx(89.0)


@pytest.mark.parametrize("jobs", [500, 10_000])
def test_generated_estimates_are_modal_as_the_paper_reports(jobs):
    flow = lublin_jobs(
        np.random.default_rng(3),
        jobs,
        LublinParameters(machine_processors=256, job_classes="typeless"),
    )
    largest = 36 * HOUR
    estimates = tsafrir_estimates(np.random.default_rng(4), flow.run_time.to_numpy(), largest)
    values, counts = np.unique(estimates, return_counts=True)
    ranked = values[np.argsort(-counts, kind="stable")]
    head = np.isin(estimates, head_times(largest))
    assert len(values) == bin_count(jobs)
    assert abs(head.mean() - 0.89) < 0.015  # "20 values ... about 90% of the jobs"
    if jobs >= 10_000:  # with few jobs, a tail value's one or two jobs can outnumber a head's
        assert abs(np.sort(counts)[::-1][:20].sum() / jobs - 0.89) < 0.005
    assert ranked[0] == largest  # the largest allowed estimate is the most popular
    assert (estimates >= np.minimum(flow.run_time, largest)).all()
    assert set(head_times(largest)) <= set(values)


def _run_times(jobs: int, seed: int = 1) -> np.ndarray:
    flow = lublin_jobs(np.random.default_rng(seed), jobs, LublinParameters())
    return flow.run_time.to_numpy()


def test_the_share_of_the_largest_estimate_is_kept_when_given():
    estimates = tsafrir_estimates(np.random.default_rng(2), _run_times(5000), 48 * HOUR, 40.0)
    assert abs((estimates == 48 * HOUR).mean() - 0.40) < 0.002


def test_the_same_seed_gives_the_same_estimates_and_the_order_is_the_jobs():
    run_time = _run_times(2000, seed=5)
    first = tsafrir_estimates(np.random.default_rng(9), run_time, 48 * HOUR)
    assert np.array_equal(first, tsafrir_estimates(np.random.default_rng(9), run_time, 48 * HOUR))
    shuffled = np.random.default_rng(0).permutation(len(run_time))
    again = tsafrir_estimates(np.random.default_rng(9), run_time[shuffled], 48 * HOUR)
    assert (again >= run_time[shuffled]).all()
    times, counts = estimate_distribution(np.random.default_rng(9), 2000, 12 * HOUR)
    assert counts.sum() == 2000 and (counts >= 1).all() and len(times) == bin_count(2000)


def test_too_many_long_jobs_for_the_model_are_refused_saying_what_to_give():
    run_time = np.repeat([20 * HOUR, 1.0], 500)  # half the jobs near the largest
    with pytest.raises(ValueError, match=r"cannot cover \d+ jobs' run times .* give a larger"):
        tsafrir_estimates(np.random.default_rng(0), run_time, 24 * HOUR)
    hinted = tsafrir_estimates(np.random.default_rng(0), run_time, 24 * HOUR, 60.0)
    assert (hinted >= run_time).all() and (hinted == 24 * HOUR).sum() == 600
