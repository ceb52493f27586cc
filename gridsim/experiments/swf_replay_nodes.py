"""Log replays on nodes that differ: every window chosen by the scenario's policy.

Consumes a log's jobs and a :class:`~gridsim.workloads.platform.LogPlatform` whose nodes differ
(or carry cores, memory and GPUs, or a power cap); produces the replay's jobs table. The jobs
become a job-flow :class:`~gridsim.sim.engine.Instance` run by the node-level planners of
:mod:`gridsim.scheduling.queue_policies` on the SimPy engine (docs/swf.md, "Node-level
replays at log scale").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gridsim.experiments.swf_replay_resources import (
    add_resource_columns,
    declares_resources,
    drop_over_cap,
    log_power_limit,
    processor_tasks,
    task_nodes,
    task_resource_price,
    uses_resource_planners,
)
from gridsim.experiments.swf_replay_tables import (
    at_machine_speed,
    job_table,
    peak_in_use,
    progress_bar,
)
from gridsim.resources import ResourceRequest
from gridsim.sim.log_replay import node_intervals
from gridsim.workloads.platform import LogPlatform
from gridsim.workloads.records import WorkloadLog

if TYPE_CHECKING:
    import pandas as pd

    from gridsim.experiments.swf_replay import SchedulerName, SwfReplayScenario


def replay_node_level(
    scenario: SwfReplayScenario,
    log: WorkloadLog,
    platform: LogPlatform,
    scheduler: SchedulerName,
    requests: list[ResourceRequest] | None = None,
) -> pd.DataFrame:
    """One replay on nodes that differ, every window chosen by the scenario's policy (SimPy).

    ``first_reservation`` is kept for conservative backfilling only (NaN otherwise), as on
    the homogeneous machine. With cores, memory or GPUs, a job is one task per node on the
    nodes able to hold a task (:func:`~gridsim.experiments.swf_replay_resources.task_nodes`).
    """
    import pandas as pd

    from gridsim.scheduling.queue_policies import build_planner
    from gridsim.selection.energy_criteria import bind_energy
    from gridsim.selection.registry import build_criterion
    from gridsim.sim.engine import Engine

    jobs, tasks, power, over_cap = log.jobs, None, None, 0
    capped = platform.power_cap is not None
    if uses_resource_planners(platform, requests) and (declares_resources(scenario) or not capped):
        assert requests is not None
        jobs, tasks = task_nodes(log, platform, requests)
    if capped:  # a processor-only log: one task per processor, on any node
        power = log_power_limit(platform, at_machine_speed(jobs, platform))
        jobs, kept, over_cap = drop_over_cap(jobs, tasks or processor_tasks(jobs, platform), power)
        tasks = kept if tasks is not None else None
    instance = node_level_instance(jobs, platform, tasks)
    criterion = bind_energy(build_criterion(scenario.policy), platform.energy)
    planner = build_planner(scheduler, instance.nodes, instance.busy, criterion, power=power)
    progress = progress_bar(scenario, jobs, f"{scheduler}/{criterion.label}")
    try:
        if progress is not None:
            planner = _ReportingPlanner(planner, *progress)
        trace = Engine(instance, planner).run()
    finally:
        if progress is not None:
            progress[0].close()
    records = pd.DataFrame(trace.job_records())  # sorted by id: the table's order
    unplaced = records.final_state.isin(["rejected", "unfinished"])
    if unplaced.any():
        raise ValueError(f"{int(unplaced.sum())} jobs could not be placed on the node classes")
    first = records.first_promised_start.to_numpy()
    if scheduler != "conservative":
        first = np.full(len(first), np.nan)
    table = job_table(jobs, records.start.to_numpy(), first)
    table["finish_time"] = records.finish.to_numpy()
    table["run_time"] = records.runtime.to_numpy()
    table["cost"] = records.cost.to_numpy()
    if scenario.record_nodes:
        table["allocated_resources"] = [
            node_intervals(tuple(sorted(int(i) for i in text.split()))) for text in records.nodes
        ]
    table.attrs["peak_processors"] = peak_in_use(table)
    if tasks is not None:
        nodes = [[int(i) for i in text.split()] for text in records.nodes]
        units = [task.unit for task in tasks]
        add_resource_columns(table, units, nodes, platform, node_prices_paid=True)
        table.attrs["dropped_never_fits"] = len(log.jobs) - len(jobs) - over_cap
    table.attrs["dropped_over_power_cap"] = over_cap
    return table


class _ReportingPlanner:
    """A node-level planner that moves a progress bar to every submission's time.

    Everything else is the wrapped planner's (the engine reads its ``jobs``, ``running``...).
    """

    def __init__(self, planner, bar, first: float) -> None:
        self._planner, self._bar, self._first = planner, bar, first

    def submit(self, jobs, now: float):
        self._bar.update(max(0, round(now - self._first) - self._bar.n))
        return self._planner.submit(jobs, now)

    def __getattr__(self, name: str):
        return getattr(self._planner, name)


def node_level_instance(jobs: pd.DataFrame, platform: LogPlatform, tasks=None):
    """The log's jobs on the platform's nodes as a job-flow :class:`~gridsim.sim.engine.Instance`
    (job ``i`` is row ``i``): volume = estimate x reference performance, runtime factor =
    duration / estimate, no local load; with ``tasks`` (one
    :class:`~gridsim.experiments.swf_replay_resources.TaskNodes` per job), its
    task count and eligible nodes."""
    from gridsim.model import Job, Node
    from gridsim.sim.engine import Instance

    nodes = tuple(
        Node(int(i), float(p), float(c))
        for i, p, c in zip(platform.node_id, platform.performance, platform.price, strict=True)
    )
    counts = jobs.processors if tasks is None else [task.count for task in tasks]
    allowed = [None] * len(jobs) if tasks is None else [task.nodes for task in tasks]
    priced = ([None] * len(jobs) if tasks is None
              else [task_resource_price(platform, task.unit) for task in tasks])  # fmt: skip
    flow = tuple(
        Job(i, float(submit), int(n), float(estimate) * platform.reference_performance,
            runtime_factor=float(duration) / float(estimate), nodes_allowed=nodes_allowed,
            resource_price=resource_price)
        for i, (submit, n, estimate, duration, nodes_allowed, resource_price) in enumerate(zip(
            jobs.submit_time, counts, jobs.estimate, jobs.duration, allowed, priced,
            strict=True))
    )  # fmt: skip
    return Instance(nodes, ((),) * len(nodes), flow)
