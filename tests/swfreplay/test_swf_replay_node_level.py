"""Node-level FCFS and EASY (SimPy engine) against the processor-count replays."""

import numpy as np
import pytest

from gridsim.model import Job, Node
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Instance, simulate
from gridsim.sim.log_replay import replay_log
from gridsim.workloads.swf import bundled_swf, read_swf

JOBS = 300


@pytest.fixture(scope="module")
def kth():
    log = read_swf(bundled_swf())  # on_overrun="kill": jobs end at or before their estimate
    return log.jobs.iloc[:JOBS].reset_index(drop=True), log.machine_processors


@pytest.mark.parametrize("scheduler", ["fcfs", "easy"])
def test_identical_nodes_with_bfstart_start_every_job_as_the_processor_count_replay(kth, scheduler):
    jobs, machine = kth
    assert (jobs.duration < jobs.estimate).sum() > JOBS / 2  # many early finishes
    nodes = tuple(Node(i, 1.0, 1.0) for i in range(machine))
    flow = tuple(
        Job(i, float(submit), int(n), float(estimate), runtime_factor=float(duration / estimate))
        for i, (submit, n, estimate, duration) in enumerate(
            zip(jobs.submit_time, jobs.processors, jobs.estimate, jobs.duration, strict=True)
        )
    )
    instance = Instance(nodes, ((),) * machine, flow)
    trace = simulate(instance, build_criterion("BFstart"), scheduler=scheduler)
    start = np.array([record["start"] for record in trace.job_records()])
    expected = replay_log(jobs, machine, scheduler).start_time
    np.testing.assert_array_equal(start, expected)
