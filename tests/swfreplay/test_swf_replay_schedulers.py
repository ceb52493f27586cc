"""FCFS, EASY and conservative backfilling on a processor count against the reference."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.sim.log_replay import node_intervals, replay_log
from gridsim.workloads.swf import bundled_swf, read_swf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workloads"))
from reference_backfilling import conservative_backfilling, easy_backfilling

REFERENCE = {"conservative": conservative_backfilling, "easy": easy_backfilling}


def table(*rows):
    """Jobs from (job_id, submit_time, processors, estimate, run_time) tuples."""
    jobs = pd.DataFrame(rows, columns=["job_id", "submit_time", "processors", "estimate",
                                       "run_time"])  # fmt: skip
    return jobs.assign(duration=np.minimum(jobs.run_time, jobs.estimate))


def starts(jobs, machine, algorithm):
    replay = replay_log(jobs, machine, algorithm)
    return dict(zip(jobs.job_id.tolist(), replay.start_time.tolist(), strict=True))


# The hand-worked cases of tests/workloads/test_reference_backfilling.py (explained there).
CASE_1 = table((1, 0, 2, 10, 10), (2, 1, 3, 10, 10), (3, 2, 4, 5, 5), (4, 3, 1, 30, 30))
CASE_2 = table((1, 0, 4, 10, 4), (2, 1, 2, 5, 5), (3, 2, 3, 10, 10), (4, 3, 2, 3, 3))
CASE_3 = table((1, 0, 2, 5, 100), (2, 1, 2, 5, 5), (3, 2, 1, 2, 2), (4, 12, 2, 1, 1))


def test_conservative_backfilling_protects_every_reservation():
    assert starts(CASE_1, 4, "conservative") == {1: 0, 2: 10, 3: 20, 4: 25}


def test_easy_backfilling_protects_only_the_head_of_the_queue():
    assert starts(CASE_1, 4, "easy") == {1: 0, 2: 10, 3: 33, 4: 3}


def test_fcfs_never_lets_a_job_overtake_the_head():
    # job 4 would fit at t=3 beside job 1, but jobs 2 and 3 are ahead of it
    assert starts(CASE_1, 4, "fcfs") == {1: 0, 2: 10, 3: 20, 4: 25}
    # job 3 (3 procs) waits for job 2; job 4 (2 procs) fits beside job 2 but waits behind 3
    assert starts(CASE_2, 4, "fcfs") == {1: 0, 2: 4, 3: 9, 4: 19}


def test_an_early_finish_compresses_reservations_in_one_pass():
    replay = replay_log(CASE_2, 4, "conservative")
    assert replay.first_reservation.tolist() == [0, 10, 15, 10]
    assert replay.start_time.tolist() == [0, 4, 13, 4]
    assert replay.counters["compression_moves"] == 3


def test_easy_starts_the_new_head_at_its_shadow_time():
    assert starts(CASE_2, 4, "easy") == {1: 0, 2: 4, 3: 9, 4: 4}


@pytest.mark.parametrize("algorithm", ["fcfs", "easy", "conservative"])
def test_jobs_are_killed_at_their_estimate_and_processors_reused_at_once(algorithm):
    assert starts(CASE_3, 2, algorithm) == {1: 0, 2: 5, 3: 10, 4: 12}


def test_each_job_gets_distinct_free_node_ids_at_its_start():
    replay = replay_log(CASE_1, 4, "easy")
    assert [len(nodes) for nodes in replay.nodes] == [2, 3, 4, 1]
    assert set(replay.nodes[0]).isdisjoint(replay.nodes[3])  # jobs 1 and 4 run together
    assert node_intervals((0, 1, 2, 3, 5, 7, 8)) == "0-3 5 7-8"


def test_a_job_larger_than_the_machine_is_an_error():
    with pytest.raises(ValueError, match="needs 5 processors; the machine has 4"):
        replay_log(table((1, 0, 5, 1, 1)), 4, "easy")


@pytest.fixture(scope="module")
def kth_2000():
    log = read_swf(bundled_swf())
    return log.jobs, log.machine_processors


@pytest.mark.parametrize("algorithm", ["conservative", "easy"])
def test_kth_first_2000_jobs_start_exactly_when_the_reference_starts_them(kth_2000, algorithm):
    jobs, machine = kth_2000
    expected = REFERENCE[algorithm](jobs, machine)
    replay = replay_log(jobs, machine, algorithm)
    got = dict(zip(jobs.job_id.tolist(), replay.start_time.tolist(), strict=True))
    assert got == expected.start_time
    if algorithm == "conservative":
        first = dict(zip(jobs.job_id.tolist(), replay.first_reservation.tolist(), strict=True))
        assert first == expected.first_reservation


@pytest.mark.parametrize("algorithm", ["fcfs", "easy", "conservative"])
def test_kth_replays_keep_the_invariants(kth_2000, algorithm):
    jobs, machine = kth_2000
    replay = replay_log(jobs, machine, algorithm)
    start = replay.start_time
    assert (start >= jobs.submit_time.to_numpy()).all()
    assert replay.peak_processors == machine  # never more; full at some point
    if algorithm == "conservative":
        assert (start <= replay.first_reservation).all()
        assert (start < replay.first_reservation).any()  # compression did happen
    # node ids: no node runs two jobs at once
    busy_until = {}
    for job in np.argsort(start, kind="stable"):
        for node in replay.nodes[job]:
            assert busy_until.get(node, -np.inf) <= start[job]
            busy_until[node] = start[job] + jobs.duration.iloc[job]
    if algorithm == "fcfs":  # starts follow arrival order
        assert (np.diff(start) >= 0).all()


workloads = st.lists(
    st.tuples(st.integers(0, 40), st.integers(1, 6), st.integers(1, 30), st.integers(1, 40)),
    min_size=1,
    max_size=25,
)


@settings(max_examples=examples(150), deadline=None)
@given(workloads, st.sampled_from(["conservative", "easy"]))
def test_random_workloads_start_exactly_when_the_reference_starts_them(rows, algorithm):
    jobs = table(*[(i, *row) for i, row in enumerate(rows)])
    assert starts(jobs, 6, algorithm) == REFERENCE[algorithm](jobs, 6).start_time


@settings(max_examples=examples(150), deadline=None)
@given(workloads, st.sampled_from(["conservative", "easy"]))
def test_completions_handled_separately_start_jobs_as_the_reference_does(rows, algorithm):
    jobs = table(*[(i, *row) for i, row in enumerate(rows)])
    replay = replay_log(jobs, 6, algorithm, completions_order="separately")
    got = dict(zip(jobs.job_id.tolist(), replay.start_time.tolist(), strict=True))
    assert got == REFERENCE[algorithm](jobs, 6, completions="separately").start_time


# Jobs 1 (2 processors) and 2 (1) end at t=4, six seconds before their estimates. Job 3 needs
# the whole machine, job 4 half of it for 4 s. Released together, the 4 free processors go to
# job 3 first (priority); released one at a time, job 1's 2 processors (3 free with the one
# idle) cannot hold job 3, so job 4 takes them, and job 3 waits for job 4.
SAME_INSTANT = table((1, 0, 2, 10, 4), (2, 0, 1, 10, 4), (3, 2, 4, 9, 4), (4, 3, 2, 4, 4))


def test_the_order_of_completions_at_one_instant_is_a_named_option():
    together = starts(SAME_INSTANT, 4, "conservative")
    replay = replay_log(SAME_INSTANT, 4, "conservative", completions_order="separately")
    separately = dict(zip(SAME_INSTANT.job_id.tolist(), replay.start_time.tolist(), strict=True))
    assert together == {1: 0, 2: 0, 3: 4, 4: 8}
    assert separately == {1: 0, 2: 0, 3: 8, 4: 4}  # the same total wait, shared differently
    with pytest.raises(ValueError, match="completions_order among"):
        replay_log(SAME_INSTANT, 4, "easy", completions_order="one by one")


def test_easy_starts_jobs_after_each_completion_when_they_are_handed_over_one_at_a_time():
    # Together, the 4 free processors go to the head, job 3. One at a time: after job 1's
    # end, 3 are free; job 3 (the head) waits for job 2's estimate (10), and job 4, ending
    # by 8, starts at once; after job 2's end job 3 waits for job 4.
    together = starts(SAME_INSTANT, 4, "easy")
    replay = replay_log(SAME_INSTANT, 4, "easy", completions_order="separately")
    separately = dict(zip(SAME_INSTANT.job_id.tolist(), replay.start_time.tolist(), strict=True))
    assert together == {1: 0, 2: 0, 3: 4, 4: 8}
    assert separately == {1: 0, 2: 0, 3: 8, 4: 4}
