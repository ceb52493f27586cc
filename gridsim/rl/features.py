"""Observations of the queue environments: a fixed-shape array, one row per visible job.

Consumes the state of a :class:`~gridsim.rl.queue_loop.QueueLoop` (the waiting jobs in
priority order, the current instant, the processors free now) and the K jobs an environment
shows; produces a ``float32`` array of shape ``(K, F)`` with every value in ``[0, 1]``, and the
raw values of the same jobs for ``info`` (what the heuristic baselines score).

Times are squashed as ``t / (t + time_scale)`` (0 for 0, 1/2 at ``time_scale``, below 1
however long), so no log's extreme wait or estimate saturates the scale and no clipping
constant is needed. Rows past the last waiting job are all zeros (``present`` 0). The
features, column by column, are :data:`JOB_FEATURES`; the backfilling environment appends
:data:`BACKFILL_FEATURES`. docs/rl.md lists them with their meaning.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: The per-job columns of every queue observation, in order.
JOB_FEATURES = (
    "present",  # 1 for a waiting job, 0 for an empty row
    "wait",  # time since submission, squashed
    "estimate",  # the user's requested time, squashed
    "processors",  # processors requested / machine processors
    "fits_now",  # 1 if the job's processors are free now
    "area",  # estimate x processors, squashed against time_scale x machine
    "free_processors",  # processors free now / machine (the same in every row)
    "queue_length",  # waiting jobs q as q / (q + K) (the same in every row)
)
#: Columns the backfilling environment adds (the head's reservation, as EASY computes it).
BACKFILL_FEATURES = (
    "ends_by_shadow",  # 1 if the job's estimate ends by the head's reserved start
    "within_extra",  # 1 if the job needs no more than the processors the head leaves spare
    "shadow",  # time until the head's reserved start, squashed (the same in every row)
)
#: The raw values of the visible jobs in ``info["jobs"]`` (seconds, counts), one entry per
#: row: empty rows hold job -1, processors 0 and NaN times (a fixed shape, as vector
#: environments stack infos).
RAW_FIELDS = ("job", "submit_time", "wait", "estimate", "processors")


def squash(values: np.ndarray, scale: float) -> np.ndarray:
    """``v / (v + scale)``: [0, inf) onto [0, 1)."""
    return values / (values + scale)


def raw_jobs(
    visible: Sequence[int],
    slots: int,
    now: float,
    submit: Sequence[float],
    estimate: Sequence[float],
    processors: Sequence[int],
) -> dict[str, np.ndarray]:
    """The visible jobs' raw values (:data:`RAW_FIELDS`) in ``slots`` rows."""
    count = len(visible)
    raw = {
        "job": np.full(slots, -1, dtype=np.int64),
        "submit_time": np.zeros(slots),
        "wait": np.zeros(slots),
        "estimate": np.zeros(slots),
        "processors": np.zeros(slots, dtype=np.int64),
    }
    raw["job"][:count] = visible
    raw["submit_time"][:count] = [submit[job] for job in visible]
    raw["estimate"][:count] = [estimate[job] for job in visible]
    raw["processors"][:count] = [processors[job] for job in visible]
    raw["wait"][:count] = now - raw["submit_time"][:count]
    return raw


def job_rows(
    raw: dict[str, np.ndarray],
    slots: int,
    machine: int,
    free_now: int,
    queue_length: int,
    time_scale: float,
    extra_columns: int = 0,
) -> np.ndarray:
    """The ``(slots, len(JOB_FEATURES) + extra_columns)`` observation of ``raw``'s jobs; the
    extra columns are left 0 for the caller."""
    rows = np.zeros((slots, len(JOB_FEATURES) + extra_columns), dtype=np.float32)
    count = int(np.count_nonzero(raw["job"] >= 0))
    if count == 0:
        return rows
    processors = raw["processors"][:count].astype(np.float64)
    estimate = raw["estimate"][:count]
    view = rows[:count]
    view[:, 0] = 1.0
    view[:, 1] = squash(raw["wait"][:count], time_scale)
    view[:, 2] = squash(estimate, time_scale)
    view[:, 3] = processors / machine
    view[:, 4] = processors <= free_now
    view[:, 5] = squash(estimate * processors, time_scale * machine)
    view[:, 6] = free_now / machine
    view[:, 7] = queue_length / (queue_length + slots)
    return rows
