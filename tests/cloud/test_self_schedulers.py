"""Building a run's self-scheduler from its policy, and equal chunks handed to free pilots
(gridsim.cloud.selfscheduling)."""

import numpy as np

from gridsim.cloud.config import DyTSSPolicy, EqualChunksPolicy
from gridsim.cloud.dytss import DyTSS
from gridsim.cloud.selfscheduling import EqualChunks, SchedulerState, build_self_scheduler
from gridsim.cloud.turnaround import NAGANO, MiddlewareIntervals


def state(free, unassigned) -> SchedulerState:
    count = len(free)
    return SchedulerState(time_s=0.0, pilot_ids=np.arange(10, 10 + count),
                          performance_w=np.full(count, 1000.0), bandwidth_mb_s=np.ones(count),
                          free=np.array(free), samples_unassigned=unassigned,
                          samples_not_completed=unassigned)  # fmt: skip


def test_every_setting_of_a_dytss_policy_reaches_the_scheduler():
    policy = DyTSSPolicy(name="DyTSS", L=10, M=20, max_iterations=7, fit_points=9,
                         new_pilot_rule="faster_than_slowest",
                         remaining_samples="not_completed")  # fmt: skip
    intervals = MiddlewareIntervals(scheduling_interval_s=4.0, pilot_interval_s=6.0)
    scheduler = build_self_scheduler(policy, NAGANO, intervals, replan_interval_s=3.5)
    assert scheduler == DyTSS(minimum_chunk=10, maximum_chunk=20, application=NAGANO,
                              intervals=intervals, replan_interval_s=3.5, max_iterations=7,
                              new_pilot_rule="faster_than_slowest", fit_points=9,
                              remaining_samples="not_completed")  # fmt: skip


def test_an_equal_chunks_policy_gives_chunks_of_its_size():
    policy = EqualChunksPolicy(name="EqualChunks", samples_per_task=600)
    scheduler = build_self_scheduler(policy, NAGANO, MiddlewareIntervals(), 10.0)
    assert scheduler == EqualChunks(samples_per_task=600)


def test_equal_chunks_go_to_free_pilots_in_enrolment_order_down_to_the_last_sample():
    chunks = EqualChunks(samples_per_task=600)
    assert chunks.assign(state([True, False, True, True], 1300)) == [
        (10, 600), (12, 600), (13, 100),
    ]  # fmt: skip
    assert chunks.assign(state([True, True], 1)) == [(10, 1)]
    assert chunks.assign(state([True, True], 0)) == []
