"""GPU jobs in tasks of a node's worth of GPUs (``platform.gpus_per_task``), one per node.

A job of g GPUs in tasks of up to k is ceil(g / k) equal tasks on distinct nodes, each of
ceil(g / tasks) GPUs with their cores and memory; the GPU-cluster scenario replayed that way
by the window-search policy (one task per node, as [TY18]-[TY20] place a job) passes the
independent schedule checker and never puts two tasks on one node at once.
"""

import math
from itertools import pairwise

import numpy as np
import pytest
from resource_checker import schedule_problems

from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import replication_seed
from gridsim.experiments.swf_replay import run_replication
from gridsim.resources import ResourceRequest
from gridsim.workloads.platform import log_platform
from gridsim.workloads.requests import gpu_tasks

SCENARIO = "gridsim/scenarios/gpu-cluster.yaml"


@pytest.mark.parametrize("per_task", [1, 2, 4, 8])
def test_a_job_of_g_gpus_is_ceil_g_over_k_alike_tasks_holding_at_least_g(per_task):
    for gpus in range(1, 130):
        tasks = gpu_tasks(ResourceRequest(gpus, (4, 16384, 1)), per_task)
        assert tasks.one_per_node and tasks.units == math.ceil(gpus / per_task)
        cores, memory, task_gpus = tasks.unit
        assert task_gpus <= per_task and (cores, memory) == (4 * task_gpus, 16384 * task_gpus)
        assert gpus <= tasks.total[2] < gpus + tasks.units  # at most a GPU more per task
        assert tasks.units == 1 or (tasks.units - 1) * task_gpus < gpus  # no task is idle
    assert gpu_tasks(ResourceRequest(6, (4, 0, 1)), 4).unit == (12, 0, 3)
    assert gpu_tasks(ResourceRequest(64, (4, 0, 1)), 4).units == 16


def _scenario(planning: str, schedulers: list[str]):
    scenario, _ = load_scenario(SCENARIO)
    platform = scenario.platform.model_copy(update={"resource_planning": planning})
    workload = scenario.workload.model_copy(update={"jobs": 80})
    return scenario.model_copy(update={"platform": platform, "workload": workload,
                                       "schedulers": schedulers, "progress": False})  # fmt: skip


@pytest.mark.parametrize(("planning", "scheduler"),
                         [("one_task_per_node", "conservative"), ("profile", "easy")])  # fmt: skip
def test_the_gpu_cluster_places_whole_tasks_one_per_node_and_passes_the_checker(
    planning, scheduler
):
    scenario = _scenario(planning, [scheduler])
    tables = run_replication(scenario, 0, replication_seed(scenario.seed, 0))
    jobs = tables["jobs"]
    nodes = log_platform(None, scenario.platform).to_frame()
    conservative = scheduler == "conservative"
    assert schedule_problems(jobs, nodes, "shared", conservative) == []
    assert tables["runs"].dropped_never_fits.iloc[0] == 0 and jobs.start_time.notna().all()
    busy: dict[int, list[tuple[float, float]]] = {}
    for job in jobs.itertuples():
        held = [part.split(":") for part in job.allocation.split()]
        tasks = math.ceil(job.gpus / 4)
        per_task = [tuple(int(a) for a in amounts.split("/")) for _, amounts in held]
        assert len(held) == tasks == len({node for node, _ in held}), job.allocation
        assert len(set(per_task)) == 1 and per_task[0][2] == math.ceil(job.gpus / tasks)
        for node, _ in held:
            busy.setdefault(int(node), []).append((job.start_time, job.finish_time))
    if planning == "one_task_per_node":  # a task holds its node alone
        for spans in busy.values():
            spans.sort()
            assert all(end <= start for (_, end), (start, _) in pairwise(spans))
    assert (jobs.gpus > 8).any()  # some job spans several nodes
    assert np.isfinite(tables["runs"].utilisation_gpus.iloc[0])
