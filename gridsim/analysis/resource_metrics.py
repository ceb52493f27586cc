"""Metrics of a schedule on nodes with cores, memory and GPUs, from its jobs table.

Consumes a jobs table with the per-resource columns
(:data:`~gridsim.sim.trace.RESOURCE_JOB_COLUMNS`: ``cores``, ``memory_mb``, ``gpus``,
``resource_class``, ``allocation``) and the nodes' capacities (nodes x kinds); produces the
runs table's per-resource metrics and their time series:

* ``utilisation_<kind>``: the kind's amount-seconds held over its capacity x (last finish -
  first submit), as the processor utilisation of :mod:`gridsim.analysis.jobflow_metrics`;
* ``stranded_cores``: the time-average of free cores that cannot be used because their node's
  memory or GPUs are gone: free cores on nodes with less free memory than the node's memory
  per core, or (on GPU nodes) no free GPU, over the same span;
* ``mean_wait_<class>``: the mean wait of the jobs of each resource class (``gpu``, ``memory``,
  ``cpu``; :func:`resource_classes`);
* :func:`resource_timeline`: the share of every kind in use and the stranded cores as step
  functions of time, for the report's figures and the explorer's panel.

Cost: O(allocation entries log entries), in cumulative sums (the whole HPC2N log in seconds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gridsim.resources import CORES, GPUS, MEMORY, RESOURCE_KINDS

if TYPE_CHECKING:
    import pandas as pd

RESOURCE_CLASSES = ("gpu", "memory", "cpu")
#: The runs table's per-resource metrics and their labels (units), for reports.
LABELS = {
    "utilisation_cores": "core utilisation (core-time used / available)",
    "utilisation_memory_mb": "memory utilisation (MiB-time used / available)",
    "utilisation_gpus": "GPU utilisation (GPU-time used / available)",
    "stranded_cores": "stranded cores (time-average)",
    "mean_wait_gpu": "mean wait of GPU jobs (s)",
    "mean_wait_memory": "mean wait of memory jobs (s)",
    "mean_wait_cpu": "mean wait of CPU jobs (s)",
    "dropped_never_fits": "jobs no node set can hold",
}


def resource_classes(held: np.ndarray, capacity: np.ndarray, memory_tracked: bool) -> np.ndarray:
    """Per job (rows of ``held``: jobs x kinds): ``gpu`` if it holds GPUs, else ``memory`` if it
    holds more memory per core than the platform has per core, else ``cpu``."""
    per_core = capacity[:, MEMORY].sum() / capacity[:, CORES].sum() if memory_tracked else np.inf
    cores = np.maximum(held[:, CORES], 1)
    memory_heavy = held[:, MEMORY] / cores > per_core
    return np.where(held[:, GPUS] > 0, "gpu", np.where(memory_heavy, "memory", "cpu"))


def has_resources(jobs: pd.DataFrame) -> bool:
    """Whether a jobs table comes from a replay on nodes with cores, memory and GPUs."""
    return "allocation" in jobs.columns and "resource_class" in jobs.columns


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
    timeline = resource_timeline(jobs, capacity, memory_tracked)
    if len(timeline) < 2:
        return 0.0
    return float((timeline.stranded_cores.to_numpy()[:-1] * np.diff(timeline.time)).sum())


def allocation_entries(jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per job and node it held: ``start``, ``finish``, ``node`` and the amounts of
    every kind (the ``allocation`` column's text, parsed in one pass by NumPy)."""
    import pandas as pd  # a replay's first job runs before pandas is imported

    ran = jobs[jobs.start_time.notna() & (jobs.allocation.fillna("") != "")]
    texts = ran.allocation.astype(str)
    per_job = texts.str.count(":").to_numpy()
    flat = " ".join(texts).replace(":", " ").replace("/", " ")
    fields = np.fromstring(flat, dtype=np.int64, sep=" ").reshape(-1, 1 + len(RESOURCE_KINDS))
    entries = pd.DataFrame({
        "start": np.repeat(ran.start_time.to_numpy(dtype=float), per_job),
        "finish": np.repeat(ran.finish_time.to_numpy(dtype=float), per_job),
        "node": fields[:, 0],
    })  # fmt: skip
    for column, kind in enumerate(RESOURCE_KINDS, start=1):
        entries[kind] = fields[:, column]
    return entries


def resource_timeline(jobs: pd.DataFrame, capacity: np.ndarray, memory_tracked: bool
                      ) -> pd.DataFrame:  # fmt: skip
    """The schedule's use of every resource as step functions: one row per instant some job
    starts or ends, holding the values from that instant until the next row's -- ``time``,
    ``<kind>`` (the amount in use), ``utilisation_<kind>`` (over the platform's capacity; NaN
    for memory when it is not tracked, or for a kind the platform has none of) and
    ``stranded_cores`` (as :func:`stranded_cores`), each the state after every change at
    that instant.

    Per node, the free amounts after each of its changes are cumulative sums of the changes
    sorted by node and time; a node's stranded cores change only at its own changes, so the
    total is the cumulative sum of every node's change in stranded cores, sorted by time.
    """
    import pandas as pd

    entries = allocation_entries(jobs)
    columns = ["time", *RESOURCE_KINDS, *(f"utilisation_{k}" for k in RESOURCE_KINDS),
               "stranded_cores"]  # fmt: skip
    if entries.empty:
        return pd.DataFrame(columns=columns, dtype=float)
    held = entries[list(RESOURCE_KINDS)].to_numpy(dtype=np.int64)
    if not memory_tracked:
        held[:, MEMORY] = 0
    time = np.concatenate([entries.start.to_numpy(), entries.finish.to_numpy()])
    node = np.tile(entries.node.to_numpy(), 2)
    change = np.concatenate([held, -held])
    order = np.lexsort((time, node))
    time, node, change = time[order], node[order], change[order]
    # Every node's changes sum to 0 and it ends idle (nothing stranded), so one cumulative sum
    # over the rows sorted by node gives each node's use, and the row before a node's first
    # holds its stranded cores before it: 0.
    free = capacity[node].astype(np.int64) - np.cumsum(change, axis=0)
    stranded = np.where(_gone(free, capacity[node], memory_tracked), free[:, CORES], 0)
    delta = stranded - np.r_[0, stranded[:-1]]
    by_time = np.argsort(time, kind="stable")
    time, delta = time[by_time], delta[by_time]
    totals = np.cumsum(change[by_time], axis=0)
    stranded_total = np.cumsum(delta)
    last = np.r_[time[1:] != time[:-1], True]  # the state after every change at an instant
    frame = pd.DataFrame({"time": time[last]})
    for column, kind in enumerate(RESOURCE_KINDS):
        frame[kind] = totals[last, column]
        capacity_of_kind = float(capacity[:, column].sum())
        untracked = kind == "memory_mb" and not memory_tracked
        frame[f"utilisation_{kind}"] = (
            np.nan
            if untracked or capacity_of_kind <= 0
            else totals[last, column] / capacity_of_kind
        )
    frame["stranded_cores"] = stranded_total[last]
    return frame[columns]


def _gone(free: np.ndarray, capacity: np.ndarray, memory_tracked: bool) -> np.ndarray:
    """Whether a node's free cores are stranded: its free memory below one core's share, or
    (a GPU node) no GPU free."""
    memory_share = capacity[:, MEMORY] / capacity[:, CORES]
    out_of_memory = memory_tracked & (free[:, MEMORY] < memory_share)
    out_of_gpus = (capacity[:, GPUS] > 0) & (free[:, GPUS] == 0)
    return out_of_memory | out_of_gpus
