"""The metrics of a schedule, defined once: wait, response, slowdowns, utilisation, cost.

Consumes a jobs table in the columns of :data:`gridsim.sim.trace.JOB_COLUMNS` (every kind
with jobs writes them; a read log, ``read_swf(...).jobs``, has the ones needed here:
job_id, user_id, submit_time, start_time, finish_time, run_time, processors and ``killed``
where a jobs table has ``final_state``). Produces per-job metrics (:func:`job_metrics`, the
columns every kind's jobs table holds) and aggregates overall (:func:`jobflow_summary`) or
per user (:func:`per_user_summary`). Every kind and the report call these functions, so a
metric means the same everywhere.

Definitions follow Feitelson's usage [Fei01, Fei15]; docs/metrics.md states them with units:

* wait = start - submit; response = finish - submit; run time = finish - start (for a killed
  job, up to the kill), which a table must hold;
* slowdown = response / run time; bounded slowdown = max(1, response / max(run time, tau))
  with the threshold tau (10 s by default, a scenario field);
* utilisation = processor-time of the jobs over machine processors x (last finish - first
  submit); cost = run time x the sum of the nodes' prices (written by the simulation, which
  knows the prices; summed here).

Only the jobs that ran count (``final_state`` finished or killed; a log's jobs all ran);
the others keep NaN metrics.

Cost: O(jobs), vectorised.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

REQUIRED_COLUMNS = (
    "job_id",
    "submit_time",
    "start_time",
    "finish_time",
    "run_time",
    "processors",
)
BOUNDED_SLOWDOWN_THRESHOLD = 10.0  # s, the usual tau [Fei01]
#: The final states of jobs that ran (held nodes until they ended).
RAN_STATES = ("finished", "killed")
_TOLERANCE = 1e-6  # s, for finish - start against run_time
#: Labels with units of the aggregates of a log's schedule (:func:`jobflow_summary`).
LABELS = {
    "mean_wait_time": "mean wait (s)",
    "mean_response_time": "mean response (s)",
    "mean_slowdown": "mean slowdown (ratio)",
    "mean_bounded_slowdown": "mean bounded slowdown (ratio)",
    "utilisation": "utilisation (processor-time used / available)",
    "killed_jobs": "jobs killed at their estimate",
    "total_cost": "total cost (money)",
    "makespan": "makespan (s)",
}


def ran(jobs: pd.DataFrame) -> pd.Series:
    """Which jobs ran: ``final_state`` finished or killed (every job of a read log)."""
    import pandas as pd

    if "final_state" in jobs:
        return jobs["final_state"].isin(RAN_STATES)
    return pd.Series(True, index=jobs.index)


def killed(jobs: pd.DataFrame) -> pd.Series:
    """Which jobs were stopped at their limit (``final_state`` killed, or a log's ``killed``)."""
    if "final_state" in jobs:
        return jobs["final_state"] == "killed"
    return jobs["killed"].astype(bool)


def _checked(jobs: pd.DataFrame) -> pd.DataFrame:
    missing = [name for name in REQUIRED_COLUMNS if name not in jobs]
    if missing:
        raise ValueError(f"jobflow metrics need columns {missing}, got {list(jobs.columns)}")
    done = jobs[ran(jobs)]
    times = done[["submit_time", "start_time", "finish_time", "run_time"]].astype(np.float64)
    if times.isna().any().any():
        raise ValueError("jobflow metrics need known submit, start, finish and run times")
    held = times.finish_time - times.start_time
    inconsistent = (held - times.run_time).abs() > _TOLERANCE * np.maximum(1.0, held.abs())
    if inconsistent.any():
        job = done.job_id[inconsistent].iloc[0]
        raise ValueError(f"job {job}: run_time differs from finish_time - start_time")
    if (times.start_time < times.submit_time).any():
        job = done.job_id[times.start_time < times.submit_time].iloc[0]
        raise ValueError(f"job {job} starts before it is submitted")
    return jobs


def job_metrics(
    jobs: pd.DataFrame, bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD
) -> pd.DataFrame:
    """Per-job metrics, as columns on a copy of ``jobs`` (NaN for jobs that did not run).

    Sets wait_time = start - submit, response_time = finish - submit, slowdown =
    response_time / run_time (inf for a zero run time after a wait, NaN without one) and
    bounded_slowdown = max(response_time / max(run_time, threshold), 1).
    """
    if bounded_slowdown_threshold <= 0:
        raise ValueError(
            f"expected a positive bounded slowdown threshold, got {bounded_slowdown_threshold}"
        )
    jobs = _checked(jobs).copy()
    keep = ran(jobs).to_numpy()
    run_time = jobs.run_time.to_numpy(dtype=np.float64)
    submit = jobs.submit_time.to_numpy(dtype=np.float64)
    response = np.where(keep, jobs.finish_time.to_numpy(dtype=np.float64) - submit, np.nan)
    jobs["wait_time"] = np.where(keep, jobs.start_time.to_numpy(dtype=np.float64) - submit,
                                 np.nan)  # fmt: skip
    jobs["response_time"] = response
    with np.errstate(divide="ignore", invalid="ignore"):
        jobs["slowdown"] = response / run_time
        jobs["bounded_slowdown"] = np.maximum(
            response / np.maximum(run_time, bounded_slowdown_threshold), 1.0
        )
    jobs.loc[~keep, ["slowdown", "bounded_slowdown"]] = np.nan
    return jobs


def _aggregate(jobs: pd.DataFrame, machine_processors: int, span: float) -> dict[str, float]:
    """Aggregates of per-job metrics; utilisation over ``span`` of the whole machine."""
    used = float((jobs.processors * jobs.run_time).sum())
    return {
        "jobs": len(jobs),
        "mean_wait_time": float(jobs.wait_time.mean()),
        "mean_response_time": float(jobs.response_time.mean()),
        "mean_slowdown": float(jobs.slowdown.mean()),
        "mean_bounded_slowdown": float(jobs.bounded_slowdown.mean()),
        "processor_seconds": used,
        "utilisation": used / (machine_processors * span) if span > 0 else float("nan"),
        "makespan": float(jobs.finish_time.max() - jobs.submit_time.min()),
        "killed_jobs": int(killed(jobs).sum()),
    }


def jobflow_summary(
    jobs: pd.DataFrame,
    machine_processors: int,
    bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
) -> pd.Series:
    """Overall aggregates of a schedule's jobs that ran.

    Returns a Series: jobs, mean_wait_time (s), mean_response_time (s), mean_slowdown,
    mean_bounded_slowdown, processor_seconds, utilisation (processor-seconds used over
    machine_processors x (last finish - first submit)), makespan (last finish - first
    submit, s) and killed_jobs.
    """
    import pandas as pd

    if machine_processors <= 0:
        raise ValueError(f"expected a positive machine size, got {machine_processors}")
    metrics = job_metrics(jobs, bounded_slowdown_threshold)
    metrics = metrics[ran(metrics)]
    if len(metrics) == 0:
        raise ValueError("jobflow metrics need at least one job")
    span = float(metrics.finish_time.max() - metrics.submit_time.min())
    return pd.Series(_aggregate(metrics, machine_processors, span), name="all")


_MEANS = ("wait_time", "response_time", "slowdown", "bounded_slowdown")


def _same_as_previous(values: np.ndarray) -> np.ndarray:
    """Per position, whether the value equals the one before (NaN equals NaN)."""
    import pandas as pd

    same = np.zeros(len(values), dtype=bool)
    missing = pd.isna(values)
    same[1:] = (values[:-1] == values[1:]) | (missing[:-1] & missing[1:])
    return same


def _nan_sum(values: np.ndarray) -> float:
    """``Series.sum()``: NaN counted as 0."""
    return float(np.where(np.isnan(values), 0.0, values).sum())


def _nan_mean(values: np.ndarray) -> float:
    """``Series.mean()``: the sum with NaN set to 0 over the count of the others."""
    count = int((~np.isnan(values)).sum())
    return _nan_sum(values) / count if count else math.nan


def per_user_summary(
    jobs: pd.DataFrame,
    machine_processors: int,
    bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
) -> pd.DataFrame:
    """The aggregates of `jobflow_summary` per user_id, one row per user (sorted by id).

    A user's utilisation is their processor-seconds over the whole machine during the whole
    schedule's span, so the users' utilisations add up to the overall one; a user's makespan
    runs from their first submission to their last finish.
    """
    import pandas as pd

    if machine_processors <= 0:
        raise ValueError(f"expected a positive machine size, got {machine_processors}")
    metrics = job_metrics(jobs, bounded_slowdown_threshold)
    metrics = metrics[ran(metrics)]
    span = float(metrics.finish_time.max() - metrics.submit_time.min())
    # Slices of one stable sort instead of a DataFrame per user (logs have hundreds of users):
    # the same values in the same order, so the same sums (pandas' means and sums are NumPy's
    # over the values with NaN set to 0) as _aggregate on each group.
    metrics = metrics.sort_values("user_id", kind="stable", na_position="last")
    users = metrics.user_id.to_numpy()
    bounds = np.flatnonzero(~_same_as_previous(users))
    columns = {name: metrics[name].to_numpy(dtype=np.float64) for name in _MEANS}
    used = (metrics.processors * metrics.run_time).to_numpy(dtype=np.float64)
    finish = metrics.finish_time.to_numpy(dtype=np.float64)
    submit = metrics.submit_time.to_numpy(dtype=np.float64)
    stopped = killed(metrics).to_numpy()
    rows = {}
    for first, stop in zip(bounds, [*bounds[1:], len(users)], strict=True):
        part = slice(first, stop)
        user_used = _nan_sum(used[part])
        rows[users[first]] = {
            "jobs": stop - first,
            **{f"mean_{name}": _nan_mean(values[part]) for name, values in columns.items()},
            "processor_seconds": user_used,
            "utilisation": user_used / (machine_processors * span) if span > 0 else math.nan,
            "makespan": float(np.nanmax(finish[part]) - np.nanmin(submit[part])),
            "killed_jobs": int(stopped[part].sum()),
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("user_id")
