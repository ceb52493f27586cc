"""What a schedule looked like over time: processors in use, jobs queued, tasks per node.

Consumes one run's jobs table (:data:`gridsim.sim.trace.JOB_COLUMNS`); produces step
functions -- change times and the value after each change -- and their exact time-weighted
means over bins, which the report's figures and the explorer's panels draw. A job holds its
processors over ``[start_time, finish_time)`` and waits over ``[submit_time, start_time)``
(a job that never started waits until the end of the schedule; a rejected one never
waits). At one instant every change applies at once, so a job ending when another starts
never counts twice.

Cost: O(jobs log jobs) for the sorting.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from gridsim.analysis.jobflow_metrics import ran
from gridsim.sim.trace import node_runs


@dataclass(frozen=True)
class Steps:
    """A step function: ``values[k]`` holds from ``times[k]`` to ``times[k + 1]``."""

    times: np.ndarray
    values: np.ndarray

    def binned_means(self, edges: np.ndarray) -> np.ndarray:
        """The time-weighted mean over each bin ``[edges[i], edges[i + 1])`` (0 before the
        first change), computed exactly from the area under the steps."""
        if len(self.times) == 0:
            return np.zeros(len(edges) - 1)
        widths = np.diff(self.times)
        area = np.concatenate([[0.0], np.cumsum(self.values[:-1] * widths)])
        position = np.searchsorted(self.times, edges, side="right") - 1
        inside = position >= 0
        safe = np.maximum(position, 0)
        at_edges = np.where(inside, area[safe] + self.values[safe] * (edges - self.times[safe]),
                            0.0)  # fmt: skip
        return np.diff(at_edges) / np.diff(edges)


def _steps(times: np.ndarray, changes: np.ndarray) -> Steps:
    """The running sum of ``changes`` at ``times``, one step per distinct time."""
    order = np.argsort(times, kind="stable")
    times, changes = times[order], changes[order]
    distinct, first = np.unique(times, return_index=True)
    totals = np.add.reduceat(changes, first) if len(times) else changes
    return Steps(distinct.astype(float), np.cumsum(totals).astype(float))


def processors_in_use(jobs: pd.DataFrame) -> Steps:
    """Processors held by running jobs over time."""
    done = jobs[ran(jobs)]
    processors = done["processors"].to_numpy(dtype=float)
    times = np.concatenate(
        [done["start_time"].to_numpy(float), done["finish_time"].to_numpy(float)]
    )
    return _steps(times, np.concatenate([processors, -processors]))


def queue_length(jobs: pd.DataFrame) -> Steps:
    """Jobs submitted and not yet started, over time."""
    if "final_state" in jobs:
        jobs = jobs[jobs["final_state"] != "rejected"]
    started = jobs["start_time"].notna().to_numpy()
    times = np.concatenate([jobs["submit_time"].to_numpy(float),
                            jobs["start_time"].to_numpy(float)[started]])  # fmt: skip
    changes = np.concatenate([np.ones(len(jobs)), -np.ones(int(started.sum()))])
    return _steps(times, changes)


def bin_edges(jobs: pd.DataFrame, bins: int = 400) -> np.ndarray:
    """``bins`` equal bins from the first submission to the last finish of ``jobs``."""
    first = float(jobs["submit_time"].min())
    last = float(np.nanmax([jobs["finish_time"].max(), jobs["start_time"].max(), first + 1]))
    return np.linspace(first, last, bins + 1)


def tasks_of_jobs(jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per node a job ran on (``job_id``, ``node``, ``performance`` 1, ``start``,
    ``end``, ``kind`` "job"), as :func:`gridsim.analysis.plots.plot_gantt` draws them."""
    tasks = node_runs(jobs[ran(jobs)]).drop(columns="row")
    return tasks.assign(job_id=tasks.job_id.astype(np.int64), performance=1.0, kind="job")
