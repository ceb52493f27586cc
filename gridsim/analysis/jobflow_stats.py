"""Job-flow statistics from traces: per-run metrics, per-policy summaries, paired advantages.

Consumes the ``jobs`` (with the per-job metrics) and ``tasks`` tables of
:mod:`gridsim.sim.trace` (one simulation, or many
with ``policy``/``replication``/``queue_size`` columns); produces one ``runs`` row per
simulation and summaries with 95% confidence intervals (:mod:`gridsim.analysis.stats`).

Definitions (times in simulation time units, cost in money units):

* ``mean_finish``: mean finish time of the jobs that ran (the paper's "average job finish
  time" [TY20, Tables 2-3]); ``makespan``: last finish minus first arrival.
* ``mean_wait``: mean of start - arrival; ``mean_response``: mean of finish - arrival.
* ``mean_slowdown``: mean of ``(wait + runtime) / runtime``; ``mean_bounded_slowdown``: mean
  of ``max(1, (wait + runtime) / max(runtime, tau))`` with the threshold ``tau`` (default 10
  time units). The per-job formulas are those of :mod:`gridsim.analysis.jobflow_metrics`
  (the same definitions serve SWF logs and gridsim traces).
* ``total_cost``/``mean_cost``: sum and mean of job costs (runtime times the nodes' prices).
* ``utilisation``: job node-time over the node-time not taken by local load in
  ``[first arrival, last finish]``.
* ``jobs_rejected_too_wide``: jobs no window fits because they ask for more nodes than the
  environment has; ``jobs_rejected_no_window``: the other rejected jobs (too few nodes fast
  enough, or every window over budget).
* ``finish_advantage_pct``: ``100 * (baseline - policy) / baseline`` of ``mean_finish``, paired
  on the same instance [TY20, Fig. 3-4]; positive means earlier than the baseline.

Dependability (docs/model.md, "Faults"), over the jobs that got a reservation (not rejected):

* ``disturbed_share``: share of them that started later than first promised or were killed.
* ``mean_start_delay``: mean of ``max(0, start - first_promised_start)`` over the jobs that
  ran (a killed job's last start counts).
* ``lost_work``: node-time of killed runs; ``retries``: kills; ``jobs_failed``: jobs that
  ran out of retries; ``total_cost_with_losses``: ``total_cost`` plus the lost runs' cost.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from gridsim.analysis.jobflow_metrics import ran
from gridsim.analysis.stats import comparison_keys, mean_interval

RUN_METRICS = [
    "mean_finish", "makespan", "mean_wait", "mean_response", "mean_slowdown",
    "mean_bounded_slowdown", "total_cost",
    "mean_cost", "utilisation", "jobs_finished", "jobs_not_finished", "delayed_jobs",
    "disturbed_share", "mean_start_delay", "lost_work", "retries", "jobs_failed",
    "total_cost_with_losses", "jobs_rejected_too_wide", "jobs_rejected_no_window",
]  # fmt: skip


def run_metrics(jobs: pd.DataFrame, tasks: pd.DataFrame, n_nodes: int) -> dict[str, float]:
    """The metrics of one simulation (see the module docstring) from its jobs table with the
    per-job metrics (:func:`gridsim.analysis.jobflow_metrics.job_metrics`) and its tasks; a
    mean over no jobs is NaN."""
    done = jobs[ran(jobs)]
    first_arrival = float(jobs["submit_time"].min()) if len(jobs) else 0.0
    last_finish = float(done["finish_time"].max()) if len(done) else first_arrival
    makespan = last_finish - first_arrival
    job_tasks = tasks[tasks["kind"] == "job"]
    local = tasks[tasks["kind"] == "local_load"]
    local_time = float(
        (np.minimum(local["end"], last_finish) - np.maximum(local["start"], first_arrival))
        .clip(lower=0)
        .sum()
    )
    available = n_nodes * makespan - local_time
    job_time = float((job_tasks["end"] - job_tasks["start"]).sum())
    rejected = jobs["final_state"] == "rejected"
    planned = jobs[~rejected]
    start_delay = (done["start_time"] - done["first_reservation"]).clip(lower=0)
    return {
        "mean_finish": float(done["finish_time"].mean()),
        "makespan": makespan,
        "mean_wait": float(done["wait_time"].mean()),
        "mean_response": float(done["response_time"].mean()),
        "mean_slowdown": float(done["slowdown"].mean()),
        "mean_bounded_slowdown": float(done["bounded_slowdown"].mean()),
        "total_cost": float(done["cost"].sum()),
        "mean_cost": float(done["cost"].mean()),
        "utilisation": job_time / available if available > 0 else math.nan,
        "jobs_finished": int((jobs["final_state"] == "finished").sum()),
        "jobs_not_finished": int((jobs["final_state"] != "finished").sum()),
        "delayed_jobs": int((jobs["delay"] > 0).sum()),
        "disturbed_share": float(planned["disturbed"].mean()),
        "mean_start_delay": float(start_delay.mean()),
        "lost_work": float(jobs["lost_work"].sum()),
        "retries": int(jobs["retries"].sum()),
        "jobs_failed": int((jobs["final_state"] == "failed").sum()),
        "total_cost_with_losses": float(done["cost"].sum() + jobs["lost_cost"].sum()),
        "jobs_rejected_too_wide": int((rejected & (jobs["processors"] > n_nodes)).sum()),
        "jobs_rejected_no_window": int((rejected & (jobs["processors"] <= n_nodes)).sum()),
    }


def add_advantage(
    runs: pd.DataFrame,
    baseline: str,
    metric: str = "mean_finish",
    column: str | None = None,
    axes: Sequence[str] | None = None,
) -> pd.DataFrame:
    """``runs`` with ``100 * (baseline - policy) / baseline`` of ``metric`` per instance.

    Positive means smaller than the baseline (better for times and costs). Instances are
    identified by ``replication`` and the columns of
    :func:`gridsim.analysis.stats.comparison_keys` (``run``, swept fields ``axes``,
    ``queue_size``, ``goal``).
    """
    column = column or f"{metric.removeprefix('mean_')}_advantage_pct"
    keys = [*comparison_keys(runs, axes), "replication"]
    base = runs.loc[runs["policy"] == baseline, [*keys, metric]]
    if base.empty:
        raise ValueError(f"baseline policy {baseline!r} is not in the results")
    # A merge, not an index lookup: a swept field may be missing (null) at some points.
    reference = runs[keys].merge(base, on=keys, how="left")[metric].to_numpy(dtype=float)
    out = runs.copy()
    out[column] = 100.0 * (reference - out[metric].to_numpy(dtype=float)) / reference
    return out


def relative_advantage(
    runs: pd.DataFrame,
    baseline: str,
    metric: str = "mean_finish",
    axes: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per group (swept fields, ``queue_size``, ...) and policy: the mean paired advantage
    over ``baseline`` in % (:func:`add_advantage`), its 95% half-width ``ci95`` and the
    number of ``runs``.

    This is the curve of [TY20, Fig. 3-4] when the group is the swept queue size.
    """
    paired = add_advantage(runs, baseline, metric, column="advantage_pct", axes=axes)
    keys = [*comparison_keys(paired, axes), "policy"]
    rows = []
    for group, part in paired.groupby(keys, sort=False, dropna=False):
        mean, half, count = mean_interval(part["advantage_pct"].to_numpy(dtype=float))
        row = dict(zip(keys, group, strict=True))  # grouped by a list: a tuple per group
        rows.append({**row, "advantage_pct": mean, "ci95": half, "runs": count})
    return pd.DataFrame(rows)
