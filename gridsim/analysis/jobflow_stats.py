"""Job-flow statistics from traces: per-run metrics, per-policy summaries, paired advantages.

Consumes the ``jobs`` and ``tasks`` tables of :mod:`gridsim.sim.trace` (one simulation, or many
with ``policy``/``replication``/``queue_size`` columns); produces one ``runs`` row per
simulation and summaries with 95% confidence intervals (:mod:`gridsim.analysis.stats`).

Definitions (times in simulation time units, cost in money units):

* ``mean_finish``: mean finish time of the jobs that ran (the paper's "average job finish
  time" [TY20, Tables 2-3]); ``makespan``: last finish minus first arrival.
* ``mean_wait``: mean of start - arrival.
* ``mean_bounded_slowdown``: mean of ``max(1, (wait + runtime) / max(runtime, tau))`` with the
  threshold ``tau`` (default 10 time units).
* ``total_cost``/``mean_cost``: sum and mean of job costs (runtime times the nodes' prices).
* ``utilisation``: job node-time over the node-time not taken by local load in
  ``[first arrival, last finish]``.
* ``finish_advantage_pct``: ``100 * (baseline - policy) / baseline`` of ``mean_finish``, paired
  on the same instance [TY20, Fig. 3-4]; positive means earlier than the baseline.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gridsim.analysis.stats import mean_interval, summarise_by

RUN_METRICS = [
    "mean_finish", "makespan", "mean_wait", "mean_bounded_slowdown", "total_cost",
    "mean_cost", "utilisation", "jobs_finished", "jobs_not_finished", "delayed_jobs",
]  # fmt: skip


def run_metrics(
    jobs: pd.DataFrame, tasks: pd.DataFrame, n_nodes: int, slowdown_threshold: float = 10.0
) -> dict[str, float]:
    """The metrics of one simulation (see the module docstring)."""
    ran = jobs[jobs["final_state"].isin(["finished", "killed"])]
    first_arrival = float(jobs["arrival"].min()) if len(jobs) else 0.0
    last_finish = float(ran["finish"].max()) if len(ran) else first_arrival
    makespan = last_finish - first_arrival
    runtime = ran["runtime"].to_numpy(dtype=float)
    wait = ran["wait"].to_numpy(dtype=float)
    slowdown = np.maximum(1.0, (wait + runtime) / np.maximum(runtime, slowdown_threshold))
    job_tasks = tasks[tasks["kind"] == "job"]
    local = tasks[tasks["kind"] == "local_load"]
    local_time = float(
        (np.minimum(local["end"], last_finish) - np.maximum(local["start"], first_arrival))
        .clip(lower=0)
        .sum()
    )
    available = n_nodes * makespan - local_time
    job_time = float((job_tasks["end"] - job_tasks["start"]).sum())
    nan = float("nan")
    return {
        "mean_finish": float(ran["finish"].mean()) if len(ran) else nan,
        "makespan": makespan,
        "mean_wait": float(wait.mean()) if len(ran) else nan,
        "mean_bounded_slowdown": float(slowdown.mean()) if len(ran) else nan,
        "total_cost": float(ran["cost"].sum()),
        "mean_cost": float(ran["cost"].mean()) if len(ran) else nan,
        "utilisation": job_time / available if available > 0 else nan,
        "jobs_finished": int((jobs["final_state"] == "finished").sum()),
        "jobs_not_finished": int((jobs["final_state"] != "finished").sum()),
        "delayed_jobs": int((jobs["delay"] > 0).sum()),
    }


def add_advantage(
    runs: pd.DataFrame, baseline: str, metric: str = "mean_finish", column: str | None = None
) -> pd.DataFrame:
    """``runs`` with ``100 * (baseline - policy) / baseline`` of ``metric`` per instance.

    Instances are identified by ``replication`` and, if present, ``queue_size``.
    """
    column = column or f"{metric.removeprefix('mean_')}_advantage_pct"
    keys = [k for k in ("queue_size", "replication") if k in runs.columns]
    base = runs[runs["policy"] == baseline].set_index(keys)[metric]
    reference = runs.set_index(keys).index.map(base)
    out = runs.copy()
    out[column] = 100.0 * (reference.to_numpy(dtype=float) - out[metric]) / reference
    return out


def relative_advantage(
    runs: pd.DataFrame, baseline: str, metric: str = "mean_finish"
) -> pd.DataFrame:
    """Per queue size and policy: mean paired advantage over ``baseline`` (%) and its 95% CI."""
    paired = add_advantage(runs, baseline, metric, column="advantage_pct")
    keys = [k for k in ("queue_size", "policy") if k in paired.columns]
    rows = []
    for group, part in paired.groupby(keys, sort=False):
        mean, half, count = mean_interval(part["advantage_pct"].to_numpy(dtype=float))
        row = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
        rows.append({**row, "advantage_pct": mean, "ci95": half, "runs": count})
    return pd.DataFrame(rows)


def summarise_runs(runs: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """Per queue size (if any) and policy: mean and 95% half-width of every metric."""
    keys = [k for k in ("queue_size", "policy") if k in runs.columns]
    return summarise_by(runs, keys, [m for m in metrics if m in runs.columns])
