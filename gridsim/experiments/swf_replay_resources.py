"""A log replayed on nodes with cores, memory and GPUs (the ``swf_replay`` kind's third engine).

Consumes a replay scenario whose node classes give ``cores``, ``memory_mb`` or ``gpus``, and
the log; produces the jobs table with the per-resource columns of
:data:`~gridsim.sim.trace.RESOURCE_JOB_COLUMNS`, and the runs table's per-resource metrics
(:mod:`gridsim.analysis.resource_metrics`).

Which engine: a log whose jobs all ask for processors only, on nodes of one core each, is a
processor count on identical nodes; the processor-count schedulers replay it exactly and fast
(:func:`uses_resource_planners` says no). Every other replay runs the multi-resource planners
of :mod:`gridsim.scheduling.resource_schedulers` in the loop of
:func:`gridsim.sim.log_replay.replay_resources` (their C translation unless the compiled core
is off). Jobs no set of nodes can ever hold are dropped and counted (``dropped_never_fits``).
A power cap (``platform.power_cap``) always takes the multi-resource planners, in Python (on a
processor-only platform, as nodes of one core whose tables keep the processor-count columns),
or, on nodes of different performance (one task per node), the window-search planners under
the cap of :mod:`gridsim.scheduling.power_plan`; a job whose nodes draw more than the cap's
lowest value, even on an empty machine (its first-fit nodes; one task per node: its
least-drawing able nodes), is dropped and counted (``dropped_over_power_cap``): under a
time-varying cap it might wait for ever.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gridsim.analysis.resource_metrics import resource_classes
from gridsim.config import ScenarioError
from gridsim.energy.cap import power_limit
from gridsim.experiments.swf_replay_tables import at_machine_speed, job_table, progress_callback
from gridsim.resources import CORES, GPUS, ResourceRequest
from gridsim.scheduling.resource_profile import PowerLimit, idle_draw_mw
from gridsim.sim.log_replay import node_intervals, replay_resources
from gridsim.sim.trace import allocation_text
from gridsim.workloads.platform import LogPlatform
from gridsim.workloads.records import WorkloadLog
from gridsim.workloads.requests import job_requests, never_fitting, processors_only

if TYPE_CHECKING:
    import pandas as pd


def requests_of(scenario: Any, log: WorkloadLog, platform: LogPlatform
                ) -> list[ResourceRequest] | None:  # fmt: skip
    """Every job's request on the scenario's platform (:mod:`gridsim.workloads.requests`);
    None where the node classes declare no cores, memory or GPUs. Computed once per replay
    and handed to the functions below."""
    if platform.capacity is None:
        return None
    section = scenario.platform
    as_gpus = section.processors_as == "gpus"
    return job_requests(log.jobs, platform, section.default_memory_per_core_mb,
                        section.cores_per_gpu if as_gpus else None,
                        section.gpus_per_task if as_gpus else None)  # fmt: skip


def declares_resources(scenario: Any) -> bool:
    """Whether the node classes give cores, memory or GPUs (the per-resource columns and
    metrics then appear; a capped processor-only replay plans on one core a node without)."""
    return any(node_class.has_resources for node_class in scenario.platform.node_classes)


def uses_resource_planners(platform: LogPlatform, requests: list[ResourceRequest] | None) -> bool:
    """Whether the replay needs the multi-resource planners (see the module docstring)."""
    if requests is None:
        return False
    if platform.power_cap is not None:
        return True
    one_core = bool((platform.capacity[:, CORES] == 1).all())
    return not (one_core and processors_only(requests))


@dataclass(frozen=True)
class TaskNodes:
    """A job as the window search places it: ``count`` tasks, one per node, each holding
    ``unit``, on any of ``nodes`` (those able to hold it)."""

    count: int
    unit: tuple[int, ...]
    nodes: tuple[int, ...]


def task_nodes(log: WorkloadLog, platform: LogPlatform, requests: list[ResourceRequest]
               ) -> tuple[pd.DataFrame, list[TaskNodes]]:  # fmt: skip
    """The jobs that fit one task per node, and their tasks (nodes of different performance:
    the window-search policies of [TY18]-[TY20] keep one task per node)."""
    tasks = [_tasks(request, platform.capacity) for request in requests]
    fits = np.array([len(task.nodes) >= task.count for task in tasks], dtype=bool)
    jobs = log.jobs.loc[fits].reset_index(drop=True)
    return jobs, [task for task, fit in zip(tasks, fits, strict=True) if fit]


def processor_tasks(jobs: pd.DataFrame, platform: LogPlatform) -> list[TaskNodes]:
    """A processor-only log's jobs as the node-level replay places them: one task per
    processor, on any node."""
    every = tuple(range(len(platform)))
    return [TaskNodes(int(n), (1, 0, 0), every) for n in jobs.processors]


def _tasks(request: ResourceRequest, capacity: np.ndarray) -> TaskNodes:
    able = (capacity >= np.asarray(request.unit, dtype=np.int64)).all(axis=1)
    return TaskNodes(request.units, request.unit, tuple(np.flatnonzero(able).tolist()))


def one_task_per_node(scenario: Any, platform: LogPlatform) -> bool:
    """Whether jobs are placed one task per node (nodes of different performance, or the
    scenario's ``resource_planning``) rather than on the profile of every resource."""
    return scenario.platform.resource_planning == "one_task_per_node" or not platform.one_speed


def check_platform(
    scenario: Any, log: WorkloadLog, platform: LogPlatform, requests: list[ResourceRequest] | None
) -> None:
    """A ScenarioError when no job of the log fits the node classes (one task per node where
    the nodes differ in performance), GPU tasks are larger than every node, or a power cap
    meets nodes of different performance or jobs running past their estimates."""
    if not uses_resource_planners(platform, requests):
        return
    if platform.power_cap is not None:
        _check_power_cap(scenario, log, platform, requests)
    most = int(platform.capacity[:, GPUS].max())
    per_task = scenario.platform.gpus_per_task
    if per_task is not None and per_task > most:
        raise ScenarioError(f"platform.gpus_per_task: {per_task} GPUs per task, but no node has "
                            f"more than {most}")  # fmt: skip
    assert requests is not None
    if one_task_per_node(scenario, platform):
        tasks = (_tasks(request, platform.capacity) for request in requests)
        none_fits = not any(len(task.nodes) >= task.count for task in tasks)
    else:
        none_fits = bool(never_fitting(requests, platform.capacity).all())
    if none_fits:
        raise ScenarioError(
            f"platform.node_classes: none of the log's {len(requests)} jobs fits the nodes (the "
            "cores, memory or GPUs a job asks for per node exceed every node's)"
        )


def replay_on_resources(
    scenario: Any,
    log: WorkloadLog,
    platform: LogPlatform,
    scheduler: str,
    requests: list[ResourceRequest],
) -> pd.DataFrame:
    """One replay with the multi-resource planners; returns the jobs table."""
    capacity = platform.capacity
    never = never_fitting(requests, capacity)
    power = None
    if platform.power_cap is not None:
        power = log_power_limit(platform, at_machine_speed(log.jobs, platform))
        lowest = min(power.cap_mw)  # a job above it might wait for ever
        over_cap = np.array([idle_draw_mw(capacity, request, power.node_mw) > lowest
                             for request in requests], dtype=bool) & ~never  # fmt: skip
        never |= over_cap
    jobs = log.jobs.loc[~never].reset_index(drop=True)
    requests = [request for request, dropped in zip(requests, never, strict=True) if not dropped]
    jobs = at_machine_speed(jobs, platform)
    with progress_callback(scenario, jobs, scheduler) as on_progress:
        result = replay_resources(jobs, requests, capacity, platform.node_mode, scheduler,
                                  power=power, on_progress=on_progress)  # fmt: skip
    table = job_table(jobs, result.replay.start_time, result.replay.first_reservation)
    table["processors"] = [request.total[CORES] for request in requests]
    nodes = [[node for node, _ in allocation] for allocation in result.allocation]
    table["allocated_resources"] = [node_intervals(tuple(n)) for n in nodes]
    if declares_resources(scenario):
        units = [[[units * a for a in request.unit] for _, units in allocation]
                 for allocation, request in zip(result.allocation, requests,
                                                strict=True)]  # fmt: skip
        add_resource_columns(table, units, nodes, platform, node_prices_paid=False)
    else:  # processors on nodes of one core: each node's price while the job holds it
        paid = [float(platform.price[n].sum()) for n in nodes]
        table["cost"] = table.run_time.to_numpy() * np.asarray(paid)
    table.attrs["peak_processors"] = result.replay.peak_processors
    table.attrs["dropped_never_fits"] = int(never.sum())
    if power is not None:
        table.attrs["dropped_over_power_cap"] = int(over_cap.sum())
    return table


def _check_power_cap(scenario: Any, log: WorkloadLog, platform: LogPlatform,
                     requests: list[ResourceRequest] | None) -> None:  # fmt: skip
    over = int((log.jobs["duration"] > log.jobs["estimate"]).sum())
    if over:  # the plans, and so the cap, rest on estimates
        raise ScenarioError(f"platform.power_cap: {over} jobs run past their estimate "
                            "(workload.mapping.on_overrun: run); a cap is planned on estimates "
                            "and needs on_overrun: kill")  # fmt: skip
    assert requests is not None
    power = log_power_limit(platform, log.jobs)
    lowest = min(power.cap_mw)
    if one_task_per_node(scenario, platform):
        tasks = [_tasks(request, platform.capacity) for request in requests]
        never = (least_draw_mw(task, power.node_mw) > lowest for task in tasks)
    else:
        never = (idle_draw_mw(platform.capacity, r, power.node_mw) > lowest for r in requests)
    if all(never):
        raise ScenarioError(f"platform.power_cap: no job of the log fits under the cap's lowest "
                            f"value ({lowest / 1000:g} W), even on an empty machine")  # fmt: skip


def least_draw_mw(task: TaskNodes, node_mw: np.ndarray) -> float:
    """What a job placed one task per node draws at least: its ``count`` least-drawing
    able nodes (infinite if too few are able)."""
    draws = np.sort(np.asarray(node_mw)[list(task.nodes)])
    return float(draws[: task.count].sum()) if len(draws) >= task.count else np.inf


def drop_over_cap(jobs: pd.DataFrame, tasks: list[TaskNodes], power: PowerLimit
                  ) -> tuple[pd.DataFrame, list[TaskNodes], int]:  # fmt: skip
    """The jobs (one task per node) whose least-drawing able nodes fit the cap's lowest
    value, their tasks, and how many were dropped (under a time-varying cap the others might
    wait for ever)."""
    lowest = min(power.cap_mw)
    fits = np.array([least_draw_mw(task, power.node_mw) <= lowest for task in tasks], dtype=bool)
    kept = [task for task, fit in zip(tasks, fits, strict=True) if fit]
    return jobs.loc[fits].reset_index(drop=True), kept, int((~fits).sum())


def log_power_limit(platform: LogPlatform, jobs: pd.DataFrame) -> PowerLimit:
    """The platform's cap over the log's span (the last submission plus the longest
    estimate)."""
    assert platform.energy is not None and platform.power_cap is not None
    submit = jobs["submit_time"].to_numpy(dtype=float)
    estimate = jobs["estimate"].to_numpy(dtype=float)
    start = float(submit.min()) if len(submit) else 0.0
    horizon = float(submit.max() + estimate.max()) + 1.0 if len(submit) else 1.0
    return power_limit(platform.energy, platform.power_cap, start, horizon)


def task_resource_price(platform: LogPlatform, unit: tuple[int, ...]) -> tuple[float, ...] | None:
    """By node id, what a task holding ``unit`` (whole nodes when exclusive) adds to the
    node's price per second at the platform's core-, GiB- and GPU-hour prices; None when
    those prices are all 0 (the windows then see the node prices alone, as before)."""
    prices = platform.resource_price
    if prices is None or not prices.any():
        return None
    held = platform.capacity if platform.node_mode == "exclusive" else np.asarray(unit)[None, :]
    if not platform.memory_tracked:  # an untracked node's memory is a huge stand-in
        held = held * np.array([1, 0, 1], dtype=np.int64)
    return tuple((prices * held).sum(axis=1).tolist())


def add_resource_columns(table: pd.DataFrame, held: list, nodes: list[list[int]],
                         platform: LogPlatform, node_prices_paid: bool) -> None:  # fmt: skip
    """The per-resource columns (:data:`~gridsim.sim.trace.RESOURCE_JOB_COLUMNS`) from what
    each job held on each of its nodes (``held``: per job, one amount vector per node, or one
    vector for all of them; exclusive nodes: the whole node), and ``cost``: the resource
    prices, plus the nodes' prices for the job's share of their cores unless
    ``node_prices_paid`` (``cost`` already holds them)."""
    capacity = platform.capacity
    amounts = []
    for job_nodes, job_held in zip(nodes, held, strict=True):
        if platform.node_mode == "exclusive":
            job_amounts = capacity[job_nodes]
        else:
            job_amounts = np.broadcast_to(np.asarray(job_held, dtype=np.int64),
                                          (len(job_nodes), capacity.shape[1]))  # fmt: skip
        if not platform.memory_tracked:  # an untracked node's memory is a huge stand-in
            job_amounts = job_amounts * np.array([1, 0, 1], dtype=np.int64)
        amounts.append(np.asarray(job_amounts, dtype=np.int64).reshape(-1, capacity.shape[1]))
    share = 0.0 if node_prices_paid else 1.0
    per_second = [
        float(share * (platform.price[n] * a[:, CORES] / capacity[n, CORES]).sum()
              + (platform.resource_price[n] * a).sum())
        for n, a in zip(nodes, amounts, strict=True)
    ]  # fmt: skip
    paid = table.cost.to_numpy(dtype=float) if node_prices_paid else 0.0
    table["cost"] = paid + table.run_time.to_numpy() * np.asarray(per_second)
    totals = np.array([a.sum(axis=0) for a in amounts], dtype=np.int64).reshape(-1, 3)
    table["cores"], table["memory_mb"], table["gpus"] = totals.T
    table["resource_class"] = resource_classes(totals, capacity, platform.memory_tracked)
    table["allocation"] = [allocation_text(n, a) for n, a in zip(nodes, amounts, strict=True)]
