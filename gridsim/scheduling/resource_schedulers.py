"""FCFS, EASY and conservative backfilling on nodes with cores, memory and GPUs.

Consumes the jobs as parallel sequences in priority order -- a
:class:`~gridsim.resources.ResourceRequest` and an estimate (s) each -- and the events of the
replay loop (:func:`gridsim.sim.log_replay.replay_log`, which builds these schedulers through
:func:`resource_scheduler_factory`); produces which jobs start now, on which nodes with how many
units each (:attr:`allocation`), and under conservative backfilling every job's first
reservation. Pure planning code, on one
:class:`~gridsim.scheduling.resource_profile.ResourceProfile`.

The rules are those of :mod:`gridsim.scheduling.log_schedulers` [MF01] with "fits" meaning
every resource of every node named, for the whole estimate (and, under a power cap, the busy
watts of those nodes within what the cap leaves: docs/model.md, "Power cap"):

* **FCFS**: jobs start in priority order while the next one fits now.
* **EASY**: jobs start in priority order while they fit; the first that does not (the head) is
  placed at its earliest fit behind the running jobs; a later job starts now if it fits now
  with the head's place held (on a processor count, exactly "ends by the shadow time or uses
  only the extra processors").
* **Conservative**: every job is placed on arrival at its earliest fit behind all earlier
  reservations, on named nodes; when a job ends before its estimate, the queue is compressed
  in priority order: a job's place is released and searched again, and the new place is taken
  only if it starts strictly earlier (otherwise the job keeps its place and nodes).

Cost per event: FCFS and EASY one search per job looked at; conservative one search per
arrival and one per queued job and early completion (see the profile's search cost).

These classes are the reference and the path of the Python replay loop; replays of built-in
scheduler names run their C translation, ``gridsim/core/_resource_planners.c``, with the same
schedule (:func:`gridsim.sim.log_replay.replay_resources` chooses).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence

import numpy as np

from gridsim.resources import NodeMode, ResourceRequest, never_fits
from gridsim.scheduling.log_schedulers import Algorithm
from gridsim.scheduling.resource_profile import (
    Allocation,
    Placement,
    PowerLimit,
    ResourceProfile,
    idle_draw_mw,
)


class _ResourceScheduler:
    """Shared state: the queue (priority order), running jobs' planned ends, allocations."""

    def __init__(self, capacity: np.ndarray, mode: NodeMode, requests: Sequence[ResourceRequest],
                 estimate: Sequence[float], now: float,
                 power: PowerLimit | None = None) -> None:  # fmt: skip
        for i, request in enumerate(requests):
            why = never_fits(capacity, request)
            if why is not None:
                raise ValueError(f"job at position {i} never fits: {why}")
            tail_cap = math.inf if power is None else power.cap_mw[-1]
            if power is not None and idle_draw_mw(capacity, request, power.node_mw) > tail_cap:
                raise ValueError(f"job at position {i} never fits under the power cap")
        self.requests = requests
        self.estimate = estimate
        self.profile = ResourceProfile(capacity, mode, now, power)
        self.queue: dict[int, float] = {}  # job -> reservation (nan if none)
        self.planned_end: dict[int, float] = {}
        self.allocation: dict[int, Allocation] = {}
        # When the cap rises, a queued job may start with nothing else happening.
        self._cap_rises: list[float] = [] if power is None else [
            time for time, before, after in zip(power.times[1:], power.cap_mw, power.cap_mw[1:],
                                                strict=False) if after > before
        ]  # fmt: skip
        self._cap_rises.reverse()  # a stack: the next rise last

    def next_decision(self) -> float:
        rises = self._cap_rises
        while rises and rises[-1] <= self.profile.times[0]:
            rises.pop()
        return rises[-1] if rises and self.queue else math.inf

    def counters(self) -> dict[str, int]:
        return {}

    def complete(self, now: float, finished: Sequence[int], early: bool) -> None:
        self.profile.forget_before(now)
        for job in finished:
            planned_end = self.planned_end.pop(job)
            if now < planned_end:
                self.profile.release(now, planned_end, self.allocation[job], self.requests[job])

    def submit(self, now: float, arrived: Sequence[int]) -> None:
        for job in arrived:
            self.queue[job] = math.nan

    def _fit_now(self, job: int, now: float) -> Placement | None:
        """The job's place if it can start at ``now``."""
        after_now = math.nextafter(now, math.inf)
        if not self.profile.may_start_before(now, self.requests[job], after_now):
            return None  # not even the present step holds it
        return self.profile.earliest_fit(now, self.requests[job], self.estimate[job], after_now)

    def _hold(self, job: int, place: Placement) -> None:
        end = place.start + self.estimate[job]
        self.profile.add(place.start, end, place.allocation, self.requests[job])
        self.allocation[job] = place.allocation

    def _start(self, job: int, now: float) -> None:
        del self.queue[job]
        self.planned_end[job] = now + self.estimate[job]


