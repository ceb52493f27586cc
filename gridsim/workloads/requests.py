"""From a log's jobs to what each asks of the nodes: cores, memory and GPUs.

Consumes the jobs of a :class:`~gridsim.workloads.records.WorkloadLog` (the record columns of
every format: SWF's requested memory per processor, field 10 in KB; a Slurm dump's or Batsim
workload's ``nodes``, ``cores_per_node``, ``requested_memory_per_node_mb`` and
``gpus_per_node``) and the platform (:class:`~gridsim.workloads.platform.LogPlatform`);
produces one :class:`~gridsim.resources.ResourceRequest` per job and the jobs no set of nodes
can ever hold.

Which shape a job's request takes (docs/resources.md, "Requests from logs"):

1. the log gives its nodes and cores per node (Slurm, Batsim): ``nodes x {cores per node,
   memory per node, GPUs per node}``, one unit per node;
2. else its processors (one core each), with memory per core when the log gives memory (SWF
   field 10, KB per processor, rounded up to whole MiB; a per-node figure over the cores per
   node), else the platform's ``default_memory_per_core_mb``, else none;
3. with the platform's ``processors_as: gpus``, a processor count is GPUs instead: one GPU
   each, with ``cores_per_gpu`` cores and their memory, spread over any nodes; with
   ``gpus_per_task``, in tasks of up to that many GPUs, one per node (:func:`gpu_tasks`).

Memory counts only on a platform whose node classes give ``memory_mb``. Cost: O(jobs).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from gridsim.resources import ResourceRequest, never_fits, processors
from gridsim.workloads.platform import LogPlatform

if TYPE_CHECKING:
    import pandas as pd


def _column(jobs: pd.DataFrame, name: str) -> np.ndarray:
    if name not in jobs:
        return np.full(len(jobs), np.nan)
    return jobs[name].to_numpy(dtype=np.float64, na_value=np.nan)


def job_requests(
    jobs: pd.DataFrame,
    platform: LogPlatform,
    default_memory_per_core_mb: int | None = None,
    cores_per_gpu: int | None = None,
    gpus_per_task: int | None = None,
) -> list[ResourceRequest]:
    """One request per job (rows in order), by the rules of the module docstring; with
    ``cores_per_gpu``, a job's processors are GPUs, each with that many cores (and their
    memory), in tasks of up to ``gpus_per_task`` GPUs when given."""
    count = len(jobs)
    nodes = _column(jobs, "nodes")
    cores_per_node = _column(jobs, "cores_per_node")
    memory_per_node = _column(jobs, "requested_memory_per_node_mb")
    gpus_per_node = np.nan_to_num(_column(jobs, "gpus_per_node"))
    memory_kb = _column(jobs, "requested_memory")  # per processor
    per_core = np.where(memory_kb > 0, np.ceil(memory_kb / 1024), np.nan)
    per_core = np.where(np.isnan(per_core) & (memory_per_node > 0) & (cores_per_node > 0),
                        np.ceil(memory_per_node / cores_per_node), per_core)  # fmt: skip
    if default_memory_per_core_mb is not None:
        per_core = np.where(np.isnan(per_core), default_memory_per_core_mb, per_core)
    shaped = (nodes > 0) & (cores_per_node > 0)
    tracked = platform.memory_tracked
    procs = jobs["processors"].to_numpy(dtype=np.int64)
    requests = []
    for i in range(count):
        if shaped[i]:
            memory = memory_per_node[i] if tracked and memory_per_node[i] > 0 else 0
            unit = (int(cores_per_node[i]), math.ceil(memory), int(gpus_per_node[i]))
            requests.append(ResourceRequest(int(nodes[i]), unit, one_per_node=True))
        elif cores_per_gpu is not None:
            memory = cores_per_gpu * int(per_core[i]) if tracked and per_core[i] > 0 else 0
            gpu = ResourceRequest(int(procs[i]), (cores_per_gpu, memory, 1))
            requests.append(gpu if gpus_per_task is None else gpu_tasks(gpu, gpus_per_task))
        elif tracked and per_core[i] > 0:
            requests.append(ResourceRequest(int(procs[i]), (1, int(per_core[i]), 0)))
        else:
            requests.append(processors(int(procs[i])))
    return requests


def gpu_tasks(gpus: ResourceRequest, gpus_per_task: int) -> ResourceRequest:
    """A request of g single GPUs (with their cores and memory) as ceil(g / gpus_per_task)
    tasks of equal GPUs, one per node: each task ceil(g / tasks) GPUs, so a job of 6 GPUs in
    tasks of up to 4 asks for 2 tasks of 3, and one of 5 for 2 tasks of 3 (a GPU more than
    it asked for, as the tasks of a window are alike)."""
    tasks = math.ceil(gpus.units / gpus_per_task)
    per_task = math.ceil(gpus.units / tasks)
    unit = tuple(per_task * amount for amount in gpus.unit)
    return ResourceRequest(tasks, unit, one_per_node=True)


def never_fitting(requests: list[ResourceRequest], capacity: np.ndarray) -> np.ndarray:
    """Per job, whether no set of nodes can ever hold it (memoised per distinct request)."""
    known: dict[ResourceRequest, bool] = {}
    for request in requests:
        if request not in known:
            known[request] = never_fits(capacity, request) is not None
    return np.array([known[request] for request in requests], dtype=bool)


def processors_only(requests: list[ResourceRequest]) -> bool:
    """Whether every job asks for processors and nothing else (one core each, any nodes)."""
    return all(r.unit == (1, 0, 0) and not r.one_per_node for r in requests)
