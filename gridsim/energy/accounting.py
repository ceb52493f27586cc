"""Energy, electricity cost and carbon of a run's tasks, per job and per run.

Consumes an :class:`~gridsim.energy.model.EnergyModel` and the tasks a run executed (node,
start, end, job), taken from the jobs table (a replay: every node of
``allocated_resources`` held from ``start_time`` to ``finish_time``) or the tasks table (a
job flow: also runs that a failure killed, and the local load that is nobody's job);
produces the jobs table's ``energy_kwh``, ``electricity_cost`` and ``carbon_kg`` columns and
the runs table's totals, idle nodes included (docs/energy.md, "Accounting").

A node is idle, drawing ``idle_watts``, over the run's span (first submission to last end)
whenever no task of any kind holds it. Local load and outages are not any job's, so they add
neither busy nor idle energy. Cost: O(tasks x log breakpoints).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gridsim.energy.model import (
    JOULES_PER_KWH,
    POWER_DOWN_RUN_COLUMNS,
    RUN_ENERGY_COLUMNS,
    EnergyModel,
)
from gridsim.energy.power_down import IDLE, OFF, SWITCHING, power_states
from gridsim.sim.trace import ENERGY_JOB_COLUMNS, node_runs

#: The jobs table's energy columns (docs/results.md).
ENERGY_COLUMNS = tuple(column.name for column in ENERGY_JOB_COLUMNS)


def add_job_energy(jobs: pd.DataFrame, model: EnergyModel) -> pd.DataFrame:
    """The jobs table with :data:`ENERGY_COLUMNS` (0 for jobs that never ran)."""
    tasks = node_runs(jobs)
    accounts = model.task_accounts(tasks.node, tasks.start, tasks.end)
    columns = {}
    for name in ENERGY_COLUMNS:
        per_job = np.zeros(len(jobs))
        np.add.at(per_job, tasks.row.to_numpy(), accounts[name])
        columns[name] = per_job
    return jobs.assign(**columns)


def run_energy(
    model: EnergyModel,
    tasks: pd.DataFrame,
    span: tuple[float, float],
    busy: pd.Series | None = None,
) -> tuple[dict[str, float], pd.DataFrame | None]:
    """Totals of one run: busy energy of ``tasks`` (node, start, end) where ``busy`` is true
    (default: every task), idle energy of the nodes over ``span`` outside every task; and,
    when idle nodes power down, the per-node table (:data:`NODE_ENERGY_COLUMNS`; else None).

    Idle cost and carbon integrate each node's signals over its idle intervals.
    """
    busy = pd.Series(True, index=tasks.index) if busy is None else busy
    held = tasks[busy.to_numpy()]
    accounts = model.task_accounts(held.node, held.start, held.end)
    idle_node, idle_start, idle_end = idle_intervals(len(model), tasks, span)
    if model.power_down is not None:
        return _powered_down(model, held, accounts, (idle_node, idle_start, idle_end), span)
    idle_watts = model.idle_watts[idle_node]
    idle_kwh = idle_watts * (idle_end - idle_start) / JOULES_PER_KWH
    idle_cost = model.weighted("price", idle_node, idle_start, idle_end, idle_watts)
    idle_carbon = model.weighted("carbon", idle_node, idle_start, idle_end, idle_watts)
    busy_kwh = float(accounts["energy_kwh"].sum())
    return {
        "energy_kwh": busy_kwh + float(idle_kwh.sum()),
        "busy_energy_kwh": busy_kwh,
        "idle_energy_kwh": float(idle_kwh.sum()),
        "electricity_cost": float(accounts["electricity_cost"].sum() + idle_cost.sum()),
        "carbon_kg": float(accounts["carbon_kg"].sum() + idle_carbon.sum()),
    }, None


#: The per-node table of a run whose idle nodes power down (docs/results.md).
NODE_ENERGY_COLUMNS = ("node", "busy_energy_kwh", "idle_energy_kwh", "switching_energy_kwh",
                       "off_energy_kwh", "energy_kwh", "electricity_cost", "carbon_kg",
                       "off_time", "switch_offs")  # fmt: skip


def _powered_down(model, held, accounts, idle, span):
    """:func:`run_energy` where idle nodes switch off: their idle intervals split into the
    states of :mod:`~gridsim.energy.power_down`, summed per node and over the run."""
    idle_node, idle_start, idle_end = idle
    states = power_states(model, idle_node, idle_start, idle_end, idle_end >= span[1])
    kwh = states.watts * (states.end - states.start) / JOULES_PER_KWH
    nodes = len(model)

    def per_node(node, values, where=None):
        weights = values if where is None else np.where(where, values, 0.0)
        return np.bincount(np.asarray(node, dtype=np.int64), weights, minlength=nodes)

    held_node = held.node.to_numpy(dtype=np.int64)
    table = {"node": np.arange(nodes),
             "busy_energy_kwh": per_node(held_node, accounts["energy_kwh"])}  # fmt: skip
    for name, state in (("idle", IDLE), ("switching", SWITCHING), ("off", OFF)):
        table[f"{name}_energy_kwh"] = per_node(states.node, kwh, states.state == state)
    table["energy_kwh"] = sum(table[f"{name}_energy_kwh"]
                              for name in ("busy", "idle", "switching", "off"))  # fmt: skip
    for column, which in (("electricity_cost", "price"), ("carbon_kg", "carbon")):
        drawn = model.weighted(which, states.node, states.start, states.end, states.watts)
        table[column] = per_node(held_node, accounts[column]) + per_node(states.node, drawn)
    off = states.state == OFF
    table["off_time"] = per_node(states.node, states.end - states.start, off)
    table["switch_offs"] = np.bincount(idle_node[states.switched_off], minlength=nodes)
    frame = pd.DataFrame(table, columns=list(NODE_ENERGY_COLUMNS))
    totals = {name: float(frame[name].sum()) for name in (*RUN_ENERGY_COLUMNS,
                                                          *POWER_DOWN_RUN_COLUMNS)}  # fmt: skip
    totals["switch_offs"] = int(frame.switch_offs.sum())
    return totals, frame


def idle_intervals(nodes: int, tasks: pd.DataFrame, span: tuple[float, float]):
    """(node, start, end) arrays of the intervals of ``span`` no task holds, node by node."""
    first, last = span
    order = np.lexsort((tasks.start.to_numpy(), tasks.node.to_numpy()))
    node = tasks.node.to_numpy()[order]
    start = np.clip(tasks.start.to_numpy(float)[order], first, last)
    end = np.clip(tasks.end.to_numpy(float)[order], first, last)
    out_node, out_start, out_end = [], [], []
    position = 0
    for n in range(nodes):
        free_from = first
        while position < len(node) and node[position] == n:
            if start[position] > free_from:
                out_node.append(n)
                out_start.append(free_from)
                out_end.append(start[position])
            free_from = max(free_from, end[position])
            position += 1
        if last > free_from:
            out_node.append(n)
            out_start.append(free_from)
            out_end.append(last)
    return (np.array(out_node, dtype=np.int64), np.array(out_start, float),
            np.array(out_end, float))  # fmt: skip


def account_jobs(
    jobs: pd.DataFrame, model: EnergyModel
) -> tuple[pd.DataFrame, dict[str, float], pd.DataFrame | None]:
    """A replay's jobs table with :data:`ENERGY_COLUMNS`, its run totals (span: first
    submission to last finish) and, when idle nodes power down, its per-node table."""
    span = (float(jobs.submit_time.min()), float(np.nanmax(jobs.finish_time.to_numpy(float))))
    if model.uniform:
        return _account_uniform(jobs, model, span)
    tasks = node_runs(jobs)
    return add_job_energy(jobs, model), *run_energy(model, tasks, span)


def _account_uniform(jobs: pd.DataFrame, model: EnergyModel, span: tuple[float, float]):
    """:func:`account_jobs` on nodes all alike: a job's accounts are its processors times one
    node's; a node's tasks never overlap in a replay, so the idle node-time is the span's
    node-time less the jobs' (the same numbers as node by node, in O(jobs))."""
    ran = jobs.start_time.notna().to_numpy() & jobs.finish_time.notna().to_numpy()
    start = np.where(ran, jobs.start_time.to_numpy(float), 0.0)
    end = np.where(ran, jobs.finish_time.to_numpy(float), 0.0)
    width = jobs.processors.to_numpy(float) * ran
    nodes = np.zeros(len(jobs), dtype=np.int64)  # any node stands for all
    per_node = model.task_accounts(nodes, start, end)
    columns = {name: width * per_node[name] for name in ENERGY_COLUMNS}
    first, last = span
    held = math.fsum(width * (end - start))
    idle_watts = float(model.idle_watts[0])
    idle_kwh = idle_watts * (len(model) * (last - first) - held) / JOULES_PER_KWH
    idle = {
        which: float(model.weighted(which, [0], [first], [last], [idle_watts])[0]) * len(model)
        - math.fsum(width * model.weighted(which, nodes, start, end, idle_watts))
        for which in ("price", "carbon")
    }
    busy_kwh = math.fsum(columns["energy_kwh"])
    return (
        jobs.assign(**columns),
        {
            "energy_kwh": busy_kwh + idle_kwh,
            "busy_energy_kwh": busy_kwh,
            "idle_energy_kwh": idle_kwh,
            "electricity_cost": math.fsum(columns["electricity_cost"]) + idle["price"],
            "carbon_kg": math.fsum(columns["carbon_kg"]) + idle["carbon"],
        },
        None,
    )


