"""Workloads for comparing gridsim's node-level planners with the frozen reference.

Shared by the identity tests (``tests/swfreplay/test_node_replay_identity.py``) and the
benchmark (``benchmarks/bench_node_replay.py``): random heterogeneous job flows with queues,
early finishes and overruns, and the bundled KTH-SP2 excerpt on two node classes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from reference_node_planners import build_planner as reference_planner

from gridsim.experiments.swf_replay_nodes import node_level_instance
from gridsim.model import Job, Node
from gridsim.scheduling.queue_policies import build_planner
from gridsim.sim.engine import Engine, Instance
from gridsim.workloads.platform import LogPlatformConfig, NodeClass, log_platform
from gridsim.workloads.swf import bundled_swf, read_swf

#: The heterogeneous machine of ``scenarios/swf-replay-heterogeneous.yaml``.
KTH_CLASSES = LogPlatformConfig(
    node_classes=[NodeClass(count=60, performance=1.0, price=1.0),
                  NodeClass(count=40, performance=1.5, price=2.0)],
)  # fmt: skip

#: Columns of a trace's job records that make up a schedule.
SCHEDULE = ["job_id", "final_state", "first_promised_start", "start", "finish", "nodes", "delay",
            "cost"]  # fmt: skip


def random_flow(seed: int, local_load: bool = True, limits: bool = True) -> Instance:
    """6-14 nodes in 2-3 classes, 25-60 jobs arriving faster than they are served.

    Runtime factors are mostly below 1 (early finishes, so compression) and sometimes above
    (overruns); with ``local_load`` some nodes have busy intervals; with ``limits`` some jobs
    have a budget or a minimum performance.
    """
    rng = np.random.default_rng(seed)
    classes = int(rng.integers(2, 4))
    performances = rng.choice([1.0, 1.25, 1.5, 2.0, 3.0], size=classes, replace=False)
    counts = rng.integers(2, 6, size=classes)
    nodes = []
    for performance, count in zip(performances, counts, strict=True):
        price = float(performance * rng.uniform(0.5, 1.5))
        nodes += [(float(performance), round(price, 3))] * int(count)
    nodes = tuple(Node(i, p, c) for i, (p, c) in enumerate(nodes))
    busy = []
    for _ in nodes:
        intervals = []
        if local_load and rng.random() < 0.3:
            start = float(rng.uniform(0, 300))
            intervals.append((start, start + float(rng.uniform(5, 80))))
        busy.append(tuple(intervals))
    n_jobs = int(rng.integers(25, 61))
    arrivals = np.cumsum(rng.exponential(8.0, size=n_jobs))
    arrivals[rng.random(n_jobs) < 0.15] = 0.0  # some jobs arrive together
    jobs = []
    for i in range(n_jobs):
        factor = float(rng.uniform(0.05, 1.0)) if rng.random() < 0.85 else 1.0
        if rng.random() < 0.08:
            factor = float(rng.uniform(1.05, 1.6))
        budget, min_performance = float("inf"), 0.0
        if limits and rng.random() < 0.15:
            budget = float(rng.uniform(50, 400))
        if limits and rng.random() < 0.1:
            min_performance = float(performances.max())
        size = int(rng.integers(1, len(nodes) // 2 + 2))
        volume = round(float(rng.uniform(5, 120)), 1)
        arrival = round(float(arrivals[i]), 1)
        jobs.append(Job(i, arrival, size, volume, budget, min_performance, factor))
    return Instance(nodes, tuple(busy), tuple(jobs))


def kth_flow(jobs: int) -> Instance:
    """The first ``jobs`` jobs of the bundled KTH-SP2 excerpt on 60 + 40 nodes."""
    log = read_swf(bundled_swf())
    platform = log_platform(log.machine_processors, KTH_CLASSES)
    return node_level_instance(log.jobs.iloc[:jobs].reset_index(drop=True), platform)


def schedule(
    instance: Instance, criterion, scheduler: str, priority: str = "fcfs", reference=False
) -> pd.DataFrame:
    """Every job's final state, start, finish, nodes and first promise under one planner."""
    build = reference_planner if reference else build_planner
    planner = build(scheduler, instance.nodes, instance.busy, criterion, priority)
    records = pd.DataFrame(Engine(instance, planner).run().job_records())
    return records[SCHEDULE]
