"""Metrics of a schedule on nodes with cores, memory and GPUs, from its jobs table.

Consumes a jobs table with the per-resource columns
(:data:`~gridsim.sim.trace.RESOURCE_JOB_COLUMNS`: ``cores``, ``memory_mb``, ``gpus``,
``resource_class``, ``allocation``) and the nodes' capacities (nodes x kinds); produces the
runs table's per-resource metrics:

* ``utilisation_<kind>``: the kind's amount-seconds held over its capacity x (last finish -
  first submit), as the processor utilisation of :mod:`gridsim.analysis.jobflow_metrics`;
* ``stranded_cores``: the time-average of free cores that cannot be used because their node's
  memory or GPUs are gone: free cores on nodes with less free memory than the node's memory
  per core, or (on GPU nodes) no free GPU, over the same span;
* ``mean_wait_<class>``: the mean wait of the jobs of each resource class (``gpu``, ``memory``,
  ``cpu``; :func:`resource_classes`).

Cost: O(allocation entries log entries).
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from gridsim.resources import CORES, GPUS, MEMORY, RESOURCE_KINDS
from gridsim.sim.trace import allocation_amounts

if TYPE_CHECKING:
    import pandas as pd

RESOURCE_CLASSES = ("gpu", "memory", "cpu")


def resource_classes(held: np.ndarray, capacity: np.ndarray, memory_tracked: bool) -> np.ndarray:
    """Per job (rows of ``held``: jobs x kinds): ``gpu`` if it holds GPUs, else ``memory`` if it
    holds more memory per core than the platform has per core, else ``cpu``."""
    per_core = capacity[:, MEMORY].sum() / capacity[:, CORES].sum() if memory_tracked else np.inf
    cores = np.maximum(held[:, CORES], 1)
    memory_heavy = held[:, MEMORY] / cores > per_core
    return np.where(held[:, GPUS] > 0, "gpu", np.where(memory_heavy, "memory", "cpu"))


def resource_summary(jobs: pd.DataFrame, capacity: np.ndarray, memory_tracked: bool) -> dict:
    """The per-resource metrics of one run (see the module docstring)."""
    ran = jobs[jobs.start_time.notna()]
    span = float(ran.finish_time.max() - jobs.submit_time.min()) if len(ran) else np.nan
    summary = {}
    for kind in RESOURCE_KINDS:
        total = float(capacity[:, RESOURCE_KINDS.index(kind)].sum())
        used = float((ran[kind] * ran.run_time).sum())
        tracked = kind != "memory_mb" or memory_tracked
        ok = span > 0 and total > 0 and tracked
        summary[f"utilisation_{kind}"] = used / (total * span) if ok else np.nan
    stranded = stranded_cores(ran, capacity, memory_tracked)
    summary["stranded_cores"] = stranded / span if span > 0 else np.nan
    for name in RESOURCE_CLASSES:
        waits = ran.wait_time[ran.resource_class == name] if "wait_time" in ran else []
        summary[f"mean_wait_{name}"] = float(np.mean(waits)) if len(waits) else np.nan
    return summary


def stranded_cores(jobs: pd.DataFrame, capacity: np.ndarray, memory_tracked: bool) -> float:
    """Core-seconds free on nodes whose memory (below one core's share) or GPUs (none free,
    on GPU nodes) are gone, summed over the schedule."""
    events: dict[int, list[tuple[float, np.ndarray]]] = {}
    for start, finish, text in zip(jobs.start_time, jobs.finish_time, jobs.allocation, strict=True):
        for node, amounts in allocation_amounts(text).items():
            held = np.asarray(amounts, dtype=np.int64)
            events.setdefault(node, []).extend(((start, held), (finish, -held)))
    total = 0.0
    for node, changes in events.items():
        changes.sort(key=lambda change: (change[0], int(change[1][CORES] > 0)))  # ends first
        free = capacity[node].astype(np.int64).copy()
        memory_share = capacity[node, MEMORY] / capacity[node, CORES]
        for (time, held), (next_time, _) in pairwise(changes):
            free = free - held
            gone = (memory_tracked and free[MEMORY] < memory_share) or (
                capacity[node, GPUS] > 0 and free[GPUS] == 0
            )
            if gone:
                total += float(free[CORES]) * (next_time - time)
    return total