#: Task kinds of a job flow's tasks table that are a job's (a run that ended or was killed).
JOB_TASK_KINDS = ("job", "lost")


def account_flow(
    jobs: pd.DataFrame, tasks: pd.DataFrame, model: EnergyModel
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, float], pd.DataFrame | None]:
    """A job flow's jobs and tasks tables with :data:`ENERGY_COLUMNS` (a job's: the sum of
    its runs, killed ones included; local load and outages: 0), its run totals (span:
    first submission to the last end of a job's task) and, when idle nodes power down, its
    per-node table."""
    mine = tasks.kind.isin(JOB_TASK_KINDS).to_numpy()
    accounts = model.task_accounts(tasks.node[mine], tasks.start[mine], tasks.end[mine])
    tasks = tasks.assign(**{name: 0.0 for name in ENERGY_COLUMNS})
    for name in ENERGY_COLUMNS:
        tasks.loc[mine, name] = accounts[name]
    per_job = tasks[mine].groupby("job_id")[list(ENERGY_COLUMNS)].sum()
    jobs = jobs.join(per_job, on="job_id").fillna({name: 0.0 for name in ENERGY_COLUMNS})
    ends = tasks.end[mine]
    first = float(jobs.submit_time.min()) if len(jobs) else 0.0
    span = (first, float(ends.max()) if len(ends) else first)
    totals, nodes = run_energy(model, tasks, span, busy=pd.Series(mine, index=tasks.index))
    return jobs, tasks, totals, nodes
