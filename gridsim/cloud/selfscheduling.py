"""Self-scheduler interface and equal-sized chunks: consumes the server's view of enrolled
pilots (estimated performance and bandwidth, which are free) and the samples still to hand
out; produces assignments ``(pilot_id, samples)`` for free pilots.

A self-scheduler is a planning object with no SimPy inside: the simulation calls
:meth:`SelfScheduler.assign` whenever something changed (a task ended, a pilot enrolled or
died) and submits what it returns. Returning an empty list means "nothing to submit now".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from gridsim.cloud.config import DyTSSPolicy, EqualChunksPolicy
from gridsim.cloud.turnaround import ApplicationProfile, MiddlewareIntervals

__all__ = ["EqualChunks", "SchedulerState", "SelfScheduler", "build_self_scheduler"]


@dataclass(frozen=True)
class SchedulerState:
    """What the server knows when it asks for work.

    Attributes:
        time_s: simulation time.
        pilot_ids: enrolled, benchmarked, alive pilots, in enrolment order.
        performance_w: estimated performance of each pilot (benchmark, then accounting).
        bandwidth_mb_s: estimated bandwidth of each pilot.
        free: whether each pilot is idle.
        samples_unassigned: samples in no running task and not completed (failed tasks' samples
            come back here).
        samples_not_completed: ``S`` of Algorithm 1: samples not yet successfully computed.
    """

    time_s: float
    pilot_ids: np.ndarray
    performance_w: np.ndarray
    bandwidth_mb_s: np.ndarray
    free: np.ndarray
    samples_unassigned: int
    samples_not_completed: int


class SelfScheduler(Protocol):
    """Splits the remaining samples into tasks for free pilots."""

    def assign(self, state: SchedulerState) -> list[tuple[int, int]]:
        """Return ``(pilot_id, samples)`` pairs for free pilots; their sum must not exceed
        ``state.samples_unassigned``."""
        ...


@dataclass
class EqualChunks:
    """Fixed-size tasks of ``samples_per_task`` samples (the last one may be smaller).

    Free pilots are served in enrolment order, as a FIFO matchmaker would; pilot estimates
    are ignored, which is exactly why this policy cannot adapt to slow or failing providers.
    Cost: O(number of pilots) per call.
    """

    samples_per_task: int

    def assign(self, state: SchedulerState) -> list[tuple[int, int]]:
        """Give each free pilot one chunk while unassigned samples remain."""
        remaining = state.samples_unassigned
        assignments: list[tuple[int, int]] = []
        for pilot_id in state.pilot_ids[state.free]:
            if remaining <= 0:
                break
            samples = min(self.samples_per_task, remaining)
            assignments.append((int(pilot_id), samples))
            remaining -= samples
        return assignments


def build_self_scheduler(
    policy: EqualChunksPolicy | DyTSSPolicy,
    application: ApplicationProfile,
    intervals: MiddlewareIntervals,
    replan_interval_s: float,
) -> SelfScheduler:
    """A fresh scheduler object for one run of ``policy`` (schedulers keep per-run state)."""
    if isinstance(policy, EqualChunksPolicy):
        return EqualChunks(samples_per_task=policy.samples_per_task)
    from gridsim.cloud.dytss import DyTSS

    return DyTSS(
        minimum_chunk=policy.L,
        maximum_chunk=policy.M,
        application=application,
        intervals=intervals,
        replan_interval_s=replan_interval_s,
        max_iterations=policy.max_iterations,
        new_pilot_rule=policy.new_pilot_rule,
        fit_points=policy.fit_points,
        remaining_samples=policy.remaining_samples,
    )
