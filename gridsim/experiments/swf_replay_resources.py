"""A log replayed on nodes with cores, memory and GPUs (the ``swf_replay`` kind's third engine).

Consumes a replay scenario whose node classes give ``cores``, ``memory_mb`` or ``gpus``, and
the log; produces the jobs table with the per-resource columns of
:data:`~gridsim.sim.trace.RESOURCE_JOB_COLUMNS`, and the runs table's per-resource metrics
(:mod:`gridsim.analysis.resource_metrics`).

Which engine: a log whose jobs all ask for processors only, on nodes of one core each, is a
processor count on identical nodes; the processor-count schedulers replay it exactly and fast
(:func:`uses_resource_planners` says no). Every other replay runs the multi-resource planners
of :mod:`gridsim.scheduling.resource_schedulers` in the loop of
:func:`gridsim.sim.log_replay.replay_resources`. Jobs no set of nodes can ever hold are dropped
and counted (``dropped_never_fits``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gridsim.analysis.resource_metrics import resource_classes
from gridsim.config import ScenarioError
from gridsim.experiments.swf_replay_tables import job_table, progress_bar
from gridsim.resources import CORES, ResourceRequest
from gridsim.sim.log_replay import node_intervals, replay_resources
from gridsim.sim.trace import allocation_text
from gridsim.workloads.platform import LogPlatform
from gridsim.workloads.records import WorkloadLog
from gridsim.workloads.requests import job_requests, never_fitting, processors_only


def requests_of(scenario: Any, log: WorkloadLog, platform: LogPlatform) -> list[ResourceRequest]:
    """Every job's request on the scenario's platform (:mod:`gridsim.workloads.requests`)."""
    section = scenario.platform
    cores_per_gpu = section.cores_per_gpu if section.processors_as == "gpus" else None
    return job_requests(log.jobs, platform, section.default_memory_per_core_mb, cores_per_gpu)


def uses_resource_planners(scenario: Any, log: WorkloadLog, platform: LogPlatform) -> bool:
    """Whether the replay needs the multi-resource planners (see the module docstring)."""
    if platform.capacity is None:
        return False
    one_core = bool((platform.capacity[:, CORES] == 1).all())
    return not (one_core and processors_only(requests_of(scenario, log, platform)))


def check_platform(scenario: Any, log: WorkloadLog, platform: LogPlatform) -> None:
    """A ScenarioError for what the multi-resource replay cannot do: nodes of different
    performance, or a log of which no job fits the nodes."""
    if not uses_resource_planners(scenario, log, platform):
        return
    if len(set(platform.performance.tolist())) > 1:
        raise ScenarioError(
            "platform.node_classes: nodes with cores, memory or GPUs must share one "
            "performance (a job's run time on them is the log's); give the classes the same "
            "performance, or leave cores, memory_mb and gpus out"
        )
    never = never_fitting(requests_of(scenario, log, platform), platform.capacity)
    if never.all():
        raise ScenarioError(
            f"platform.node_classes: none of the log's {len(never)} jobs fits the nodes (the "
            "cores, memory or GPUs a job asks for per node exceed every node's)"
        )


def replay_on_resources(scenario: Any, log: WorkloadLog, platform: LogPlatform,
                        scheduler: str) -> pd.DataFrame:  # fmt: skip
    """One replay with the multi-resource planners; returns the jobs table."""
    capacity = platform.capacity
    requests = requests_of(scenario, log, platform)
    never = never_fitting(requests, capacity)
    jobs = log.jobs.loc[~never].reset_index(drop=True)
    requests = [request for request, dropped in zip(requests, never, strict=True) if not dropped]
    scale = platform.reference_performance / float(platform.performance[0])
    if scale != 1.0:
        jobs = jobs.assign(estimate=jobs.estimate * scale, duration=jobs.duration * scale)
    progress = progress_bar(scenario, jobs, scheduler)
    on_progress = None
    if progress is not None:
        bar, first = progress

        def on_progress(now: float) -> None:
            bar.update(max(0, round(now - first) - bar.n))

    try:
        result = replay_resources(jobs, requests, capacity, platform.node_mode, scheduler,
                                  on_progress=on_progress)  # fmt: skip
    finally:
        if progress is not None:
            progress[0].close()
    table = job_table(jobs, result.replay.start_time, result.replay.first_reservation)
    table["processors"] = [request.total[CORES] for request in requests]
    held = [_held(allocation, request, platform) for allocation, request
            in zip(result.allocation, requests, strict=True)]  # fmt: skip
    nodes = [[node for node, _ in allocation] for allocation in result.allocation]
    table["allocated_resources"] = [node_intervals(tuple(n)) for n in nodes]
    amounts = [np.asarray(h, dtype=np.int64).reshape(-1, capacity.shape[1]) for h in held]
    per_second = [
        float((platform.price[n] * a[:, CORES] / capacity[n, CORES]).sum()
              + (platform.resource_price[n] * a).sum())
        for n, a in zip(nodes, amounts, strict=True)
    ]  # fmt: skip
    table["cost"] = table.run_time.to_numpy() * np.asarray(per_second)
    totals = np.array([a.sum(axis=0) for a in amounts], dtype=np.int64).reshape(-1, 3)
    table["cores"], table["memory_mb"], table["gpus"] = totals.T
    table["resource_class"] = resource_classes(totals, capacity, platform.memory_tracked)
    table["allocation"] = [allocation_text(n, a) for n, a in zip(nodes, amounts, strict=True)]
    table.attrs["peak_processors"] = result.replay.peak_processors
    table.attrs["dropped_never_fits"] = int(never.sum())
    return table


def _held(allocation, request: ResourceRequest, platform: LogPlatform) -> list[list[int]]:
    """What an allocation holds per node (exclusive: the whole node)."""
    if platform.node_mode == "exclusive":
        held = [platform.capacity[node].tolist() for node, _ in allocation]
    else:
        held = [[units * amount for amount in request.unit] for _, units in allocation]
    if not platform.memory_tracked:  # an untracked node's memory is a huge stand-in
        held = [[amounts[0], 0, *amounts[2:]] for amounts in held]
    return held
