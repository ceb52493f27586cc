"""Small random flows of multi-resource jobs and their platforms, for the planner tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gridsim.resources import ResourceRequest, capacity_matrix, never_fits


def random_platform(rng: np.random.Generator, nodes: int | None = None) -> np.ndarray:
    """2 to 4 nodes of 1-4 cores, 2-8 GiB (in MiB) and 0-2 GPUs."""
    count = int(nodes or rng.integers(2, 5))
    return capacity_matrix(rng.integers(1, 5, count), 1024 * rng.integers(2, 9, count),
                           rng.integers(0, 3, count))  # fmt: skip


def random_request(rng: np.random.Generator, capacity: np.ndarray) -> ResourceRequest:
    """A request some node set can hold: a processor count, cores with memory per core, or
    nodes x per-node amounts."""
    while True:
        shape = rng.integers(3)
        if shape == 0:
            request = ResourceRequest(int(rng.integers(1, 5)), (1, 0, 0))
        elif shape == 1:
            memory = 1024 * int(rng.integers(1, 4))
            request = ResourceRequest(int(rng.integers(1, 5)), (1, memory, 0))
        else:
            cores, memory = int(rng.integers(1, 3)), 1024 * int(rng.integers(0, 4))
            unit = (cores, memory, int(rng.integers(0, 2)))
            request = ResourceRequest(int(rng.integers(1, 3)), unit, one_per_node=True)
        if never_fits(capacity, request) is None:
            return request


def random_flow(rng: np.random.Generator, capacity: np.ndarray, count: int = 8):
    """(submit, request, estimate, duration) with integer times, in priority order."""
    submits = np.sort(rng.integers(0, 12, count))
    flow = []
    for submit in submits.tolist():
        estimate = int(rng.integers(1, 7))
        duration = int(rng.integers(1, estimate + 1))
        flow.append((submit, random_request(rng, capacity), estimate, duration))
    return flow


def flow_table(flow) -> pd.DataFrame:
    """The flow as the replay's jobs table (job ids in priority order)."""
    return pd.DataFrame({
        "job_id": np.arange(len(flow)),
        "submit_time": [float(job[0]) for job in flow],
        "estimate": [float(job[2]) for job in flow],
        "duration": [float(job[3]) for job in flow],
        "processors": [job[1].total[0] for job in flow],
    })  # fmt: skip
