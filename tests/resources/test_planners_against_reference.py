"""The multi-resource planners give the brute-force reference's start times and nodes.

Small random flows (2-4 nodes of cores, memory and GPUs; processor counts, cores with memory
per core, nodes x per-node amounts; early finishes) on shared and exclusive nodes, under FCFS,
EASY and conservative backfilling: gridsim.scheduling.resource_schedulers in the replay loop
against tests/reference_resource_planners.py, job by job.
"""

import numpy as np
import pytest
from reference_resource_planners import reference_replay
from resource_flows import flow_table, random_flow, random_platform

from gridsim.sim.log_replay import replay_resources


@pytest.mark.parametrize("mode", ["shared", "exclusive"])
@pytest.mark.parametrize("algorithm", ["fcfs", "easy", "conservative"])
def test_start_times_and_nodes_equal_the_brute_force_reference(algorithm, mode):
    rng = np.random.default_rng([29, len(algorithm), len(mode)])
    compared = 0
    for _ in range(40):
        capacity = random_platform(rng)
        flow = random_flow(rng, capacity)
        result = replay_resources(flow_table(flow), [job[1] for job in flow], capacity, mode,
                                  algorithm)  # fmt: skip
        start, placed, first = reference_replay(flow, capacity, mode == "exclusive", algorithm)
        assert result.replay.start_time.tolist() == [float(s) for s in start]
        assert [dict(a) for a in result.allocation] == [placed[j] for j in range(len(flow))]
        if algorithm == "conservative":
            assert result.replay.first_reservation.tolist() == [float(f) for f in first]
        compared += len(flow)
    assert compared == 320
