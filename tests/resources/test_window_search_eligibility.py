"""The window search takes only the nodes able to hold a task (Request.nodes_allowed).

For every registered criterion on random profiles: a window never uses a node outside the
allowed ones, and allowing every node is the search without the restriction. A log replay on
node classes of different performance with GPUs: GPU jobs run only on GPU nodes, one task per
node, and the schedule passes the independent checker.
"""

import numpy as np
import pandas as pd
import pytest
from energy_checker import with_power
from resource_checker import schedule_problems

from gridsim.experiments.runner import replication_seed
from gridsim.experiments.swf_replay import SwfReplayScenario, run_replication
from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.registry import CRITERIA, build_criterion
from gridsim.workloads.jobs_table import write_jobs_table
from gridsim.workloads.platform import log_platform
from gridsim.workloads.records import Records, records_frame
from gridsim.workloads.swf import SwfHeader


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_a_window_uses_only_allowed_nodes_under_every_criterion(name):
    rng = np.random.default_rng([29, len(name)])
    restricted = 0
    for _ in range(5):
        count = 6
        nodes = tuple(Node(i, float(rng.uniform(1, 4)), float(rng.uniform(1, 3)), float(i))
                      for i in range(count))  # fmt: skip
        busy = [((s, s + float(rng.uniform(1, 20))),) for s in rng.uniform(0, 30, count)]
        profile = Profile(nodes, busy, 0.0, 200.0)
        criterion = with_power(build_criterion(name), nodes)
        request = Request(n=2, volume=10.0)
        allowed = tuple(sorted(rng.choice(count, 3, replace=False).tolist()))
        window = criterion.search(profile, Request(2, 10.0, nodes_allowed=allowed))
        if window is not None:
            assert set(window.nodes) <= set(allowed)
            restricted += 1
        everything = Request(2, 10.0, nodes_allowed=tuple(range(count)))
        assert criterion.search(profile, everything) == criterion.search(profile, request)
    assert restricted >= 3


def gpu_log(rng: np.random.Generator, count: int = 40) -> Records:
    """Jobs of 1-2 nodes x (1 core, 1 GiB, 0 or 2 GPUs)."""
    run_time = rng.integers(10, 300, count).astype(float)
    columns = {
        "job_id": np.arange(1, count + 1),
        "submit_time": np.sort(rng.uniform(0, 2000, count)).round(1),
        "run_time": run_time, "requested_time": 2 * run_time,
        "requested_processors": np.ones(count, dtype=int), "user_id": np.ones(count, dtype=int),
        "status": np.ones(count, dtype=int), "wait_time": np.zeros(count),
        "nodes": rng.integers(1, 3, count), "cores_per_node": np.ones(count, dtype=int),
        "requested_memory_per_node_mb": np.full(count, 1024.0),
        "gpus_per_node": rng.choice([0, 2], count),
    }  # fmt: skip
    return Records(records_frame(columns, count), SwfHeader((("MaxProcs", "6"),)), "gpu",
                   "jobs_table", count)  # fmt: skip


def test_gpu_jobs_run_only_on_gpu_nodes_of_different_performance(tmp_path):
    path = tmp_path / "gpu.parquet"
    write_jobs_table(gpu_log(np.random.default_rng(29)), path)
    platform = {
        "node_classes": [
            {"count": 3, "cores": 4, "memory_mb": 4096, "gpus": 2},
            {"count": 3, "cores": 4, "memory_mb": 4096, "performance": 2.0},
        ]
    }
    scenario = SwfReplayScenario.model_validate(
        {"name": "gpu", "kind": "swf_replay", "seed": 1, "progress": False, "policy": "MinCost",
         "workload": {"path": str(path)}, "platform": platform})  # fmt: skip
    tables = run_replication(scenario, 0, replication_seed(1, 0))
    nodes = log_platform(None, scenario.platform).to_frame()
    for scheduler, jobs in tables["jobs"].groupby("scheduler"):
        assert schedule_problems(jobs, nodes, "shared", scheduler == "conservative") == []
        on_gpu_nodes = jobs.allocation.str.findall(r"(\d+):").map(
            lambda ids: all(int(i) < 3 for i in ids)
        )
        assert (on_gpu_nodes | (jobs.gpus == 0)).all()
        assert (jobs.gpus > 0).sum() > 8 and not on_gpu_nodes[jobs.gpus == 0].all()
    assert isinstance(tables["runs"], pd.DataFrame)
