"""Reference conservative and EASY backfilling on a processor count, for tests only.

Consumes: jobs as a DataFrame with columns job_id, submit_time (s), processors, estimate (s)
and run_time (s), and the machine size in processors. Produces: the start time of every job
(and, for conservative backfilling, the first reservation each job was given).

Written to be obviously correct rather than fast [MF01]: Mu'alem and Feitelson, "Utilization,
predictability, workloads, and user runtime estimates in scheduling the IBM SP2 with
backfilling", IEEE TPDS 12(6), 2001. Both schedulers plan with estimates and run jobs for
min(run_time, estimate): a job still running at its estimate is killed, as production systems
do, so a job never outlives its plan. Priority is arrival order (submit time, then job id).
At one instant, completions are handled before arrivals, and arrivals before starts.

Cost: O(events x queue x profile steps), fine for a few thousand jobs.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import pandas as pd


class FreeProfile:
    """Free processors over time: a step function, `free[i]` on `[times[i], times[i+1])`.

    The last step lasts for ever. Occupying `[start, end)` subtracts from every step it covers.
    """

    def __init__(self, processors: int, now: float):
        self.times = [now]
        self.free = [processors]

    def _breakpoint(self, time: float) -> int:
        """Index of the step starting at `time`, splitting a step if needed."""
        i = bisect.bisect_right(self.times, time) - 1
        if self.times[i] != time:
            self.times.insert(i + 1, time)
            self.free.insert(i + 1, self.free[i])
            i += 1
        return i

    def forget_before(self, now: float) -> None:
        """Drop the steps that ended before `now` (they can no longer matter)."""
        i = max(bisect.bisect_right(self.times, now) - 1, 0)
        del self.times[:i], self.free[:i]
        self.times[0] = max(self.times[0], now)

    def add(self, start: float, end: float, processors: int) -> None:
        """Occupy (`processors` > 0) or release (< 0) processors over `[start, end)`."""
        first, last = self._breakpoint(start), self._breakpoint(end)
        for i in range(first, last):
            self.free[i] -= processors
            assert self.free[i] >= 0, "profile over-committed"

    def release(self, start: float, end: float, processors: int) -> None:
        self.add(start, end, -processors)

    def earliest_fit(self, now: float, processors: int, duration: float) -> float:
        """Earliest time >= now at which `processors` stay free for `duration`."""
        start = None
        for i, time in enumerate(self.times):
            step_end = self.times[i + 1] if i + 1 < len(self.times) else math.inf
            if step_end <= now:
                continue
            if self.free[i] < processors:
                start = None
                continue
            if start is None:
                start = max(time, now)
            if step_end - start >= duration:
                return start
        raise ValueError(f"a job of {processors} processors never fits")  # larger than machine


@dataclass
class Schedule:
    """Start times per job id; `first_reservation` only for conservative backfilling."""

    start_time: dict[int, float] = field(default_factory=dict)
    first_reservation: dict[int, float] = field(default_factory=dict)


@dataclass
class _Job:
    job_id: int
    submit: float
    processors: int
    estimate: float
    duration: float  # min(run time, estimate)
    priority: int  # position in arrival order


def _jobs(jobs: pd.DataFrame) -> list[_Job]:
    rows = jobs.sort_values(["submit_time", "job_id"], kind="stable")
    return [
        _Job(
            int(r.job_id),
            float(r.submit_time),
            int(r.processors),
            float(r.estimate),
            min(float(r.run_time), float(r.estimate)),
            priority,
        )
        for priority, r in enumerate(rows.itertuples())
    ]


def conservative_backfilling(
    jobs: pd.DataFrame, machine_processors: int, completions: str = "together"
) -> Schedule:
    """Every queued job holds a reservation at the earliest time the profile has room for
    its whole estimate. When a job ends before its estimate, the queue is compressed: in
    priority order, each job's reservation is removed and the job re-placed at its earliest
    fit, which is never later than before (its old place is free again). One pass, as in
    [MF01]. ``completions="separately"``: jobs ending at the same instant are released one
    at a time in priority order, each early one followed by its own compression pass."""
    pending = _jobs(jobs)
    schedule = Schedule()
    profile = FreeProfile(machine_processors, pending[0].submit if pending else 0.0)
    queue: list[_Job] = []
    reservation: dict[int, float] = {}
    running: dict[int, tuple[_Job, float]] = {}  # job id -> (job, start)
    while pending or queue or running:
        now = min(
            ([pending[0].submit] if pending else [])
            + [start + job.duration for job, start in running.values()]
            + [reservation[job.job_id] for job in queue]
        )
        profile.forget_before(now)
        ending = [(job, start) for job, start in running.values() if start + job.duration == now]
        ending.sort(key=lambda pair: pair[0].priority)
        groups = [ending] if completions == "together" else [[pair] for pair in ending]
        for group in groups:
            early_finish = False
            for job, start in group:
                del running[job.job_id]
                if job.duration < job.estimate:
                    profile.release(now, start + job.estimate, job.processors)
                    early_finish = True
            if not early_finish:
                continue
            for job in queue:
                profile.release(
                    reservation[job.job_id], reservation[job.job_id] + job.estimate, job.processors
                )
                new = profile.earliest_fit(now, job.processors, job.estimate)
                assert new <= reservation[job.job_id], "compression delayed a job"
                reservation[job.job_id] = new
                profile.add(new, new + job.estimate, job.processors)
        while pending and pending[0].submit == now:
            job = pending.pop(0)
            start = profile.earliest_fit(now, job.processors, job.estimate)
            profile.add(start, start + job.estimate, job.processors)
            reservation[job.job_id] = schedule.first_reservation[job.job_id] = start
            queue.append(job)
        for job in [job for job in queue if reservation[job.job_id] == now]:
            queue.remove(job)
            running[job.job_id] = (job, now)
            schedule.start_time[job.job_id] = now
    return schedule


def easy_backfilling(
    jobs: pd.DataFrame, machine_processors: int, completions: str = "together"
) -> Schedule:
    """Jobs start in priority order while they fit; when the head of the queue does not fit,
    it gets a reservation (the "shadow time") and later jobs start now only if they fit now
    and do not delay that reservation. No other job holds a reservation.
    ``completions="separately"``: jobs ending at the same instant end one at a time in
    priority order, each followed by a scheduling pass."""
    pending = _jobs(jobs)
    schedule = Schedule()
    queue: list[_Job] = []
    running: dict[int, tuple[_Job, float]] = {}

    def schedule_pass(now: float) -> None:
        profile = FreeProfile(machine_processors, now)
        for job, start in running.values():
            profile.add(now, start + job.estimate, job.processors)
        head_reserved = False
        for job in list(queue):
            start = profile.earliest_fit(now, job.processors, job.estimate)
            if start == now:
                queue.remove(job)
                running[job.job_id] = (job, now)
                schedule.start_time[job.job_id] = now
                profile.add(now, now + job.estimate, job.processors)
            elif not head_reserved:
                # the first job that cannot start is the head: it alone gets a reservation
                profile.add(start, start + job.estimate, job.processors)
                head_reserved = True

    while pending or queue:
        now = min(
            ([pending[0].submit] if pending else [])
            + [start + job.duration for job, start in running.values()]
        )
        ending = sorted(
            (job for job, start in running.values() if start + job.duration == now),
            key=lambda job: job.priority,
        )
        for job in ending:
            del running[job.job_id]
            if completions == "separately":
                schedule_pass(now)
        while pending and pending[0].submit == now:
            queue.append(pending.pop(0))
        schedule_pass(now)
    return schedule
