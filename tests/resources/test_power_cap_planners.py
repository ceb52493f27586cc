"""Under a power cap the multi-resource planners give the brute-force reference's schedule.

Small random flows (tests/resource_flows.py) on nodes drawing random busy watts, under a
constant cap and a cap of three steps, both low enough to bind: FCFS, EASY and conservative
backfilling (gridsim.scheduling.resource_schedulers, the Python path a capped replay takes)
against tests/reference_resource_planners.py, job by job.
"""

import numpy as np
import pytest
from reference_resource_planners import reference_replay
from resource_flows import flow_table, random_flow, random_platform

from gridsim.resources import ResourceRequest
from gridsim.scheduling.resource_profile import PowerLimit, ResourceProfile, idle_draw_mw
from gridsim.sim.log_replay import replay_resources


def random_cap(rng, capacity, flow, node_watts, stepped: bool):
    """A cap (times, watts) every job fits under in the end but that often makes jobs wait:
    the tail is the largest draw of one job on an empty machine, plus a little."""
    node_mw = np.asarray(node_watts, dtype=np.int64) * 1000
    largest = max(idle_draw_mw(capacity, job[1], node_mw) for job in flow) // 1000
    tail = largest + int(rng.integers(0, 60))
    if not stepped:
        return (0,), (tail,)
    low, high = sorted(rng.integers(1, 12, 2).tolist())
    return (0, low, high + 1), (int(rng.integers(largest // 2, tail + 40)), tail // 2, tail)


def cap_at(times, watts):
    return lambda t: watts[max(i for i, start in enumerate(times) if start <= t)]


@pytest.mark.parametrize("mode", ["shared", "exclusive"])
@pytest.mark.parametrize("algorithm", ["fcfs", "easy", "conservative"])
def test_capped_start_times_and_nodes_equal_the_brute_force_reference(algorithm, mode):
    rng = np.random.default_rng([30, len(algorithm), len(mode)])
    compared = delayed = 0
    for case in range(30):
        capacity = random_platform(rng)
        flow = random_flow(rng, capacity)
        node_watts = rng.integers(50, 200, len(capacity)).tolist()
        times, watts = random_cap(rng, capacity, flow, node_watts, stepped=case % 2 == 1)
        power = PowerLimit(np.array(node_watts, dtype=np.int64) * 1000, tuple(map(float, times)),
                           tuple(w * 1000 for w in watts))  # fmt: skip
        table, requests = flow_table(flow), [job[1] for job in flow]
        result = replay_resources(table, requests, capacity, mode, algorithm, power=power)
        exclusive, cap = mode == "exclusive", cap_at(times, watts)
        start, placed, first = reference_replay(flow, capacity, exclusive, algorithm,
                                                node_watts=node_watts, cap=cap)  # fmt: skip
        assert result.replay.start_time.tolist() == [float(s) for s in start]
        assert [dict(a) for a in result.allocation] == [placed[j] for j in range(len(flow))]
        if algorithm == "conservative":
            assert result.replay.first_reservation.tolist() == [float(f) for f in first]
        free = replay_resources(table, requests, capacity, mode, algorithm)
        delayed += int((result.replay.start_time > free.replay.start_time).sum())
        compared += len(flow)
    assert compared == 240
    assert delayed >= 30  # the cap binds: many jobs start later than without it


def test_a_start_whose_first_fit_nodes_exceed_the_cap_waits():
    capacity = np.array([[1, 1024, 0], [1, 1024, 0]])
    power = PowerLimit(np.array([100_000, 10_000]), (0.0, 5.0), (50_000, 200_000))
    profile = ResourceProfile(capacity, "shared", 0.0, power)
    place = profile.earliest_fit(0.0, ResourceRequest(1, (1, 0, 0)), 2.0)
    # node 0 is first fit and draws 100 W > 50 W: no start before the cap rises at 5,
    # even though node 1 alone (10 W) would fit: the rule is first fit, then the cap
    assert place is not None and place.start == 5.0 and place.allocation == ((0, 1),)


def test_a_capped_replay_never_goes_to_the_compiled_planners(monkeypatch):
    """The compiled planners know no cap: the dispatch sends a capped replay to Python."""
    import gridsim.sim.log_replay as log_replay

    def refuse(*args, **kwargs):
        raise AssertionError("a capped replay reached the compiled planners")

    monkeypatch.setattr(log_replay, "replay_resources_compiled", refuse)
    capacity = np.array([[2, 1024, 0], [2, 1024, 0]])
    flow = [(0, ResourceRequest(2, (1, 0, 0)), 4, 4), (0, ResourceRequest(2, (1, 0, 0)), 4, 4)]
    power = PowerLimit(np.array([100_000, 100_000]), (0.0,), (150_000,))
    result = replay_resources(flow_table(flow), [job[1] for job in flow], capacity, "shared",
                              "easy", power=power)  # fmt: skip
    # both jobs fit node 0 then node 1 by cores, but each draws 100 W of 150: one at a time
    assert result.replay.start_time.tolist() == [0.0, 4.0]
