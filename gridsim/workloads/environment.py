"""Heterogeneous environments with local load [TY18, Sec. 4.1; TY19, Sec. 4.1].

Consumes an :class:`EnvironmentSpec` and a ``numpy.random.Generator``; produces the nodes and
their busy intervals (local jobs, advance reservations, maintenance) over the horizon, ready for
:class:`~gridsim.profile.Profile`. Every range is a parameter; the defaults are the papers'
100-node experiment. Choices the papers leave open are explained in docs/model.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from gridsim.libm import power
from gridsim.model import Node
from gridsim.profile import Profile


@dataclass(frozen=True)
class PriceModel:
    """How a node's price per time unit follows from its performance.

    ``proportional``: ``price = base * performance * U[1 - spread, 1 + spread]`` -- a node
    ``k`` times faster costs about ``k`` times more per time unit, so a task costs about the
    same on any node and a user pays mostly for speed of the *window* (docs/model.md).
    ``exponential``: ``price = base * U[1 - spread, 1 + spread] * growth ** performance``, the
    slot price of [TY+17, Sec. 5].
    """

    model: Literal["proportional", "exponential"] = "proportional"
    base: float = 0.11
    spread: float = 0.35
    growth: float = 1.7

    def draw(self, performance: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        noise = rng.uniform(1 - self.spread, 1 + self.spread, size=len(performance))
        if self.model == "proportional":
            return self.base * performance * noise
        return self.base * noise * power(self.growth, performance)


@dataclass(frozen=True)
class LocalLoad:
    """Busy intervals on each node before any job is placed.

    Each node's utilisation is ``max_utilisation * X / draws`` with ``X`` hypergeometric
    (``draws`` from an urn of ``draws`` busy and ``draws`` free quanta): bell-shaped on
    ``[0, max_utilisation]``, mean half of it -- our reading of the papers' "distributed
    hyper-geometrically, up to 30% per node". The busy time is cut into a number of tasks drawn
    from ``tasks_per_node`` and placed at random positions (free gaps split uniformly).
    """

    max_utilisation: float = 0.3
    draws: int = 20
    tasks_per_node: tuple[int, int] = (1, 4)

    def draw(self, n_nodes: int, horizon: float, rng: np.random.Generator):
        busy: list[list[tuple[float, float]]] = []
        for _ in range(n_nodes):
            share = rng.hypergeometric(self.draws, self.draws, self.draws) / self.draws
            busy_time = self.max_utilisation * share * horizon
            tasks = int(rng.integers(self.tasks_per_node[0], self.tasks_per_node[1] + 1))
            if busy_time <= 0 or tasks == 0:
                busy.append([])
                continue
            lengths = rng.dirichlet(np.ones(tasks)) * busy_time
            gaps = rng.dirichlet(np.ones(tasks + 1)) * (horizon - busy_time)
            intervals, t = [], 0.0
            for gap, length in zip(gaps[:-1], lengths, strict=True):
                t += gap
                intervals.append((float(t), float(t + length)))
                t += length
            busy.append(intervals)
        return busy


@dataclass(frozen=True)
class EnvironmentSpec:
    """The environment generator's parameters (defaults: [TY18, Sec. 4.1])."""

    nodes: int = 100
    performance: tuple[float, float] = (2.0, 10.0)
    #: Performance granularity: 0 draws real values ``U[low, high]``; a step ``s > 0`` draws
    #: uniformly among the levels ``low, low + s, ...`` up to ``high`` (1: whole numbers).
    performance_step: float = 0.0
    horizon: float = 1200.0
    q: tuple[float, float] = (0.0, 10.0)
    price: PriceModel = PriceModel()
    local_load: LocalLoad = LocalLoad()
    #: What a free slot that opens at the horizon start has on its left (docs/model.md,
    #: "Neighbour distances at the edges"): ``neighbour`` -- the horizon start counts as a
    #: neighbouring task; ``none`` -- no neighbour on that side (``L_left`` is infinite, the
    #: nearest and farthest task are both on the right); ``history`` -- the nodes ran local
    #: load before the interval too: one more horizon of it is drawn before time 0 and
    #: ``L_left`` reaches back to it.
    horizon_start_edge: Literal["neighbour", "none", "history"] = "neighbour"


@dataclass(frozen=True)
class Environment:
    """A generated instance: nodes and their busy intervals over the horizon.

    ``horizon_start`` is where the profile's slots may begin (0, ``-inf`` without a
    neighbour at the edge, ``-horizon`` with a history); windows still start at 0 or later.
    """

    nodes: tuple[Node, ...]
    busy: tuple[tuple[tuple[float, float], ...], ...]
    horizon: float
    horizon_start: float = 0.0

    def profile(self) -> Profile:
        return Profile(self.nodes, self.busy, self.horizon_start, self.horizon)


def draw_performance(
    bounds: tuple[float, float], step: float, count: int, rng: np.random.Generator
) -> np.ndarray:
    """``count`` node performances: real values in ``bounds`` (``step`` 0), or levels ``step``
    apart from the low end (docs/model.md, "Performance granularity")."""
    low, high = bounds
    if step <= 0:
        return rng.uniform(low, high, size=count)
    levels = int(np.floor((high - low) / step + 1e-9)) + 1
    return low + step * rng.integers(0, levels, size=count)


def generate_environment(spec: EnvironmentSpec, rng: np.random.Generator) -> Environment:
    """Draw nodes (performance, price, q) and their local load.

    Draw order is fixed (performance, price, q, load) so a scenario and seed give one instance.
    """
    performance = draw_performance(spec.performance, spec.performance_step, spec.nodes, rng)
    price = spec.price.draw(performance, rng)
    q = rng.uniform(*spec.q, size=spec.nodes)
    nodes = tuple(
        Node(i, float(performance[i]), float(price[i]), float(q[i])) for i in range(spec.nodes)
    )
    busy = spec.local_load.draw(spec.nodes, spec.horizon, rng)
    horizon_start = 0.0
    if spec.horizon_start_edge == "none":
        horizon_start = -math.inf
    elif spec.horizon_start_edge == "history":
        # Drawn after everything else: the instance inside the horizon stays the same.
        before = spec.local_load.draw(spec.nodes, spec.horizon, rng)
        busy = [
            [(a - spec.horizon, b - spec.horizon) for a, b in earlier] + later
            for earlier, later in zip(before, busy, strict=True)
        ]
        horizon_start = -spec.horizon
    return Environment(nodes, tuple(tuple(b) for b in busy), spec.horizon, horizon_start)
