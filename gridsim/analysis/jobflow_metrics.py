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
from collections.abc import Iterator, Mapping
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

    return pd.Series(_ran(_FrameColumns(jobs)), index=jobs.index)


def killed(jobs: pd.DataFrame) -> pd.Series:
    """Which jobs were stopped at their limit (``final_state`` killed, or a log's ``killed``)."""
    import pandas as pd

    return pd.Series(_killed(_FrameColumns(jobs)), index=jobs.index)


#: A jobs table as its columns by name (NumPy arrays): what the functions below compute on,
#: so a log replay computes its metrics before pandas is imported (docs/swf.md, start-up).
Columns = Mapping[str, np.ndarray]


class _FrameColumns(Mapping[str, np.ndarray]):
    """A DataFrame's columns as :data:`Columns`, each converted when first read."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.rows = len(frame)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.frame[name].to_numpy()

    def __contains__(self, name: object) -> bool:
        return name in self.frame.columns

    def __iter__(self) -> Iterator[str]:
        return (str(name) for name in self.frame.columns)

    def __len__(self) -> int:
        return len(self.frame.columns)


def _rows(columns: Columns) -> int:
    rows = getattr(columns, "rows", None)
    return len(columns[next(iter(columns))]) if rows is None else rows


def _ran(columns: Columns) -> np.ndarray:
    if "final_state" in columns:
        states = columns["final_state"]
        return np.logical_or.reduce([states == state for state in RAN_STATES])
    return np.ones(_rows(columns), dtype=bool)


def _killed(columns: Columns) -> np.ndarray:
    if "final_state" in columns:
        return columns["final_state"] == "killed"
    return columns["killed"].astype(bool)


def _check(columns: Columns) -> None:
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        raise ValueError(f"jobflow metrics need columns {missing}, got {list(columns)}")
    done = _ran(columns)
    submit, start, finish, run_time = (
        columns[name][done].astype(np.float64)
        for name in ("submit_time", "start_time", "finish_time", "run_time")
    )
    if any(np.isnan(times).any() for times in (submit, start, finish, run_time)):
        raise ValueError("jobflow metrics need known submit, start, finish and run times")
    held = finish - start
    inconsistent = np.abs(held - run_time) > _TOLERANCE * np.maximum(1.0, np.abs(held))
    if inconsistent.any():
        job = columns["job_id"][done][inconsistent][0]
        raise ValueError(f"job {job}: run_time differs from finish_time - start_time")
    if (start < submit).any():
        job = columns["job_id"][done][start < submit][0]
        raise ValueError(f"job {job} starts before it is submitted")


def job_metric_columns(
    columns: Columns, bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD
) -> dict[str, np.ndarray]:
    """The per-job metrics of :func:`job_metrics`, from a jobs table's columns: wait_time,
    response_time, slowdown and bounded_slowdown (NaN for jobs that did not run)."""
    if bounded_slowdown_threshold <= 0:
        raise ValueError(
            f"expected a positive bounded slowdown threshold, got {bounded_slowdown_threshold}"
        )
    _check(columns)
    keep = _ran(columns)
    run_time = columns["run_time"].astype(np.float64)
    submit = columns["submit_time"].astype(np.float64)
    response = np.where(keep, columns["finish_time"].astype(np.float64) - submit, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        slowdown = response / run_time
        bounded = np.maximum(response / np.maximum(run_time, bounded_slowdown_threshold), 1.0)
    return {
        "wait_time": np.where(keep, columns["start_time"].astype(np.float64) - submit, np.nan),
        "response_time": response,
        "slowdown": np.where(keep, slowdown, np.nan),
        "bounded_slowdown": np.where(keep, bounded, np.nan),
    }


def job_metrics(
    jobs: pd.DataFrame, bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD
) -> pd.DataFrame:
    """Per-job metrics, as columns on a copy of ``jobs`` (NaN for jobs that did not run).

    Sets wait_time = start - submit, response_time = finish - submit, slowdown =
    response_time / run_time (inf for a zero run time after a wait, NaN without one) and
    bounded_slowdown = max(response_time / max(run_time, threshold), 1).
    """
    metrics = job_metric_columns(_FrameColumns(jobs), bounded_slowdown_threshold)
    jobs = jobs.copy()
    for name, values in metrics.items():
        jobs[name] = values
    return jobs


def _ran_with_metrics(columns: Columns, threshold: float) -> dict[str, np.ndarray]:
    """The columns and per-job metrics of the jobs that ran."""
    columns = {**columns, **job_metric_columns(columns, threshold)}
    keep = _ran(columns)
    return {name: values[keep] for name, values in columns.items()}


def schedule_summary(
    columns: Columns,
    machine_processors: int,
    bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
) -> dict[str, float]:
    """:func:`jobflow_summary` of a jobs table's columns, as floats by name."""
    if machine_processors <= 0:
        raise ValueError(f"expected a positive machine size, got {machine_processors}")
    jobs = _ran_with_metrics(columns, bounded_slowdown_threshold)
    if len(jobs["job_id"]) == 0:
        raise ValueError("jobflow metrics need at least one job")
    finish, submit = jobs["finish_time"], jobs["submit_time"]
    span = float(np.nanmax(finish) - np.nanmin(submit))
    used = _nan_sum(jobs["processors"] * jobs["run_time"])
    summary = {
        "jobs": len(finish),
        **{f"mean_{name}": _nan_mean(jobs[name]) for name in _MEANS},
        "processor_seconds": used,
        "utilisation": used / (machine_processors * span) if span > 0 else math.nan,
        "makespan": span,
        "killed_jobs": int(_killed(jobs).sum()),
    }
    return {name: float(value) for name, value in summary.items()}


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

    summary = schedule_summary(_FrameColumns(jobs), machine_processors, bounded_slowdown_threshold)
    return pd.Series(summary, name="all")


