"""The jobs table of a log replay, its peak processors and its progress bar (every engine),
and the jobs' times on a machine of one speed.

Consumes a log's jobs and the start times an engine gave them; produces the jobs table's
columns (:data:`~gridsim.sim.trace.JOB_COLUMNS`, the per-job metrics added later).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gridsim.experiments.progress import is_terminal
from gridsim.workloads.platform import LogPlatform
from gridsim.workloads.records import WorkloadLog

if TYPE_CHECKING:
    import pandas as pd


def at_machine_speed(jobs: pd.DataFrame, platform: LogPlatform) -> pd.DataFrame:
    """The jobs' estimates and run times on nodes of ``platform``'s (single) performance:
    a faster or slower machine than the reference scales every time."""
    scale = platform.reference_performance / float(platform.performance[0])
    if scale == 1.0:
        return jobs
    scaled = {"estimate": jobs["estimate"] * scale, "duration": jobs["duration"] * scale}
    return jobs.assign(**scaled) if hasattr(jobs, "assign") else {**jobs, **scaled}


def progress_bar(scenario: Any, jobs: pd.DataFrame, label: str):
    """A tqdm bar over simulated time (s since the first submission) on a terminal, as the
    run's bar (:mod:`gridsim.experiments.progress`); None if disabled or not a terminal."""
    if not (scenario.progress and is_terminal(sys.stderr)):
        return None
    from tqdm import tqdm

    first = float(np.min(jobs["submit_time"]))
    total = float(np.max(jobs["submit_time"])) - first
    bar = tqdm(total=round(total), desc=label, unit="sim s", unit_scale=True, disable=None,
               leave=False)  # fmt: skip
    return bar, first


@contextmanager
def progress_callback(scenario: Any, jobs: pd.DataFrame, label: str):
    """A replay loop's ``on_progress`` moving :func:`progress_bar` (None if disabled); the
    bar closes when the block ends."""
    progress = progress_bar(scenario, jobs, label)
    if progress is None:
        yield None
        return
    bar, first = progress
    try:
        yield lambda now: bar.update(max(0, round(now - first) - bar.n))
    finally:
        bar.close()


@dataclass
class ReplayedJobs:
    """A replay's jobs table as columns (:mod:`gridsim.analysis.jobflow_metrics`) and what
    the replay counted besides."""

    columns: dict[str, np.ndarray]
    peak_processors: int
    dropped_never_fits: int = 0
    dropped_over_power_cap: int = 0

    @classmethod
    def of_table(cls, table: pd.DataFrame) -> ReplayedJobs:
        """A node-level engine's jobs table (its counts in ``attrs``)."""
        columns = {str(name): table[name].to_numpy() for name in table.columns}
        counts = {k: int(table.attrs.get(k, 0)) for k in ("dropped_never_fits",
                                                          "dropped_over_power_cap")}  # fmt: skip
        return cls(columns, int(table.attrs["peak_processors"]), **counts)


#: The fields of a log's jobs a jobs table is made of (:func:`job_columns`).
JOB_FIELDS = ("job_id", "user_id", "submit_time", "duration", "estimate", "processors", "killed")


def log_columns(log: WorkloadLog) -> dict[str, np.ndarray]:
    """:data:`JOB_FIELDS` of a log's jobs as the jobs table (``log.jobs[name].to_numpy()``)
    gives them, read without building it: ``user_id``, a nullable integer, as integers when
    every job has one, else as floats with NaN."""
    columns = {name: log.column(name) for name in JOB_FIELDS}
    users = columns["user_id"]
    if users.dtype.kind == "f" and not np.isnan(users).any():
        columns["user_id"] = users.astype(np.int64)
    return columns


def job_columns(jobs: Any, start: np.ndarray, first_reservation: np.ndarray
                ) -> dict[str, np.ndarray]:  # fmt: skip
    """The replayed schedule in the jobs table's columns (:data:`~gridsim.sim.trace.JOB_COLUMNS`,
    the per-job metrics added later), from the :data:`JOB_FIELDS` of ``jobs`` (a table or
    its columns): run_time is the time the job held its processors."""

    def field(name: str) -> np.ndarray:
        values = jobs[name]
        return values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)

    duration = field("duration")
    killed = field("killed").astype(bool)
    return {
        "job_id": field("job_id"),
        "user_id": field("user_id"),
        "submit_time": field("submit_time"),
        "start_time": start,
        "finish_time": start + duration,
        "run_time": duration,
        "requested_time": field("estimate"),
        "processors": field("processors"),
        "allocated_resources": np.full(len(duration), "", dtype=object),
        "cost": np.full(len(duration), np.nan),
        "final_state": np.where(killed, "killed", "finished").astype(object),
        "reason": np.where(killed, "stopped at its estimate (on_overrun: kill)", "").astype(object),
        "first_reservation": first_reservation,
    }


def job_table(jobs: pd.DataFrame, start: np.ndarray, first_reservation: np.ndarray):
    """:func:`job_columns` as a DataFrame (the node-level engines add their columns to it)."""
    import pandas as pd

    return pd.DataFrame(job_columns(jobs, start, first_reservation))


def peak_in_use(table: pd.DataFrame) -> int:
    """The most processors in use at once (ends before starts at one instant)."""
    times = np.concatenate([table.finish_time.to_numpy(), table.start_time.to_numpy()])
    change = np.concatenate([-table.processors.to_numpy(), table.processors.to_numpy()])
    order = np.lexsort((change, times))
    return int(np.cumsum(change[order]).max())
