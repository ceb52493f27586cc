"""The model shared by every part of gridsim: nodes, slots, requests, windows and jobs.

Plain frozen dataclasses, no behaviour beyond derived quantities. Terms follow [TY18, Sec. 3.1]:
a node has a performance (work units per time unit) and a price (money per time unit); a slot is
a free interval of one node; a window is ``n`` slots on distinct nodes that start together. A
job of a job flow, its priority rule's name and the tolerance under which two times are equal
are what the engine, the trace, the fault engine and the planners share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

#: Times closer than this are equal (float dust from repeated additions).
TIME_TOLERANCE = 1e-9

Priority = Literal["fcfs", "sjf"]


@dataclass(frozen=True, slots=True)
class Node:
    """A space-shared computing node.

    Attributes:
        id: index of the node in its environment (0..N-1).
        performance: work units per time unit (``p_i``).
        price: money per time unit while a task of a job occupies the node (``c_i``).
        q: an abstract per-node value used by the Q criteria [TY18, Sec. 4.1].
    """

    id: int
    performance: float
    price: float
    q: float = 0.0


@dataclass(frozen=True, slots=True)
class Slot:
    """A free interval ``[start, end)`` of one node."""

    node: int
    start: float
    end: float

    @property
    def length(self) -> float:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Request:
    """A parallel job's resource request [TY18, Sec. 3.1].

    Attributes:
        n: number of nodes needed at the same time.
        volume: work per task (``V``); a task on performance ``p`` lasts ``V / p``.
        budget: the most the whole window may cost (``C``).
        min_performance: only nodes with at least this performance are eligible (``p``).
        earliest_start: no task may start before this time (the job's arrival).
        time_quantum: runtimes are whole multiples of this, rounded up, as in a simulator of
            discrete time; 0 (the default) keeps time continuous.
        nodes_allowed: only these node ids are eligible (those able to hold a task's cores,
            memory and GPUs, docs/resources.md); None: every node.
        resource_price: by node id, what a task of the request adds to the node's price
            (money per time unit) for the cores, memory and GPUs it holds, priced per
            core-, GiB- and GPU-hour (docs/resources.md); None: nothing.
    """

    n: int
    volume: float
    budget: float = float("inf")
    min_performance: float = 0.0
    earliest_start: float = 0.0
    time_quantum: float = 0.0
    nodes_allowed: tuple[int, ...] | None = None
    resource_price: tuple[float, ...] | None = None

    def runtime_on(self, performance):
        """A task's runtime on nodes of ``performance`` (a number or an array): ``V / p``,
        rounded up to a whole number of quanta when time is discrete."""
        runtime = self.volume / performance
        if self.time_quantum > 0:
            # Rounding dust (60 / 3 a few ulps above 20) must not add a quantum.
            quanta = np.ceil(runtime / self.time_quantum * (1 - 1e-12))
            runtime = np.maximum(quanta, 1.0) * self.time_quantum
        return runtime


@dataclass(frozen=True, slots=True)
class Job:
    """A parallel job of a job flow [TY20, Sec. 2.1].

    Attributes:
        id: index of the job in its flow.
        arrival: submission time (time units).
        n: nodes needed at the same time.
        volume: work per task (work units); a task lasts ``volume / min performance``.
        budget: the most its window may cost (money); infinite means no limit.
        min_performance: only nodes at least this fast are eligible.
        runtime_factor: actual runtime / planned runtime (1 = exact estimates).
        time_quantum: runtimes are rounded up to whole multiples of it (0: continuous time).
        nodes_allowed: only these nodes are eligible (None: every node).
        resource_price: by node id, what a task adds to the node's price for the resources
            it holds (None: nothing; :class:`Request`).
    """

    id: int
    arrival: float
    n: int
    volume: float
    budget: float = math.inf
    min_performance: float = 0.0
    runtime_factor: float = 1.0
    time_quantum: float = 0.0
    nodes_allowed: tuple[int, ...] | None = None
    resource_price: tuple[float, ...] | None = None

    def request(self, now: float, volume_scale: float = 1.0) -> Request:
        return Request(
            n=self.n,
            volume=self.volume * volume_scale,
            budget=self.budget,
            min_performance=self.min_performance,
            earliest_start=max(self.arrival, now),
            time_quantum=self.time_quantum,
            nodes_allowed=self.nodes_allowed,
            resource_price=self.resource_price,
        )


@dataclass(frozen=True, slots=True)
class Window:
    """``n`` tasks on distinct nodes that start together and last ``runtime`` each.

    ``slots`` are the free slots the tasks were cut from, in the order of ``nodes``; the
    neighbour distances of [TY19, Sec. 3.4] follow from them.
    """

    start: float
    runtime: float
    nodes: tuple[int, ...]
    slots: tuple[Slot, ...]
    cost: float
    criterion_value: float = 0.0

    @property
    def finish(self) -> float:
        return self.start + self.runtime

    @property
    def n(self) -> int:
        return len(self.nodes)

    def left_distances(self) -> tuple[float, ...]:
        """``L_left`` of each task: time from its slot's start (previous task's end)."""
        return tuple(self.start - s.start for s in self.slots)

    def right_distances(self) -> tuple[float, ...]:
        """``L_right`` of each task: time to its slot's end (next task's start)."""
        return tuple(s.end - self.finish for s in self.slots)

    def distance_to_nearest(self) -> float:
        """``L_minSum``: mean over tasks of the distance to the nearest neighbouring task."""
        pairs = zip(self.left_distances(), self.right_distances(), strict=True)
        return sum(min(left, right) for left, right in pairs) / self.n

    def distance_to_farthest(self) -> float:
        """``L_maxSum``: mean over tasks of the distance to the farthest neighbouring task."""
        pairs = zip(self.left_distances(), self.right_distances(), strict=True)
        # No neighbour on the left (an infinite L_left): the farthest task is on the right.
        return (
            sum(right if left == float("inf") else max(left, right) for left, right in pairs)
            / self.n
        )
