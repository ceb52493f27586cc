"""ALP and AMP on hand-built slot lists [TYTB11, Sec. 3]."""

from __future__ import annotations

import math

import numpy as np

from gridsim.scheduling.batch import BatchJob, alp, amp
from gridsim.workloads.batch_generators import slot_list_profile


def table(*slots):
    """Slot table from (start, end, performance, price), one node per slot in that order."""
    starts, ends, performance, price = (
        np.array(column, dtype=float) for column in zip(*slots, strict=True)
    )
    return slot_list_profile(starts, ends, performance, price).slot_table()


def test_tasks_start_together_and_a_faster_node_finishes_earlier():
    slots = table((0, 100, 1.0, 1.0), (0, 100, 2.0, 2.0))
    window = alp(slots, BatchJob(n=2, runtime=60, min_performance=1.0, price_cap=10))
    assert window.start == 0
    assert window.nodes == (0, 1)
    assert window.runtimes == (60.0, 30.0)
    assert window.finishes == (60.0, 30.0)
    assert window.time == 60.0
    assert window.cost == 1.0 * 60 + 2.0 * 30


def test_a_length_read_as_work_lasts_work_over_performance_on_every_node():
    slots = table((0, 100, 1.5, 1.0), (0, 100, 3.0, 2.0))
    job = BatchJob(n=2, runtime=60, min_performance=1.5, price_cap=10, length_is_work=True)
    window = alp(slots, job)
    assert window.runtimes == (40.0, 20.0)  # t / p, not t * P / p (60 and 30)
    assert job.task_runtime(3.0) == 20.0
    assert BatchJob(2, 60, 1.5, 10).task_runtime(3.0) == 30.0


def test_a_slot_too_short_for_the_later_window_start_expires():
    # Slot 0 holds a 50-long task only if the window starts by 10; slot 1 moves it to 20.
    slots = table((0, 60, 1.0, 1.0), (20, 100, 1.0, 1.0), (30, 90, 1.0, 1.0))
    window = alp(slots, BatchJob(n=2, runtime=50, min_performance=1.0, price_cap=10))
    assert (window.start, window.nodes) == (30, (1, 2))


def test_alp_skips_a_dear_slot_that_amp_takes_within_the_window_budget():
    slots = table((0, 100, 1.0, 5.0), (0, 100, 1.0, 1.0), (50, 100, 1.0, 2.0))
    job = BatchJob(n=2, runtime=10, min_performance=1.0, price_cap=3.0)
    assert job.budget == 3.0 * 10 * 2
    assert (alp(slots, job).start, alp(slots, job).nodes) == (50, (1, 2))
    assert (amp(slots, job).start, amp(slots, job).nodes) == (0, (0, 1))
    assert amp(slots, job).cost == 60.0


def test_amp_keeps_the_cheapest_n_candidates_once_they_fit_the_budget():
    # At time 0 the two candidates cost 60 + 50 > 60; slot 2 joins at 5 and 50 + 10 fits.
    slots = table((0, 100, 1.0, 6.0), (0, 100, 1.0, 5.0), (5, 100, 1.0, 1.0))
    window = amp(slots, BatchJob(n=2, runtime=10, min_performance=1.0, price_cap=3.0))
    assert (window.start, window.nodes, window.cost) == (5, (1, 2), 60.0)


def test_only_fast_enough_nodes_with_room_for_their_task_are_used():
    slots = table((0, 500, 1.5, 1.0), (0, 49, 4.0, 1.0), (10, 60, 4.0, 1.0))
    window = alp(slots, BatchJob(n=1, runtime=100, min_performance=2.0, price_cap=10))
    assert (window.start, window.nodes, window.runtimes) == (10, (2,), (50.0,))


def test_running_out_of_slots_finds_nothing():
    slots = table((0, 100, 1.0, 1.0), (0, 100, 1.0, 9.0))
    job = BatchJob(n=2, runtime=10, min_performance=1.0, price_cap=2.0)
    assert alp(slots, job) is None
    assert amp(slots, job) is None  # 10 + 90 > budget 40
    assert math.isclose(job.budget, 40.0)


def test_alp_takes_a_slot_priced_exactly_at_the_cap_and_amp_a_window_exactly_at_its_budget():
    slots = table((0, 100, 1.0, 3.0), (0, 100, 1.0, 3.0), (40, 100, 1.0, 1.0))
    job = BatchJob(n=2, runtime=10, min_performance=1.0, price_cap=3.0)
    assert (alp(slots, job).start, alp(slots, job).nodes) == (0, (0, 1))
    assert (amp(slots, job).start, amp(slots, job).cost) == (0, job.budget)
