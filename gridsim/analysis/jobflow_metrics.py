"""Job-flow metrics from a schedule: wait, response, slowdown, utilisation, per job and user.

Consumes: a jobs `DataFrame` with columns job_id, user_id, submit_time, start_time,
finish_time, run_time (s), processors and killed (bool), from a read log (`read_swf(...).jobs`
has them all) or from a simulation trace (`trace_jobs` renames a gridsim ``jobs`` table).
Produces: per-job metrics (`job_metrics`) and aggregates overall (`jobflow_summary`) or per
user (`per_user_summary`).

Definitions follow Feitelson's usage [Fei01, Fei15]; docs/metrics.md states them with units.
`run_time` is the time the job held its processors (for a killed job, up to the kill), so it
must equal finish_time - start_time.

Cost: O(jobs), vectorised.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

REQUIRED_COLUMNS = (
    "job_id",
    "user_id",
    "submit_time",
    "start_time",
    "finish_time",
    "run_time",
    "processors",
    "killed",
)
BOUNDED_SLOWDOWN_THRESHOLD = 10.0  # s, the usual tau [Fei01]
_TOLERANCE = 1e-6  # s, for finish - start against run_time


def trace_jobs(jobs: pd.DataFrame) -> pd.DataFrame:
    """A gridsim ``jobs`` trace (:mod:`gridsim.sim.trace`) in this module's column names.

    Keeps the jobs that ran (``final_state`` finished or killed) and maps ``arrival`` ->
    submit_time, ``start`` -> start_time, ``finish`` -> finish_time, ``runtime`` -> run_time,
    ``n`` -> processors, ``final_state == "killed"`` -> killed; a trace has no users, so
    user_id is 0. Other columns are kept as they are.
    """
    ran = jobs[jobs["final_state"].isin(["finished", "killed"])]
    renamed = ran.rename(columns={"arrival": "submit_time", "start": "start_time",
                                  "finish": "finish_time", "runtime": "run_time",
                                  "n": "processors"})  # fmt: skip
    return renamed.assign(killed=ran["final_state"] == "killed",
                          user_id=ran.get("user_id", 0))  # fmt: skip


def _checked(jobs: pd.DataFrame) -> pd.DataFrame:
    missing = [name for name in REQUIRED_COLUMNS if name not in jobs]
    if missing:
        raise ValueError(f"jobflow metrics need columns {missing}, got {list(jobs.columns)}")
    times = jobs[["submit_time", "start_time", "finish_time", "run_time"]].astype(np.float64)
    if times.isna().any().any():
        raise ValueError("jobflow metrics need known submit, start, finish and run times")
    held = times.finish_time - times.start_time
    inconsistent = (held - times.run_time).abs() > _TOLERANCE * np.maximum(1.0, held.abs())
    if inconsistent.any():
        job = jobs.job_id[inconsistent].iloc[0]
        raise ValueError(f"job {job}: run_time differs from finish_time - start_time")
    if (times.start_time < times.submit_time).any():
        job = jobs.job_id[times.start_time < times.submit_time].iloc[0]
        raise ValueError(f"job {job} starts before it is submitted")
    return jobs


def job_metrics(
    jobs: pd.DataFrame, bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD
) -> pd.DataFrame:
    """Per-job metrics, as new columns on a copy of `jobs`.

    Adds wait_time = start - submit (s), response_time = finish - submit (s),
    slowdown = response_time / run_time (inf for a zero run time after a wait, NaN without one) and
    bounded_slowdown = max(response_time / max(run_time, threshold), 1).
    """
    if bounded_slowdown_threshold <= 0:
        raise ValueError(
            f"expected a positive bounded slowdown threshold, got {bounded_slowdown_threshold}"
        )
    jobs = _checked(jobs).copy()
    run_time = jobs.run_time.astype(np.float64)
    jobs["wait_time"] = jobs.start_time - jobs.submit_time
    jobs["response_time"] = jobs.finish_time - jobs.submit_time
    jobs["slowdown"] = jobs.response_time / run_time  # pandas divides by 0 without a warning
    jobs["bounded_slowdown"] = np.maximum(
        jobs.response_time / np.maximum(run_time, bounded_slowdown_threshold), 1.0
    )
    return jobs


def _aggregate(jobs: pd.DataFrame, machine_processors: int, span: float) -> dict[str, float]:
    """Aggregates of per-job metrics; utilisation over `span` seconds of the whole machine."""
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
        "killed_jobs": int(jobs.killed.astype(bool).sum()),
    }


def jobflow_summary(
    jobs: pd.DataFrame,
    machine_processors: int,
    bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
) -> pd.Series:
    """Overall aggregates of a schedule.

    Returns a Series: jobs, mean_wait_time (s), mean_response_time (s), mean_slowdown,
    mean_bounded_slowdown, processor_seconds, utilisation (processor-seconds used over
    machine_processors x (last finish - first submit)), makespan (last finish - first
    submit, s) and killed_jobs.
    """
    if machine_processors <= 0:
        raise ValueError(f"expected a positive machine size, got {machine_processors}")
    if len(jobs) == 0:
        raise ValueError("jobflow metrics need at least one job")
    metrics = job_metrics(jobs, bounded_slowdown_threshold)
    span = float(metrics.finish_time.max() - metrics.submit_time.min())
    return pd.Series(_aggregate(metrics, machine_processors, span), name="all")


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
    if machine_processors <= 0:
        raise ValueError(f"expected a positive machine size, got {machine_processors}")
    metrics = job_metrics(jobs, bounded_slowdown_threshold)
    span = float(metrics.finish_time.max() - metrics.submit_time.min())
    rows = {
        user: _aggregate(group, machine_processors, span)
        for user, group in metrics.groupby("user_id", sort=True, dropna=False)
    }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("user_id")
