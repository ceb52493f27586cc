"""The DyTSS scheduler's decisions step by step (gridsim.cloud.dytss.DyTSS): which new pilots
join ``R``, when the chunk list is recomputed, from which remainder, and how free pilots are
served."""

import numpy as np

from gridsim.cloud.dytss import DyTSS, dytss_chunks
from gridsim.cloud.selfscheduling import SchedulerState
from gridsim.cloud.turnaround import NAGANO, MiddlewareIntervals

INTERVALS = MiddlewareIntervals()


def scheduler(**options) -> DyTSS:
    return DyTSS(1000, 30000, NAGANO, INTERVALS, **options)


def state(time_s=0.0, performance=(2000.0, 1000.0, 1500.0), free=None, unassigned=600_000,
          not_completed=None) -> SchedulerState:  # fmt: skip
    count = len(performance)
    return SchedulerState(
        time_s=time_s,
        pilot_ids=np.arange(10, 10 + count),
        performance_w=np.array(performance),
        bandwidth_mb_s=np.full(count, 0.25),
        free=np.ones(count, bool) if free is None else np.array(free),
        samples_unassigned=unassigned,
        samples_not_completed=unassigned if not_completed is None else not_completed,
    )


def chunks_of(current: SchedulerState, samples: int) -> dict[int, int]:
    chunks, _ = dytss_chunks(current.performance_w, current.bandwidth_mb_s, samples, 1000,
                             30000, NAGANO, INTERVALS)  # fmt: skip
    return dict(zip(current.pilot_ids.tolist(), chunks.tolist(), strict=True))


def test_free_pilots_get_their_planned_chunk_fastest_first():
    current = state()
    plan = chunks_of(current, 600_000)
    assert scheduler().assign(current) == [(10, plan[10]), (12, plan[12]), (11, plan[11])]


def test_the_last_chunks_are_cut_to_the_unassigned_samples_and_nothing_is_left_over():
    current = state(unassigned=2500)
    got = scheduler().assign(current)
    assert sum(samples for _, samples in got) == 2500
    assert all(samples >= 1 for _, samples in got)
    assert scheduler().assign(state(unassigned=1)) == [(10, 1)]
    assert scheduler().assign(state(unassigned=0)) == []


def test_the_chunk_list_is_kept_until_the_replanning_interval_has_passed():
    dytss = scheduler(replan_interval_s=10.0)
    first = state(time_s=5.0)
    dytss.assign(first)
    smaller = state(time_s=14.0, unassigned=100_000)
    assert dytss.assign(smaller)[0] == (10, chunks_of(first, 600_000)[10])
    later = state(time_s=15.0, unassigned=100_000)
    assert dytss.assign(later)[0] == (10, chunks_of(later, 100_000)[10])
    iterations = [dytss_chunks(s.performance_w, s.bandwidth_mb_s, samples, 1000, 30000,
                               NAGANO, INTERVALS)[1]
                  for s, samples in ((first, 600_000), (later, 100_000))]  # fmt: skip
    assert dytss.iterations_used == iterations


def test_the_remainder_is_the_unassigned_samples_or_those_not_completed():
    current = state(unassigned=100_000, not_completed=600_000)
    assert scheduler().assign(current)[0] == (10, chunks_of(current, 100_000)[10])
    later = scheduler(remaining_samples="not_completed").assign(current)
    assert later[0] == (10, chunks_of(current, 600_000)[10])


def test_faster_than_slowest_admits_only_pilots_faster_than_the_slowest_admitted():
    dytss = scheduler(new_pilot_rule="faster_than_slowest")
    dytss.assign(state(performance=(1500.0,)))  # the first pilot is always admitted
    dytss.assign(state(performance=(1500.0, 1000.0, 2000.0, 1500.0)))
    assert dytss.admitted == {10, 12} and dytss.rejected == {11, 13}  # equal speed: rejected
    at_once = scheduler(new_pilot_rule="faster_than_slowest")
    at_once.assign(state(performance=(1500.0, 1000.0, 2000.0)))  # the first sets the bar
    assert at_once.admitted == {10, 12} and at_once.rejected == {11}
    everyone = scheduler()
    everyone.assign(state(performance=(1500.0, 1000.0, 2000.0, 1500.0)))
    assert everyone.admitted == {10, 11, 12, 13} and everyone.rejected == set()


def test_busy_or_rejected_pilots_get_nothing():
    dytss = scheduler()
    assert [pid for pid, _ in dytss.assign(state(free=[False, True, False]))] == [11]
    assert scheduler().assign(state(free=[False, False, False])) == []


def test_pilots_of_equal_speed_are_served_in_enrolment_order():
    twenty = state(performance=(1500.0,) * 20, unassigned=10**7)
    assert [pid for pid, _ in scheduler().assign(twenty)] == list(range(10, 30))


def test_the_chunk_list_is_computed_with_the_scheduler_s_loop_bound_and_fit():
    current = state(unassigned=50_000)  # chunks below M: the bound and the fit show
    plans = {}
    for options in ({}, {"max_iterations": 1}, {"fit_points": 8}):
        dytss = scheduler(**options)
        got = dict(dytss.assign(current))
        bound, fit = options.get("max_iterations", 100), options.get("fit_points", 128)
        expected, iterations = dytss_chunks(
            current.performance_w, current.bandwidth_mb_s, 50_000, 1000, 30000, NAGANO,
            INTERVALS, bound, fit,
        )  # fmt: skip
        assert got == dict(zip(current.pilot_ids.tolist(), expected.tolist(), strict=True))
        assert dytss.iterations_used == [iterations]
        plans[str(options)] = tuple(got.values())
    assert len(set(plans.values())) == 3  # each option changes the list
