"""Job-flow simulation on a SimPy event loop.

Consumes an :class:`Instance` (nodes, local load, jobs with arrival times and runtime factors)
and a node-level planner (any :class:`Scheduler`: conservative backfilling of
:mod:`gridsim.scheduling.backfilling`, FCFS or EASY of :mod:`gridsim.scheduling.queue_policies`);
produces a :class:`~gridsim.sim.trace.Trace` of what actually happened. This is the only module that
touches SimPy: it delivers submissions to the scheduler, starts reserved windows on their
nodes, runs them for their actual runtime and reports completions (and overruns) back.

Same-time order is explicit: events carry a phase and SimPy orders by (time, phase, insertion).
At one instant, completions (and overrun notices) come first, then starts, then submissions,
so a node freed at ``t`` can be reserved by a job starting at ``t``, and a job arriving at
``t`` is planned in a profile that already knows what finished at ``t``. Jobs arriving at the
same time are handed to the scheduler together (it plans them in priority order).

The planner answers every event with the windows that are new or moved, by job id; a job
mapped to ``None`` lost its window (EASY withdraws the windows of jobs that no longer start),
and its pending start event is cancelled.

Local load is known in advance: it is already busy in the scheduler's profile and is written
to the trace as tasks of kind ``local_load``; it never moves.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from heapq import heappush
from typing import Protocol

import simpy
from simpy.events import Event

from gridsim.model import TIME_TOLERANCE, Job, Node, Window
from gridsim.scheduling.backfilling import NO_WINDOW
from gridsim.scheduling.queue_policies import SchedulerName, build_planner
from gridsim.scheduling.resource_profile import PowerLimit
from gridsim.sim.trace import Trace

#: Event phases at one instant, in the order they are processed (faults: gridsim.sim.fault_engine).
COMPLETION, FAULT, START, SUBMISSION = 0, 1, 2, 3


class Scheduler(Protocol):
    """What the engine asks of a planner (all pure planning, told the current time).

    ``submit``, ``finish`` and ``overrun`` return the windows that are new or moved by job id
    (``None``: the job lost its window); ``start`` takes a job's window out of the queue.
    """

    jobs: dict[int, Job]
    running: dict[int, Window]
    first_promised: dict[int, float]
    delays: dict[int, float]

    def submit(
        self, jobs: Iterable[Job], now: float
    ) -> tuple[Mapping[int, Window | None], list[Job]]: ...

    def start(self, job_id: int) -> Window: ...

    def finish(self, job_id: int, now: float) -> Mapping[int, Window | None]: ...

    def overrun(
        self, job_id: int, now: float, end: float
    ) -> tuple[float, Mapping[int, Window | None]]: ...


class SimulationError(RuntimeError):
    """The executed schedule broke an invariant (a planning bug, never a user error)."""


@dataclass(frozen=True)
class Instance:
    """One random instance of a job-flow scenario, shared by every policy.

    Attributes:
        nodes: the environment's nodes.
        busy: per node, local-load busy intervals ``(start, end)`` (time units).
        jobs: the job flow, any order.
    """

    nodes: tuple[Node, ...]
    busy: tuple[tuple[tuple[float, float], ...], ...]
    jobs: tuple[Job, ...]


class _Environment(simpy.Environment):
    """SimPy's environment plus scheduling at an absolute time.

    ``Environment.schedule`` takes a delay and stores ``now + delay``; in floating point that
    sum cannot always equal the intended time, and one ulp would let a start at ``t`` overtake
    a completion at ``t``. The heap entry has the same layout SimPy uses: (time, priority,
    insertion id, event).
    """

    def schedule_at(self, event: Event, phase: int, time: float) -> None:
        heappush(self._queue, (max(time, self._now), phase, next(self._eid), event))


class _Phased(Event):
    """An event that fires at ``time`` in a given same-time ``phase`` (like a Timeout)."""

    def __init__(self, env: _Environment, time: float, phase: int, value) -> None:
        super().__init__(env)
        self._ok = True
        self._value = value
        env.schedule_at(self, phase, time)


class Engine:
    """Executes one scheduler's plan for one instance; see the module docstring."""

    def __init__(self, instance: Instance, scheduler: Scheduler) -> None:
        self.instance = instance
        self.scheduler = scheduler
        self.env = _Environment()
        self.trace = Trace(instance.nodes)
        self._version: dict[int, int] = {}
        #: Per job, the number of its starts so far: a completion of an earlier start (one a
        #: fault cut short) is stale and ignored.
        self._attempt: dict[int, int] = {}
        self._occupant: list[int | None] = [None] * len(instance.nodes)

    def run(self) -> Trace:
        """Run to the last event and return the trace (unfinished jobs carry a reason)."""
        for node_id, intervals in enumerate(self.instance.busy):
            for start, end in intervals:
                self.trace.local_task(node_id, start, end)
        by_arrival = sorted(self.instance.jobs, key=lambda job: job.arrival)
        for arrival, group in itertools.groupby(by_arrival, key=lambda job: job.arrival):
            self._at(arrival, SUBMISSION, self._on_submit, tuple(group))
        self.env.run()
        self.trace.close(self.instance.jobs)
        return self.trace

    # -- scheduling of events --------------------------------------------------------------

    def _at(self, time: float, phase: int, handler, value) -> None:
        event = _Phased(self.env, time, phase, value)
        event.callbacks.append(lambda event: handler(event.value))

    def _plan_starts(self, windows: Mapping[int, Window | None]) -> None:
        """(Re)schedule the start of every job whose reservation is new or moved; a job
        mapped to ``None`` lost its window, so its pending start is cancelled."""
        for job_id, window in windows.items():
            version = self._version.get(job_id, -1) + 1
            self._version[job_id] = version
            if window is not None:
                self._at(window.start, START, self._on_start, (job_id, version))

    # -- handlers ----------------------------------------------------------------------------

    def _on_submit(self, jobs: tuple[Job, ...]) -> None:
        now = self.env.now
        for job in jobs:
            self.trace.submitted(job)
        planned, rejected = self.scheduler.submit(jobs, now)
        reason = getattr(self.scheduler, "rejection_reason", _no_window)
        for job in rejected:
            self.trace.rejected(job, reason(job))
        self._plan_starts(planned)

    def _on_start(self, value: tuple[int, int]) -> None:
        job_id, version = value
        if self._version[job_id] != version:
            return  # the reservation moved (a newer start event exists) or was withdrawn
        window = self.scheduler.start(job_id)
        if abs(window.start - self.env.now) > 1e-6 * max(1.0, abs(window.start)):
            raise SimulationError(f"job {job_id} started at {self.env.now}, not {window.start}")
        for node_id in window.nodes:
            if self._occupant[node_id] is not None:
                raise SimulationError(
                    f"node {node_id} is busy with job {self._occupant[node_id]} when job "
                    f"{job_id} starts at {window.start}"
                )
            self._occupant[node_id] = job_id
        job = self.scheduler.jobs[job_id]
        attempt = self._attempt[job_id] = self._attempt.get(job_id, 0) + 1
        actual_end = window.start + window.runtime * job.runtime_factor
        self.trace.started(job, window, self.scheduler.first_promised[job_id])
        if actual_end <= window.finish + TIME_TOLERANCE:
            # An end a few ulps past the window (a runtime factor of 1 + 1e-16) is float dust:
            # it ends with the window, before a reservation that starts there.
            end = min(actual_end, window.finish)
            self._at(end, COMPLETION, self._on_complete, (job_id, attempt, end, None))
        else:
            self._at(window.finish, COMPLETION, self._on_overrun, (job_id, attempt, actual_end))

    def _on_overrun(self, value: tuple[int, int, float]) -> None:
        job_id, attempt, actual_end = value
        if self._attempt[job_id] != attempt:
            return  # a fault ended this run of the job
        window = self.scheduler.running[job_id]
        end, moved = self.scheduler.overrun(job_id, window.finish, actual_end)
        reason = None
        if end < actual_end - TIME_TOLERANCE:
            reason = f"stopped at {end:.6g}: its overrun ran into local load"
        self._plan_starts(moved)
        self._at(end, COMPLETION, self._on_complete, (job_id, attempt, end, reason))

    def _on_complete(self, value: tuple[int, int, float, str | None]) -> None:
        job_id, attempt, end, reason = value
        if self._attempt[job_id] != attempt:
            return  # a fault ended this run of the job
        window = self.scheduler.running[job_id]
        for node_id in window.nodes:
            self._occupant[node_id] = None
        job = self.scheduler.jobs[job_id]
        self.trace.finished(job, window, end, self.scheduler.delays.get(job_id, 0.0), reason)
        self._plan_starts(self.scheduler.finish(job_id, end))


def _no_window(job: Job) -> str:
    """Why a planner without ``rejection_reason`` rejected a job."""
    return NO_WINDOW


def simulate(
    instance: Instance,
    criterion,
    priority: str = "fcfs",
    scheduler: SchedulerName = "conservative",
    power: PowerLimit | None = None,
) -> Trace:
    """One job flow under one criterion: plan (conservative backfilling unless another
    ``scheduler`` is named: ``"fcfs"``, ``"easy"``; under the cap ``power`` if given),
    execute, trace."""
    planner = build_planner(scheduler, instance.nodes, instance.busy, criterion, priority, power)
    return Engine(instance, planner).run()


def jobs_from(arrivals: Sequence[float], sizes: Sequence[int], volumes: Sequence[float]):
    """Jobs with exact runtimes from parallel lists (handy in tests and examples)."""
    return tuple(
        Job(i, float(a), int(n), float(v))
        for i, (a, n, v) in enumerate(zip(arrivals, sizes, volumes, strict=True))
    )
