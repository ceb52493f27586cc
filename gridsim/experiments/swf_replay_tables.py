"""The jobs table of a log replay, its peak processors and its progress bar (every engine),
and the jobs' times on a machine of one speed.

Consumes a log's jobs and the start times an engine gave them; produces the jobs table's
columns (:data:`~gridsim.sim.trace.JOB_COLUMNS`, the per-job metrics added later).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from gridsim.experiments.progress import is_terminal
from gridsim.workloads.platform import LogPlatform

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


def job_table(jobs: pd.DataFrame, start: np.ndarray, first_reservation: np.ndarray):
    """The replayed schedule in the jobs table's columns (:data:`~gridsim.sim.trace.JOB_COLUMNS`,
    the per-job metrics added later): run_time is the time the job held its processors."""
    import pandas as pd

    duration = jobs.duration.to_numpy()
    killed = jobs.killed.to_numpy(dtype=bool)
    return pd.DataFrame(
        {
            "job_id": jobs.job_id.to_numpy(),
            "user_id": jobs.user_id.to_numpy(),
            "submit_time": jobs.submit_time.to_numpy(),
            "start_time": start,
            "finish_time": start + duration,
            "run_time": duration,
            "requested_time": jobs.estimate.to_numpy(),
            "processors": jobs.processors.to_numpy(),
            "allocated_resources": "",
            "cost": np.nan,
            "final_state": np.where(killed, "killed", "finished"),
            "reason": np.where(killed, "stopped at its estimate (on_overrun: kill)", ""),
            "first_reservation": first_reservation,
        }
    )


def peak_in_use(table: pd.DataFrame) -> int:
    """The most processors in use at once (ends before starts at one instant)."""
    times = np.concatenate([table.finish_time.to_numpy(), table.start_time.to_numpy()])
    change = np.concatenate([-table.processors.to_numpy(), table.processors.to_numpy()])
    order = np.lexsort((change, times))
    return int(np.cumsum(change[order]).max())
