"""Small random flows of multi-resource jobs and their platforms, for the planner tests, and
random multi-resource logs with two node classes, for replays through the swf_replay kind."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gridsim.resources import ResourceRequest, capacity_matrix, never_fits
from gridsim.workloads.records import Records, records_frame
from gridsim.workloads.swf import SwfHeader


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


NODE_CLASSES = [{"count": 3, "cores": 4, "memory_mb": 8192, "gpus": 2, "price_per_gpu_hour": 2.0},
                {"count": 2, "cores": 8, "memory_mb": 32768, "gpus": 0}]  # fmt: skip


def random_log(rng: np.random.Generator, count: int = 80) -> Records:
    """Jobs of three shapes: nodes x per-node amounts, processors with memory, processors."""
    shape = rng.integers(3, size=count)
    shaped = shape == 0
    run_time = rng.integers(10, 400, count).astype(float)
    columns = {
        "job_id": np.arange(1, count + 1),
        "submit_time": np.sort(rng.uniform(0, 3000, count)).round(1),
        "run_time": run_time,
        "requested_time": run_time * rng.choice([1.0, 1.5, 3.0], count),
        "requested_processors": rng.integers(1, 9, count),
        "requested_memory": np.where(shape == 1, 1024 * rng.integers(256, 4096, count), -1.0),
        "user_id": rng.integers(1, 5, count),
        "status": np.ones(count, dtype=int),
        "wait_time": np.zeros(count),
        "nodes": np.where(shaped, rng.integers(1, 3, count), pd.NA),
        "cores_per_node": np.where(shaped, rng.integers(1, 5, count), pd.NA),
        "requested_memory_per_node_mb": np.where(shaped, rng.integers(0, 8192, count), np.nan),
        "gpus_per_node": np.where(shaped, rng.integers(0, 4, count), pd.NA),  # 3: never fits
    }
    records = records_frame(columns, count)
    return Records(records, SwfHeader((("MaxProcs", "28"),)), "random", "jobs_table", count)
