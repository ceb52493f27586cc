"""The reference backfilling schedulers on hand-worked cases and on KTH-SP2's first 2000 jobs."""

import pandas as pd
import pytest
from reference_backfilling import (
    FreeProfile,
    conservative_backfilling,
    easy_backfilling,
)

from gridsim.workloads.swf import bundled_swf, read_swf


def table(*rows):
    """Jobs from (job_id, submit_time, processors, estimate, run_time) tuples."""
    columns = ["job_id", "submit_time", "processors", "estimate", "run_time"]
    return pd.DataFrame(rows, columns=columns)


def test_profile_finds_the_earliest_window_with_enough_free_processors():
    profile = FreeProfile(4, 0.0)
    profile.add(0, 10, 2)  # 2 free on [0, 10)
    profile.add(10, 20, 3)  # 1 free on [10, 20)
    assert profile.earliest_fit(3, 2, 7) == 3  # [3, 10) has 2 free
    assert profile.earliest_fit(3, 2, 8) == 20  # would run into [10, 20)
    assert profile.earliest_fit(3, 1, 100) == 3
    assert profile.earliest_fit(3, 4, 1) == 20
    with pytest.raises(ValueError, match="never fits"):
        profile.earliest_fit(0, 5, 1)


# Case 1, a machine of 4 processors; every job runs exactly its estimate.
#   job 1 (t=0, 2 procs, 10 s) starts at once; 2 processors stay free until t=10.
#   job 2 (t=1, 3 procs, 10 s) waits for job 1: reserved [10, 20).
#   job 3 (t=2, 4 procs, 5 s) needs the whole machine: after job 2, [20, 25).
#   job 4 (t=3, 1 proc, 30 s) fits now, but would still run at t=20.
#   Conservative: job 4 may not delay job 3's reservation, so it waits for t=25.
#   EASY: only job 2 (the head) is protected; at t=10 one processor is spare beside
#   job 2, so job 4 starts at t=3; job 3 then waits for job 4's end, t=33.
CASE_1 = table((1, 0, 2, 10, 10), (2, 1, 3, 10, 10), (3, 2, 4, 5, 5), (4, 3, 1, 30, 30))


def test_conservative_backfilling_protects_every_reservation():
    schedule = conservative_backfilling(CASE_1, 4)
    assert schedule.start_time == {1: 0, 2: 10, 3: 20, 4: 25}
    assert schedule.first_reservation == {1: 0, 2: 10, 3: 20, 4: 25}


def test_easy_backfilling_protects_only_the_head_of_the_queue():
    assert easy_backfilling(CASE_1, 4).start_time == {1: 0, 2: 10, 3: 33, 4: 3}


# Case 2, a machine of 4 processors; job 1 estimates 10 s but ends at t=4.
#   First reservations: job 2 (2 procs, 5 s) at 10; job 3 (3 procs, 10 s) at 15, after
#   job 2; job 4 (2 procs, 3 s) at 10, beside job 2.
#   At t=4 the queue is compressed in priority order:
#     job 2 -> 4 (the machine is empty);
#     job 3 -> 13: [4, 9) has only 2 free beside job 2, and job 4 still holds [10, 13);
#     job 4 -> 4, beside job 2.
#   One pass only: job 3 is not revisited after job 4 moved, so it stays at 13 although
#   the machine is free from t=9 (when jobs 2 and 4 end exactly at their estimates).
#   EASY at t=4: job 2 starts; job 3 is the head, reserved at 9 (job 2's estimated end);
#   job 4 fits in [4, 7) beside job 2; job 3 starts at 9.
CASE_2 = table((1, 0, 4, 10, 4), (2, 1, 2, 5, 5), (3, 2, 3, 10, 10), (4, 3, 2, 3, 3))


def test_an_early_finish_compresses_reservations_in_priority_order_in_one_pass():
    schedule = conservative_backfilling(CASE_2, 4)
    assert schedule.first_reservation == {1: 0, 2: 10, 3: 15, 4: 10}
    assert schedule.start_time == {1: 0, 2: 4, 3: 13, 4: 4}


def test_easy_starts_the_new_head_at_its_shadow_time_after_an_early_finish():
    assert easy_backfilling(CASE_2, 4).start_time == {1: 0, 2: 4, 3: 9, 4: 4}


# Case 3, a machine of 2 processors: job 1 would run 100 s but estimated 5 s, so it is
# killed at t=5 and job 2 (whole machine) starts then; job 3 (1 proc) cannot start beside
# either and follows job 2 at t=10. Job 4 (whole machine) arrives at t=12, the instant job 3
# ends: completions are handled first, so it starts at once.
CASE_3 = table((1, 0, 2, 5, 100), (2, 1, 2, 5, 5), (3, 2, 1, 2, 2), (4, 12, 2, 1, 1))


@pytest.mark.parametrize("scheduler", [conservative_backfilling, easy_backfilling])
def test_jobs_are_killed_at_their_estimate_and_processors_reused_at_once(scheduler):
    assert scheduler(CASE_3, 2).start_time == {1: 0, 2: 5, 3: 10, 4: 12}


@pytest.fixture(scope="module")
def kth_2000():
    log = read_swf(bundled_swf())
    return log.jobs, log.machine_processors


def processors_in_use_never_exceed(jobs, start_time, machine):
    """Sweep starts and ends (ends first at equal times); return the peak use."""
    events = []
    for job in jobs.itertuples():
        start = start_time[job.job_id]
        end = start + min(job.run_time, job.estimate)
        events += [(start, 1, job.processors), (end, 0, -job.processors)]
    in_use = peak = 0
    for _, _, change in sorted(events):
        in_use += change
        peak = max(peak, in_use)
    return peak <= machine, peak


@pytest.mark.parametrize("scheduler", [conservative_backfilling, easy_backfilling])
def test_kth_first_2000_jobs_respect_submission_and_machine_size(kth_2000, scheduler):
    jobs, machine = kth_2000
    schedule = scheduler(jobs, machine)
    assert set(schedule.start_time) == set(jobs.job_id)
    submit = dict(zip(jobs.job_id, jobs.submit_time, strict=True))
    assert all(schedule.start_time[j] >= submit[j] for j in submit)
    fits, peak = processors_in_use_never_exceed(jobs, schedule.start_time, machine)
    assert fits, peak
    assert peak == machine  # the machine is full at some point: the check is not vacuous


def test_kth_first_2000_jobs_never_start_after_their_first_conservative_reservation(kth_2000):
    jobs, machine = kth_2000
    schedule = conservative_backfilling(jobs, machine)
    late = [j for j, start in schedule.start_time.items() if start > schedule.first_reservation[j]]
    assert late == []
    moved_earlier = sum(
        start < schedule.first_reservation[j] for j, start in schedule.start_time.items()
    )
    assert moved_earlier > 0  # compression did happen