_MEANS = ("wait_time", "response_time", "slowdown", "bounded_slowdown")


def _same_as_previous(values: np.ndarray) -> np.ndarray:
    """Per position, whether the value equals the one before (NaN equals NaN)."""
    same = np.zeros(len(values), dtype=bool)
    missing = np.isnan(values) if values.dtype.kind == "f" else np.array(
        [v is None or v != v for v in values.tolist()], dtype=bool)  # fmt: skip
    same[1:] = (values[:-1] == values[1:]) | (missing[:-1] & missing[1:])
    return same


def _nan_sum(values: np.ndarray) -> float:
    """``Series.sum()``: NaN counted as 0."""
    return float(np.where(np.isnan(values), 0.0, values).sum())


def _nan_mean(values: np.ndarray) -> float:
    """``Series.mean()``: the sum with NaN set to 0 over the count of the others."""
    count = int((~np.isnan(values)).sum())
    return _nan_sum(values) / count if count else math.nan


def user_columns(
    columns: Columns,
    machine_processors: int,
    bounded_slowdown_threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
) -> dict[str, np.ndarray]:
    """:func:`per_user_summary` of a jobs table's columns, ``user_id`` the first column."""
    if machine_processors <= 0:
        raise ValueError(f"expected a positive machine size, got {machine_processors}")
    jobs = _ran_with_metrics(columns, bounded_slowdown_threshold)
    span = float(np.nanmax(jobs["finish_time"]) - np.nanmin(jobs["submit_time"]))
    # Slices of one stable sort instead of a table per user (logs have hundreds of users):
    # the same values in the same order, so the same sums (pandas' means and sums are NumPy's
    # over the values with NaN set to 0) as the overall summary on each group.
    order = np.argsort(jobs["user_id"], kind="stable")  # NaN last
    users = jobs["user_id"][order]
    bounds = np.flatnonzero(~_same_as_previous(users))
    stops = [*bounds[1:], len(users)]
    means = {name: jobs[name].astype(np.float64)[order] for name in _MEANS}
    used = (jobs["processors"] * jobs["run_time"]).astype(np.float64)[order]
    finish = jobs["finish_time"].astype(np.float64)[order]
    submit = jobs["submit_time"].astype(np.float64)[order]
    stopped = _killed(jobs)[order]
    parts = [slice(first, stop) for first, stop in zip(bounds, stops, strict=True)]
    user_used = np.array([_nan_sum(used[part]) for part in parts])
    with np.errstate(divide="ignore", invalid="ignore"):
        utilisation = user_used / (machine_processors * span) if span > 0 else np.full(
            len(parts), math.nan)  # fmt: skip
    return {
        "user_id": users[bounds],
        "jobs": np.array([part.stop - part.start for part in parts], dtype=np.int64),
        **{
            f"mean_{name}": np.array([_nan_mean(values[part]) for part in parts])
            for name, values in means.items()
        },
        "processor_seconds": user_used,
        "utilisation": utilisation,
        "makespan": np.array(
            [float(np.nanmax(finish[part]) - np.nanmin(submit[part])) for part in parts]
        ),
        "killed_jobs": np.array([int(stopped[part].sum()) for part in parts], dtype=np.int64),
    }


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

    columns = user_columns(_FrameColumns(jobs), machine_processors, bounded_slowdown_threshold)
    return pd.DataFrame(columns).set_index("user_id")
