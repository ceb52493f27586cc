"""Brute-force FCFS, EASY and conservative backfilling on nodes with cores, memory and GPUs.

The obviously-correct reading the planners of gridsim.scheduling.resource_schedulers are
compared with: integer times, every instant visited one by one, every holding kept as a plain
(start, end, node amounts) record and the free amounts of a node recomputed from all of them
for every time unit asked about; a start is tried at now, now + 1, ... No step function, no
merged steps, no counting of units across steps.

Rules (the same as gridsim's, docs/resources.md): at one instant, completions, then arrivals
(in priority order), then starts; jobs hold their nodes for their estimate; a job ending early
frees the rest and (conservative) compresses the queue in priority order, a job moving only to
a strictly earlier start; nodes are taken in id order, each with as many units as it holds for
the whole estimate. Under a power cap (``node_watts``, ``cap``), those first-fit nodes' busy
watts plus those of every holding at a time unit must be within the cap at that unit, for
every unit the job covers, or the start is not feasible.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gridsim.resources import ResourceRequest


@dataclass
class Holding:
    start: int
    end: int
    amounts: dict[int, np.ndarray]  # node -> amounts held
    watts: int = 0  # busy watts of its nodes


@dataclass
class State:
    capacity: np.ndarray
    exclusive: bool
    holdings: dict[int, Holding] = field(default_factory=dict)  # job -> what it holds
    node_watts: list[int] | None = None
    cap: Callable[[int], int] | None = None  # the cap (W) over [time, time + 1)

    def draw(self, take) -> int:
        return 0 if self.node_watts is None else sum(self.node_watts[node] for node in take)

    def free_watts(self, time: int) -> int:
        drawn = sum(h.watts for h in self.holdings.values() if h.start <= time < h.end)
        return self.cap(time) - drawn

    def within_cap(self, take, start: int, duration: int) -> bool:
        if self.cap is None:
            return True
        draw = self.draw(take)
        return all(self.free_watts(time) >= draw for time in range(start, start + duration))

    def tried(self, start: int, now: int) -> bool:
        """Under a cap, starts are tried only at ``now`` and where the free amounts or the
        free watts change (with a cap, feasibility is not monotone between them)."""
        if self.cap is None or start == now:
            return True
        nodes = range(len(self.capacity))
        return self.free_watts(start) != self.free_watts(start - 1) or any(
            (self.free_at(node, start) != self.free_at(node, start - 1)).any() for node in nodes
        )

    def free_at(self, node: int, time: int) -> np.ndarray:
        free = self.capacity[node].copy()
        for holding in self.holdings.values():
            if holding.start <= time < holding.end and node in holding.amounts:
                free = free - holding.amounts[node]
        return free

    def units_held(self, node: int, request: ResourceRequest, start: int, duration: int) -> int:
        """The units a node can hold over every time unit of [start, start + duration)."""
        capacity = self.capacity[node]
        held = None
        for time in range(start, start + duration):
            free = self.free_at(node, time)
            if self.exclusive:
                whole = _units(capacity, request)
                units = whole if (free == capacity).all() else 0
            else:
                units = _units(free, request)
            held = units if held is None else min(held, units)
        return held

    def place(self, request: ResourceRequest, start: int, duration: int, now: int):
        """The first-fit nodes at ``start``, or None if the request does not fit there."""
        if not self.tried(start, now):
            return None
        take, remaining = {}, request.units
        for node in range(len(self.capacity)):
            units = min(self.units_held(node, request, start, duration), remaining)
            if units > 0:
                take[node] = units
                remaining -= units
            if remaining == 0:
                return take if self.within_cap(take, start, duration) else None
        return None

    def hold(self, job: int, request: ResourceRequest, start: int, duration: int, take) -> None:
        unit = np.asarray(request.unit)
        amounts = {node: (self.capacity[node] if self.exclusive else units * unit)
                   for node, units in take.items()}  # fmt: skip
        self.holdings[job] = Holding(start, start + duration, amounts, self.draw(take))


def _units(free: np.ndarray, request: ResourceRequest) -> int:
    counts = [int(f) // u for f, u in zip(free, request.unit, strict=True) if u > 0]
    units = min(counts)
    return min(units, 1) if request.one_per_node else units


def reference_replay(jobs, capacity, exclusive: bool, algorithm: str, horizon: int = 10_000,
                     node_watts=None, cap=None):  # fmt: skip
    """Start times and allocations of ``jobs``: (submit, request, estimate, duration) tuples
    with integer times, already in priority order, under a power ``cap`` (a function of the
    time unit, watts) on nodes drawing ``node_watts`` if given. Returns (start list,
    allocation dicts, first reservations)."""
    state = State(np.asarray(capacity), exclusive, node_watts=node_watts, cap=cap)
    count = len(jobs)
    start: list[int | None] = [None] * count
    first: list[int | None] = [None] * count
    placed: dict[int, dict[int, int]] = {}
    queue: list[int] = []
    reserved: dict[int, int] = {}
    for now in range(horizon):
        ended = [j for j in range(count) if start[j] is not None
                 and start[j] + jobs[j][3] == now]  # fmt: skip
        early = False
        for job in ended:
            state.holdings[job].end = now
            early = early or jobs[job][3] < jobs[job][2]
        if algorithm == "conservative" and early:
            for job in list(queue):
                if reserved[job] <= now:
                    continue
                old = state.holdings.pop(job)
                _, request, estimate, _ = jobs[job]
                for t in range(now, reserved[job]):
                    take = state.place(request, t, estimate, now)
                    if take is not None:
                        state.hold(job, request, t, estimate, take)
                        reserved[job], placed[job] = t, take
                        break
                else:
                    state.holdings[job] = old
        for job in range(count):
            if jobs[job][0] == now:
                queue.append(job)
                if algorithm == "conservative":
                    _, request, estimate, _ = jobs[job]
                    t = now
                    while (take := state.place(request, t, estimate, now)) is None:
                        t += 1
                    state.hold(job, request, t, estimate, take)
                    reserved[job] = first[job] = t
                    placed[job] = take
        if algorithm == "conservative":
            for job in [j for j in queue if reserved[j] == now]:
                queue.remove(job)
                start[job] = now
        else:
            _pass(state, jobs, queue, start, placed, now, algorithm == "easy")
        if not queue and all(s is not None for s in start):
            break
    return start, placed, first


def _pass(state, jobs, queue, start, placed, now, easy: bool) -> None:
    head = None
    for job in list(queue):
        _, request, estimate, _ = jobs[job]
        take = state.place(request, now, estimate, now)
        if take is not None:
            state.hold(job, request, now, estimate, take)
            queue.remove(job)
            start[job], placed[job] = now, take
        elif not easy:
            break
        elif head is None:
            t = now
            while (take := state.place(request, t, estimate, now)) is None:
                t += 1
            state.hold(job, request, t, estimate, take)
            head = job
    if head is not None:
        del state.holdings[head]
