"""A job flow's power cap (``environment.power_cap``): what the scenario must satisfy, and the
cap as the planners take it for one instance.

Consumes the job-flow scenario and one drawn instance; produces the
:class:`~gridsim.scheduling.resource_profile.PowerLimit` the planners of
:mod:`gridsim.scheduling.power_plan` plan under, and the runs table's count of jobs the cap
never lets in. docs/energy.md, "A power cap"; docs/model.md, "Power cap".
"""

from __future__ import annotations

from typing import Any, get_args

import pandas as pd

from gridsim.energy.cap import power_limit
from gridsim.energy.model import EnergyModel
from gridsim.scheduling.power_plan import OVER_CAP
from gridsim.scheduling.queue_policies import SchedulerName
from gridsim.scheduling.resource_profile import PowerLimit
from gridsim.sim.engine import Instance


def check_power_cap(scenario: Any) -> None:
    """ValueError (one line naming the field) when a job flow cannot plan under its cap:
    overruns or faults (the plan rests on runtimes that hold), a plugin scheduler, or a cap
    below what the smallest job draws on the least-drawing nodes the environment can have."""
    environment = scenario.environment
    cap = environment.power_cap
    if cap is None:
        return
    if scenario.jobs.runtime_factor.high > 1:
        raise ValueError("environment.power_cap: jobs.runtime_factor above 1 lets jobs run past "
                         "their windows, drawing power the plan does not hold; a cap needs "
                         "runtime_factor.high <= 1")  # fmt: skip
    if scenario.faults.enabled:
        raise ValueError("environment.power_cap: faults re-plan windows outside the power plan; "
                         "a cap takes no faults section")  # fmt: skip
    if not isinstance(scenario.scheduler, str) or scenario.scheduler not in get_args(SchedulerName):
        raise ValueError("environment.power_cap: only the built-in schedulers fcfs, easy and "
                         "conservative plan under a power cap")  # fmt: skip
    power = environment.power
    assert power is not None  # the environment's own validator
    smallest = 1 if scenario.workload is not None else scenario.jobs.n[0]
    least = smallest * float(power.busy_at(environment.performance.low))
    lowest = float(cap.signal().values.min())
    if lowest < least:
        raise ValueError(f"environment.power_cap: its lowest value ({lowest:g} W) is below what "
                         f"the smallest job draws on the least-drawing nodes ({least:g} W): no "
                         "job could ever start")  # fmt: skip


def flow_power_limit(scenario: Any, instance: Instance, energy: EnergyModel) -> PowerLimit:
    """The cap from time 0 to a horizon no plan reaches: the last arrival (or the end of
    local load) plus every job's runtime on the slowest node, rounded up to its quantum (each
    job fits the cap alone); after it the cap's lowest value holds."""
    cap = scenario.environment.power_cap
    slowest = min(node.performance for node in instance.nodes)
    busy_until = max((end for intervals in instance.busy for _, end in intervals), default=0.0)
    last_arrival = max((job.arrival for job in instance.jobs), default=0.0)
    work = sum(job.volume / slowest + job.time_quantum for job in instance.jobs)
    horizon = max(last_arrival, busy_until) + work + 1.0
    return power_limit(energy, cap.signal(), 0.0, horizon)


def over_cap_count(jobs: pd.DataFrame) -> int:
    """Jobs rejected because the cap never lets them in (from the jobs table's reasons)."""
    rejected = jobs["final_state"] == "rejected"
    return int((rejected & (jobs["reason"] == OVER_CAP)).sum())
