"""Dynamic Trapezoid Self-Scheduling (DyTSS): consumes estimated pilot performance and bandwidth
and the samples not yet computed; produces one chunk size per pilot, between ``L`` and ``M``.

Algorithm 1 of "A simple model to exploit reliable algorithms in cloud federations" [RRM]:

1. start from a task list giving ``L`` samples to every pilot;
2. fit the production of that task list with a straight line ``n(t) = r_inf * t - n_1/2``
   (the half-performance model of HTC benchmarking cited by [RRM]); ``n_1/2`` is the number of
   tasks the infrastructure needs to reach half its asymptotic rate;
3. ``F = S / (4 * n_1/2)`` and, for each pilot ``j``,
   ``s_j = min(M, F * T(r_max, L) / T(r_j, L) + L)``;
4. repeat 2-3 until the task list stops changing (at most 100 times).

For ``N`` identical pilots the fit gives ``n_1/2 = N / 2``, so the first chunk is
``S / (2 N)``: trapezoid self-scheduling's first chunk, which is how we read the ambiguous
"S/4 · n_1/2" of the pseudo-code. As ``S`` shrinks, chunks shrink towards ``L``; faster pilots
get proportionally larger chunks. How the fit samples the production is our choice (see
docs/cloud.md, "Model choices").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from gridsim.cloud.selfscheduling import SchedulerState
from gridsim.cloud.turnaround import ApplicationProfile, MiddlewareIntervals, turnaround

__all__ = ["DyTSS", "dytss_chunks", "half_performance_length"]


def half_performance_length(
    turnaround_s: np.ndarray,
    chunk_samples: np.ndarray,
    remaining_samples: int,
    fit_points: int = 128,
) -> float:
    """``n_1/2`` (in tasks) of a task list, from a least-squares line through its production.

    Each pilot ``j`` is assumed to repeat tasks of ``chunk_samples[j]`` samples lasting
    ``turnaround_s[j]``, so ``n(t) = sum_j floor(t / T_j)`` tasks are done by time ``t``. The
    staircase is sampled at ``fit_points`` evenly spaced times over the horizon needed to
    compute ``remaining_samples`` at that pace (at least two of the slowest turnarounds, so the
    line is never fitted to a single step). Cost: O(fit_points * pilots).

    Returns:
        ``n_1/2 = -intercept``, floored at 0.5 task so that ``F`` stays finite.
    """
    rate = float(np.sum(chunk_samples / turnaround_s))
    horizon = max(remaining_samples / rate, 2.0 * float(np.max(turnaround_s)))
    times = (np.arange(fit_points) + 0.5) * (horizon / fit_points)
    tasks_done = np.floor(times[:, None] / turnaround_s[None, :]).sum(axis=1)
    time_mean = times.mean()
    slope = np.dot(times - time_mean, tasks_done - tasks_done.mean()) / np.dot(
        times - time_mean, times - time_mean
    )
    intercept = tasks_done.mean() - slope * time_mean
    return max(-float(intercept), 0.5)


def dytss_chunks(
    performance_w: np.ndarray,
    bandwidth_mb_s: np.ndarray,
    remaining_samples: int,
    minimum_chunk: int,
    maximum_chunk: int,
    application: ApplicationProfile,
    intervals: MiddlewareIntervals,
    max_iterations: int = 100,
    fit_points: int = 128,
) -> tuple[np.ndarray, int]:
    """Chunk sizes of Algorithm 1's inner loop for every pilot of ``R``.

    Args:
        performance_w: estimated performance per pilot (whetstones).
        bandwidth_mb_s: estimated bandwidth per pilot.
        remaining_samples: ``S``, samples not yet computed.
        minimum_chunk: ``L``.
        maximum_chunk: ``M``.
        application: profile used by the turnaround estimate ``T(r, s)`` (eq. 3).
        intervals: middleware intervals of eq. 2.
        max_iterations: bound of the fixed-point loop.
        fit_points: resolution of the linear fit.

    Returns:
        ``(chunks, iterations)``: integer chunk per pilot (same order as the inputs) and the
        number of fixed-point iterations used. Cost: O(iterations * fit_points * pilots).
    """
    minimum_turnaround = turnaround(
        minimum_chunk, performance_w, bandwidth_mb_s, application, intervals
    )
    relative_speed = np.min(minimum_turnaround) / minimum_turnaround  # f_rel, 1 for r_max
    chunks = np.full(len(performance_w), minimum_chunk, dtype=np.int64)
    # Rounding can make the fixed point cycle (typically between two lists). The literal loop
    # then runs all ``max_iterations``; we detect the cycle and jump to the list the literal
    # loop would end on, which gives the same result at a fraction of the cost.
    history = [chunks]
    seen = {chunks.tobytes(): 0}
    for iteration in range(1, max_iterations + 1):
        task_turnaround = turnaround(chunks, performance_w, bandwidth_mb_s, application, intervals)
        half_length = half_performance_length(
            task_turnaround, chunks, remaining_samples, fit_points
        )
        variable_part = remaining_samples / (4.0 * half_length)  # F
        new_chunks = np.minimum(
            maximum_chunk, np.floor(variable_part * relative_speed + minimum_chunk)
        ).astype(np.int64)
        if np.array_equal(new_chunks, chunks):
            return chunks, iteration
        key = new_chunks.tobytes()
        if key in seen:
            start = seen[key]
            period = iteration - start
            return history[start + (max_iterations - start) % period], max_iterations
        seen[key] = iteration
        history.append(new_chunks)
        chunks = new_chunks
    return chunks, max_iterations


@dataclass
class DyTSS:
    """DyTSS as a self-scheduler over pilots (each enrolled pilot is a resource ``r_j``).

    The task list is recomputed when it is older than ``replan_interval_s`` or when a free
    pilot is not in it (Algorithm 1 recomputes once per pass of its outer loop, then submits to
    every free resource and waits for tasks to end). Free pilots are served fastest first.
    Samples of failed tasks return to the pool and are handed out again in new chunks.
    """

    minimum_chunk: int
    maximum_chunk: int
    application: ApplicationProfile
    intervals: MiddlewareIntervals
    replan_interval_s: float = 10.0
    max_iterations: int = 100
    new_pilot_rule: Literal["all", "faster_than_slowest"] = "all"
    fit_points: int = 128
    remaining_samples: Literal["unassigned", "not_completed"] = "unassigned"
    admitted: set[int] = field(default_factory=set)
    rejected: set[int] = field(default_factory=set)
    plan: dict[int, int] = field(default_factory=dict)
    planned_at_s: float = -np.inf
    iterations_used: list[int] = field(default_factory=list)

    def _admit_new_pilots(self, state: SchedulerState) -> None:
        """Algorithm 1's ``new(r)`` step."""
        known = self.admitted | self.rejected
        new = [i for i, pid in enumerate(state.pilot_ids) if int(pid) not in known]
        if not new:
            return
        if self.new_pilot_rule == "all":
            self.admitted.update(int(state.pilot_ids[i]) for i in new)
            return
        estimate = turnaround(
            self.minimum_chunk,
            state.performance_w,
            state.bandwidth_mb_s,
            self.application,
            self.intervals,
        )
        in_r = np.array([int(pid) in self.admitted for pid in state.pilot_ids])
        for i in new:
            slowest = float(np.max(estimate[in_r])) if in_r.any() else np.inf
            if estimate[i] < slowest or not in_r.any():
                self.admitted.add(int(state.pilot_ids[i]))
                in_r[i] = True
            else:
                self.rejected.add(int(state.pilot_ids[i]))

    def assign(self, state: SchedulerState) -> list[tuple[int, int]]:
        """Chunks for the free admitted pilots, fastest first, within the unassigned samples."""
        self._admit_new_pilots(state)
        if state.samples_unassigned <= 0:
            return []
        in_r = np.fromiter(
            (int(pid) in self.admitted for pid in state.pilot_ids), bool, len(state.pilot_ids)
        )
        free = in_r & state.free
        if not free.any():
            return []
        free_ids = [int(pid) for pid in state.pilot_ids[free]]
        stale = state.time_s - self.planned_at_s >= self.replan_interval_s
        if stale or any(pid not in self.plan for pid in free_ids):
            chunks, iterations = dytss_chunks(
                state.performance_w[in_r],
                state.bandwidth_mb_s[in_r],
                (
                    state.samples_unassigned
                    if self.remaining_samples == "unassigned"
                    else state.samples_not_completed
                ),
                self.minimum_chunk,
                self.maximum_chunk,
                self.application,
                self.intervals,
                self.max_iterations,
                self.fit_points,
            )
            admitted_ids = (int(p) for p in state.pilot_ids[in_r])
            self.plan = dict(zip(admitted_ids, chunks.tolist(), strict=True))
            self.planned_at_s = state.time_s
            self.iterations_used.append(iterations)
        order = np.argsort(-state.performance_w[free], kind="stable")
        remaining = state.samples_unassigned
        assignments: list[tuple[int, int]] = []
        for k in order:
            if remaining <= 0:
                break
            pilot_id = free_ids[k]
            samples = min(self.plan[pilot_id], remaining)
            assignments.append((pilot_id, samples))
            remaining -= samples
        return assignments
