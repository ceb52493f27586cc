"""Free capacity of every node and resource kind over time: the multi-resource profile.

Consumes node capacities (nodes x kinds, :mod:`gridsim.resources`), the node mode and the
reservations the planners add and release; answers the planners' one question: the earliest
start at which a request holds for its whole duration, and on which nodes.

Data: a step function shared by all nodes, ``times`` (step starts, increasing; the last step
lasts for ever) and ``free``, an int64 array steps x nodes x kinds. Two plain arrays, so a
compiled core can take them as they are. Equal neighbouring steps are merged, so the profile
holds at most about two steps per reservation.

The search (:meth:`ResourceProfile.earliest_fit`): per step and node, the units of the request
the node can hold (shared: the free amount of each kind over the unit's, the smallest;
exclusive: the units of the whole node if nothing else holds it, else none); a start at a step
``s`` (or ``now``) holds when the nodes' smallest counts over the steps the job covers add up
to the units. Only step starts are tried: a start inside a step covers the same steps or more.
Nodes are taken in id order (first fit), each with as many units as it holds for the whole
duration (one, with ``one_per_node``).

Power cap (optional, a :class:`PowerLimit`): one more column, global rather than per node,
``free_mw`` (steps,), the busy milliwatts still allowed in each step. A job on a node draws
that node's busy watts (one job or several on the node alike, as energy is accounted), so an
allocation draws the sum over its nodes. A time-varying cap starts as its own steps (its dips
below the maximum held, like local load). The node choice is unchanged (first fit by id); a
start is feasible only if those nodes' watts fit the free watts in every step it covers.
Starts are still tried at step starts only, although with a cap a start inside a step could
fit where the step's start does not (docs/model.md, "Power cap", states the rule).

Cost: O(S N K) per search to count units, then O(S N) per start tried (S steps, N nodes, K
kinds); O(S N K) per change (the arrays are copied when a breakpoint is inserted).

This module is the reference: replays of built-in schedulers use its C translation,
``gridsim/core/_resource_profile.c``, which gives the same answers with per-step totals,
units and node masks that spare most of this work (docs/resources.md, "Compiled").
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np

from gridsim.resources import NODE_MODES, NodeMode, ResourceRequest, units_per_node

#: ``(node, units)`` pairs, in node order: where a job's units are.
Allocation = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class PowerLimit:
    """A cap on the total busy power, in whole milliwatts so that holding and releasing add
    up exactly (:func:`gridsim.energy.cap.power_limit` rounds node watts up and the cap down).

    Attributes:
        node_mw: (nodes,) int64, what a job on each node draws.
        times: the cap's step starts (increasing; the last step lasts for ever).
        cap_mw: the cap on each step.
    """

    node_mw: np.ndarray
    times: tuple[float, ...]
    cap_mw: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Placement:
    """Where and when a request fits: its start and its units per node."""

    start: float
    allocation: Allocation


class ResourceProfile:
    """Free cores, memory and GPUs of every node from time ``now`` on.

    Args:
        capacity: nodes x kinds, what each node has.
        mode: ``"shared"`` (jobs share a node while every kind fits) or ``"exclusive"``.
        now: the left edge of the profile.
        power: a cap on the busy power (None: none); its first step starts at or before
            ``now``.
    """

    def __init__(self, capacity: np.ndarray, mode: NodeMode = "shared", now: float = 0.0,
                 power: PowerLimit | None = None) -> None:  # fmt: skip
        if mode not in NODE_MODES:
            raise ValueError(f"expected a node mode among {list(NODE_MODES)}, got {mode!r}")
        self.capacity = np.asarray(capacity, dtype=np.int64)
        self.mode = mode
        self.times: list[float] = [now]
        self.free = self.capacity[np.newaxis].copy()
        self.node_mw = None if power is None else np.asarray(power.node_mw, dtype=np.int64)
        self.free_mw = None
        if power is not None:
            later = [i for i, t in enumerate(power.times) if t > now]
            first = (later[0] if later else len(power.times)) - 1
            if first < 0:
                raise ValueError(f"the power cap starts at {power.times[0]}, after {now}")
            cap_mw = [power.cap_mw[first]]
            for i in later:  # a step per change of the cap: the profile's steps all differ
                if power.cap_mw[i] != cap_mw[-1]:
                    self.times.append(power.times[i])
                    cap_mw.append(power.cap_mw[i])
            self.free = np.repeat(self.free, len(self.times), axis=0)
            self.free_mw = np.array(cap_mw, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.times)

    def _step_at(self, time: float) -> int:
        return max(bisect_right(self.times, time) - 1, 0)

    def forget_before(self, now: float) -> None:
        """Drop the steps that ended at or before ``now``; the profile then starts at ``now``."""
        i = self._step_at(now)
        if i > 0:
            del self.times[:i]
            self.free = self.free[i:]
            if self.free_mw is not None:
                self.free_mw = self.free_mw[i:]
        self.times[0] = max(self.times[0], now)

    def demand(self, allocation: Allocation, request: ResourceRequest) -> np.ndarray:
        """The amounts an allocation holds on each of its nodes (its nodes x kinds)."""
        nodes = [node for node, _ in allocation]
        if self.mode == "exclusive":
            return self.capacity[nodes]
        units = np.array([units for _, units in allocation], dtype=np.int64)
        return units[:, np.newaxis] * np.asarray(request.unit, dtype=np.int64)

    def add(self, start: float, end: float, allocation: Allocation, request: ResourceRequest,
            sign: int = 1) -> None:  # fmt: skip
        """Hold ``allocation`` over ``[start, end)`` (release it with ``sign=-1``).

        Raises:
            ValueError: a node would have less than nothing, or more than its capacity, free.
        """
        if end <= start:
            return
        times = self.times
        if start < times[0]:
            raise ValueError(f"[{start}, {end}) starts before the profile ({times[0]})")
        i = self._split(start)
        j = len(times) if end == math.inf else self._split(end)
        nodes = [node for node, _ in allocation]
        block = self.free[i:j, nodes] - sign * self.demand(allocation, request)
        if block.min(initial=0) < 0:
            raise ValueError(f"over-committed on nodes {nodes} over [{start}, {end})")
        if (block > self.capacity[nodes]).any():
            raise ValueError(f"released more than was held on nodes {nodes} over [{start}, {end})")
        if self.free_mw is not None:
            watts = self.free_mw[i:j] - sign * int(self.node_mw[nodes].sum())
            if watts.min(initial=0) < 0:
                raise ValueError(f"over the power cap on nodes {nodes} over [{start}, {end})")
            self.free_mw[i:j] = watts
        self.free[i:j, nodes] = block
        self._merge(j)
        self._merge(i)

    def release(self, start: float, end: float, allocation: Allocation,
                request: ResourceRequest) -> None:  # fmt: skip
        """Free what :meth:`add` held."""
        self.add(start, end, allocation, request, sign=-1)

    def _split(self, time: float) -> int:
        """The index of the step starting at ``time``, inserting a breakpoint if needed."""
        i = bisect_left(self.times, time)
        if i == len(self.times) or self.times[i] != time:
            self.times.insert(i, time)
            self.free = np.insert(self.free, i, self.free[i - 1], axis=0)
            if self.free_mw is not None:
                self.free_mw = np.insert(self.free_mw, i, self.free_mw[i - 1])
        return i

    def _merge(self, i: int) -> None:
        """Merge step ``i`` into step ``i - 1`` if they have the same free amounts."""
        if not 0 < i < len(self.times) or not np.array_equal(self.free[i], self.free[i - 1]):
            return
        if self.free_mw is not None:
            if self.free_mw[i] != self.free_mw[i - 1]:
                return
            self.free_mw = np.delete(self.free_mw, i)
        del self.times[i]
        self.free = np.delete(self.free, i, axis=0)

    def units_free(self, request: ResourceRequest, steps: slice = slice(None)) -> np.ndarray:
        """Steps x nodes: how many units of ``request`` each node can take in each step."""
        free = self.free[steps]
        if self.mode == "exclusive":
            idle = (free == self.capacity).all(axis=2)
            return np.where(idle, units_per_node(self.capacity, request), 0)
        return units_per_node(free, request)

    def may_start_before(self, now: float, request: ResourceRequest, time: float) -> bool:
        """Whether some step starting before ``time`` (from ``now``'s on) holds the request's
        units at all: a start before ``time`` needs one. ``False`` means
        :meth:`earliest_fit` with ``before=time`` finds nothing, even once a reservation
        starting at ``time`` is released (it holds nothing before ``time``)."""
        first = self._step_at(now)
        stop = max(bisect_left(self.times, time), first + 1)
        counts = self.units_free(request, slice(first, stop)).sum(axis=1)
        return bool((counts >= request.units).any())

    def earliest_fit(
        self, now: float, request: ResourceRequest, duration: float, before: float = math.inf
    ) -> Placement | None:
        """The earliest start ``t >= now``, ``t < before``, at which ``request`` holds for
        ``duration``, and its nodes (first fit by node id; under a power cap, only if those
        nodes' busy watts fit every step covered); None if there is none before ``before``."""
        times = self.times
        units = self.units_free(request)
        first = self._step_at(now)
        enough = np.flatnonzero(units[first:].sum(axis=1) >= request.units) + first
        for s in enough.tolist():
            start = max(times[s], now)
            if start >= before:
                return None
            covered = bisect_left(times, start + duration, s + 1)
            held = units[s:covered].min(axis=0)
            if int(held.sum()) < request.units:
                continue
            allocation = _first_fit(held, request.units)
            if self.free_mw is not None:
                draw = int(self.node_mw[[node for node, _ in allocation]].sum())
                if int(self.free_mw[s:covered].min()) < draw:
                    continue  # the first-fit nodes draw more than the cap leaves
            return Placement(start, allocation)
        return None


def idle_draw_mw(capacity: np.ndarray, request: ResourceRequest, node_mw: np.ndarray) -> int:
    """The milliwatts a request draws on an empty machine (its first-fit nodes then): a
    cap that stays below it for ever never lets the job start."""
    allocation = _first_fit(units_per_node(np.asarray(capacity), request), request.units)
    return int(np.asarray(node_mw)[[node for node, _ in allocation]].sum())


def _first_fit(held: np.ndarray, units: int) -> Allocation:
    """Units on the lowest node ids, each node taking what it holds, until ``units``."""
    allocation = []
    remaining = units
    for node in np.flatnonzero(held).tolist():
        take = min(int(held[node]), remaining)
        allocation.append((node, take))
        remaining -= take
        if remaining == 0:
            break
    return tuple(allocation)
