"""The report's section on cores, memory and GPUs, for runs on nodes that declare them.

Consumes :class:`~gridsim.analysis.results.Results` whose jobs table has the per-resource
columns (docs/resources.md) and the kind's declaration, which gives the nodes' capacities
(``node_capacity``); produces the section's tables and figures (:class:`ResourceRuns`,
:func:`wait_by_class_table`, :func:`resource_figures`): utilisation of every resource over
time and stranded cores over time, one line per policy, and waits by resource class, drawn
from the same run per policy as the other schedule figures
(:func:`gridsim.analysis.figures.run_selection`). Runs on processors alone get no section.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from gridsim.analysis.figures import Drawn, schedules
from gridsim.analysis.jobflow_metrics import ran
from gridsim.analysis.resource_metrics import RESOURCE_CLASSES, has_resources
from gridsim.analysis.resource_plots import plot_resource_utilisation, plot_stranded_cores
from gridsim.analysis.results import Results
from gridsim.analysis.schedule_plots import plot_wait_by_resource_class
from gridsim.experiments.kinds import KindDeclaration, NodeCapacity


@dataclass(frozen=True)
class ResourceRuns:
    """One run per policy on nodes with cores, memory and GPUs, with the nodes."""

    jobs: dict[str, pd.DataFrame]
    nodes: NodeCapacity
    described: str
    time_unit: str
    origin: float | None
    prefix: str


def resource_runs(results: Results, declaration: KindDeclaration, prefix: str
                  ) -> ResourceRuns | None:  # fmt: skip
    """The runs the section draws; None when they ran on processors alone."""
    scenario = results.metadata[0].get("scenario_resolved", {})
    nodes = declaration.node_capacity(scenario)
    if nodes is None or results.jobs.empty or not has_resources(results.jobs):
        return None
    data = schedules(results, declaration, prefix)
    jobs = {policy: table for policy, table in data.jobs.items() if has_resources(table)}
    if not jobs:
        return None
    return ResourceRuns(jobs, nodes, data.described, data.time_unit, data.origin, prefix)


def wait_by_class_table(data: ResourceRuns) -> pd.DataFrame:
    """Per policy and resource class of the jobs that ran: jobs, mean, median and 95th
    percentile of the wait, in the kind's time unit."""
    rows = []
    for policy, jobs in data.jobs.items():
        done = jobs[ran(jobs)]
        for name in RESOURCE_CLASSES:
            waits = done.loc[done["resource_class"] == name, "wait_time"].to_numpy(dtype=float)
            if len(waits) == 0:
                continue
            unit = data.time_unit
            rows.append({"policy": policy, "resource class": name, "jobs": len(waits),
                         f"mean wait ({unit})": float(waits.mean()),
                         f"median wait ({unit})": float(np.median(waits)),
                         f"95th percentile ({unit})": float(np.quantile(waits, 0.95))})  # fmt: skip
    return pd.DataFrame(rows)


def resource_figures(data: ResourceRuns) -> list[Drawn]:
    """Utilisation per resource and stranded cores over time, and waits by resource class."""
    capacity, tracked = data.nodes.capacity, data.nodes.memory_tracked
    return [
        Drawn(f"{data.prefix}-resource-utilisation.png",
              plot_resource_utilisation(data.jobs, capacity, tracked, data.time_unit, data.origin),
              f"share of the nodes' cores, memory and GPUs in use over time, one line per "
              f"policy: {data.described}"),
        Drawn(f"{data.prefix}-stranded-cores.png",
              plot_stranded_cores(data.jobs, capacity, tracked, data.time_unit, data.origin),
              "free cores on nodes whose free memory is below one core's share or whose GPUs "
              f"are all held, over time, one line per policy: {data.described}"),
        Drawn(f"{data.prefix}-wait-by-resource-class.png",
              plot_wait_by_resource_class(data.jobs, data.time_unit),
              f"mean wait by resource class (gpu, memory, cpu): {data.described}"),
    ]  # fmt: skip