class ResourceFcfs(_ResourceScheduler):
    """First come, first served: no job overtakes the head of the queue."""

    def starts(self, now: float) -> list[int]:
        self.profile.forget_before(now)
        started = []
        for job in list(self.queue):
            place = self._fit_now(job, now)
            if place is None:
                break
            self._hold(job, place)
            self._start(job, now)
            started.append(job)
        return started


class ResourceEasy(_ResourceScheduler):
    """EASY backfilling: only the head of the queue holds a place, while the pass lasts."""

    def starts(self, now: float) -> list[int]:
        self.profile.forget_before(now)
        started = []
        head = None
        for job in list(self.queue):
            place = self._fit_now(job, now)
            if place is not None:
                self._hold(job, place)
                self._start(job, now)
                started.append(job)
            elif head is None:
                request, estimate = self.requests[job], self.estimate[job]
                place = self.profile.earliest_fit(now, request, estimate)
                if place is None:
                    raise AssertionError(f"job {job} never fits although it was checked")
                self._hold(job, place)
                head = job, place
        if head is not None:
            job, place = head
            end = place.start + self.estimate[job]
            self.profile.release(place.start, end, place.allocation, self.requests[job])
            del self.allocation[job]
        return started


class ResourceConservative(_ResourceScheduler):
    """Conservative backfilling with compression on named nodes.

    Attributes:
        first_reservation: per job position, the start promised on arrival (s).
    """

    def __init__(self, capacity: np.ndarray, mode: NodeMode, requests: Sequence[ResourceRequest],
                 estimate: Sequence[float], now: float,
                 power: PowerLimit | None = None) -> None:  # fmt: skip
        super().__init__(capacity, mode, requests, estimate, now, power)
        self.first_reservation: dict[int, float] = {}
        self._starts: list[tuple[float, int]] = []  # heap of (reservation, job); stale ok
        self.compressions = self.compression_moves = 0

    def counters(self) -> dict[str, int]:
        return {"compressions": self.compressions, "compression_moves": self.compression_moves}

    def next_decision(self) -> float:
        starts = self._starts
        while starts and self.queue.get(starts[0][1]) != starts[0][0]:
            heapq.heappop(starts)
        return starts[0][0] if starts else math.inf

    def complete(self, now: float, finished: Sequence[int], early: bool) -> None:
        super().complete(now, finished, early)
        if early:
            self.compress(now)

    def submit(self, now: float, arrived: Sequence[int]) -> None:
        self.profile.forget_before(now)
        for job in arrived:
            place = self.profile.earliest_fit(now, self.requests[job], self.estimate[job])
            if place is None:
                raise AssertionError(f"job {job} never fits although it was checked")
            self._hold(job, place)
            self.queue[job] = self.first_reservation[job] = place.start
            heapq.heappush(self._starts, (place.start, job))

    def compress(self, now: float) -> None:
        """One pass in priority order; a job moves only to a strictly earlier start."""
        self.compressions += 1
        profile = self.profile
        for job, reserved in list(self.queue.items()):
            if reserved <= now:
                continue
            request, estimate = self.requests[job], self.estimate[job]
            if not profile.may_start_before(now, request, reserved):
                continue  # no step before its reservation holds it: it cannot move
            old = self.allocation[job]
            profile.release(reserved, reserved + estimate, old, request)
            place = profile.earliest_fit(now, request, estimate, before=reserved)
            if place is None or not place.start < reserved:  # the guard: strictly earlier
                profile.add(reserved, reserved + estimate, old, request)
                continue
            self._hold(job, place)
            self.queue[job] = place.start
            heapq.heappush(self._starts, (place.start, job))
            self.compression_moves += 1

    def starts(self, now: float) -> list[int]:
        started = []
        while self.next_decision() == now:
            _, job = heapq.heappop(self._starts)
            self._start(job, now)
            started.append(job)
        return started


RESOURCE_SCHEDULERS: dict[str, type[_ResourceScheduler]] = {
    "fcfs": ResourceFcfs,
    "easy": ResourceEasy,
    "conservative": ResourceConservative,
}


def resource_scheduler_factory(
    algorithm: Algorithm,
    capacity: np.ndarray,
    mode: NodeMode,
    requests: Sequence[ResourceRequest],
    built: list[_ResourceScheduler] | None = None,
    power: PowerLimit | None = None,
) -> Callable[[int, Sequence[int], Sequence[float], float], _ResourceScheduler]:
    """A scheduler factory for :func:`~gridsim.sim.log_replay.replay_log`.

    ``requests`` are in the replay's priority order (the loop's job positions); the scheduler
    built is appended to ``built`` (the caller reads its allocations afterwards); ``power``
    caps the busy power the plans may draw.
    """
    if algorithm not in RESOURCE_SCHEDULERS:
        choices = list(RESOURCE_SCHEDULERS)
        raise ValueError(f"expected a scheduler among {choices}, got {algorithm!r}")
    kind = RESOURCE_SCHEDULERS[algorithm]

    def build(machine: int, processors: Sequence[int], estimate: Sequence[float], now: float):
        scheduler = kind(capacity, mode, requests, estimate, now, power)
        if built is not None:
            built.append(scheduler)
        return scheduler

    return build
