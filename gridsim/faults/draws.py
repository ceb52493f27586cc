"""The faults of one instance, drawn once and replayed for every policy.

Consumes a :class:`~gridsim.faults.config.FaultsConfig`, the instance's nodes and local load,
and one ``numpy.random.SeedSequence``; produces :class:`InstanceFaults`: per local task its
extra time, and per node the stream of outages (down from, down until) and of unannounced
local tasks (arrival, length). Pure NumPy: no clock, no SimPy.

Common random numbers. Every stream has its own seed, a child of the instance's fault seed
keyed by (stream, node), so a node's failures do not depend on how many local tasks another
node has, and every policy meets the same faults at the same times. Streams are infinite and
read lazily (in blocks of :data:`BLOCK` draws): how far a simulation reads one depends on how
long it runs, never what it reads. Levels are coupled too: a draw is a standard variate scaled
by the level (``mean * E`` with ``E`` standard exponential; an overrun happens when
``U < probability``), so the same seed at a higher level gives the same faults, larger or
more often.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gridsim.faults.availability_trace import read_availability_trace
from gridsim.faults.config import (
    ConsequencesConfig,
    FailuresConfig,
    FaultsConfig,
    UnannouncedLocalConfig,
)
from gridsim.libm import exp, power
from gridsim.model import Node

#: Draws generated at a time per stream (any size gives the same values).
BLOCK = 64
#: The fault seed's key under the instance's seed, and the stream keys under the fault seed.
FAULTS = 0
OVERRUNS, FAILURES, UNANNOUNCED = 0, 1, 2


def instance_fault_seed(instance_seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """The fault seed of an instance: a child of the seed its nodes and jobs are drawn from,
    so faults change nothing else that instance draws."""
    key = (*instance_seed.spawn_key, FAULTS)
    return np.random.SeedSequence(instance_seed.entropy, spawn_key=key)


def stream_seed(seed: np.random.SeedSequence, stream: int, node: int) -> np.random.SeedSequence:
    """The seed of one stream of one node: a child of ``seed`` fixed by (stream, node)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, stream, node))


def weibull_scale(mean: float, shape: float) -> float:
    """Scale of a Weibull law with this mean and shape (``mean / Gamma(1 + 1/shape)``)."""
    return mean / math.gamma(1.0 + 1.0 / shape)


@dataclass(frozen=True)
class FailureLaw:
    """Up and down times of one node: ``scale * E ** (1 / shape)`` with ``E`` standard
    exponential (Weibull; shape 1 is exponential), for the time to failure and to repair."""

    up_scale: float
    up_shape: float
    down_scale: float
    down_shape: float

    def outages(self, seed: np.random.SeedSequence) -> Iterator[tuple[float, float]]:
        """(down from, down until) forever: the node is up at 0, then up and down in turn."""
        rng = np.random.default_rng(seed)
        t = 0.0
        while True:
            draws = rng.standard_exponential(size=(BLOCK, 2))
            up = self.up_scale * power(draws[:, 0], 1.0 / self.up_shape)
            down = self.down_scale * power(draws[:, 1], 1.0 / self.down_shape)
            for up_time, down_time in zip(up.tolist(), down.tolist(), strict=True):
                t += up_time
                yield t, t + down_time
                t += down_time


def failure_law(config: FailuresConfig, node: Node) -> FailureLaw | None:
    """The node's law (its class's rate and repair mean if one matches), None if it never
    fails."""
    rate, repair_mean = config.rate, config.repair_mean
    for node_class in config.classes:
        if node_class.performance.low <= node.performance <= node_class.performance.high:
            rate, repair_mean = node_class.rate, node_class.repair_mean
            break
    if rate <= 0:
        return None
    up_shape = config.shape if config.distribution == "weibull" else 1.0
    down_shape = config.repair_shape if config.repair_distribution == "weibull" else 1.0
    return FailureLaw(
        weibull_scale(1.0 / rate, up_shape),
        up_shape,
        weibull_scale(repair_mean, down_shape),
        down_shape,
    )


def unannounced_tasks(
    config: UnannouncedLocalConfig, seed: np.random.SeedSequence
) -> Iterator[tuple[float, float]]:
    """(arrival, length) of one node's unannounced local tasks forever (Poisson arrivals)."""
    rng = np.random.default_rng(seed)
    t = 0.0
    low, high = config.length.as_tuple()
    while True:
        gaps = rng.standard_exponential(size=BLOCK) / config.rate
        lengths = low + (high - low) * rng.uniform(size=BLOCK)
        for gap, length in zip(gaps.tolist(), lengths.tolist(), strict=True):
            t += gap
            yield t, length


def local_overruns(
    config: FaultsConfig,
    busy: Sequence[Sequence[tuple[float, float]]],
    seed: np.random.SeedSequence,
) -> tuple[tuple[float, ...], ...]:
    """Per node, per local task (in ``busy``'s order): the extra time past its announced
    end (0: it ends on time)."""
    spec = config.local_overruns
    extras = []
    for node_id, intervals in enumerate(busy):
        rng = np.random.default_rng(stream_seed(seed, OVERRUNS, node_id))
        count = len(intervals)
        happens = rng.uniform(size=count) < spec.probability
        if spec.distribution == "exponential":
            relative = spec.mean * rng.standard_exponential(size=count)
        else:  # lognormal with mean ``spec.mean``
            mu = math.log(spec.mean) - spec.sigma**2 / 2 if spec.mean > 0 else -math.inf
            relative = exp(mu + spec.sigma * rng.standard_normal(size=count))
        lengths = np.array([end - start for start, end in intervals], dtype=float)
        extra = np.where(happens, relative * lengths, 0.0)
        extras.append(tuple(float(x) for x in extra))
    return tuple(extras)


@dataclass(frozen=True)
class InstanceFaults:
    """What will go wrong in one instance, the same for every policy (module docstring).

    Attributes:
        config: the scenario's fault section (its ``consequences`` say what faults do).
        local_extra: per node, per local task, the extra time past its announced end.
        seed: the instance's fault seed (streams are children of it).
        listed_outages: per node, outages replayed instead of drawn ones (a recorded trace, or
            a hand-made case), or None.
        listed_unannounced: per node, unannounced local tasks (arrival, length) instead of
            drawn ones, or None.
    """

    config: FaultsConfig
    nodes: tuple[Node, ...]
    local_extra: tuple[tuple[float, ...], ...]
    seed: np.random.SeedSequence
    listed_outages: Mapping[int, Sequence[tuple[float, float]]] | None = None
    listed_unannounced: Mapping[int, Sequence[tuple[float, float]]] | None = None

    @property
    def consequences(self) -> ConsequencesConfig:
        return self.config.consequences

    def outages(self, node_id: int) -> Iterator[tuple[float, float]]:
        """The node's (down from, down until), in time order."""
        if self.listed_outages is not None:
            return iter(self.listed_outages.get(node_id, ()))
        law = failure_law(self.config.failures, self.nodes[node_id])
        if law is None:
            return iter(())
        return law.outages(stream_seed(self.seed, FAILURES, node_id))

    def unannounced(self, node_id: int) -> Iterator[tuple[float, float]]:
        """The node's unannounced local tasks (arrival, length), in time order."""
        if self.listed_unannounced is not None:
            return iter(self.listed_unannounced.get(node_id, ()))
        if self.config.unannounced_local.rate <= 0:
            return iter(())
        seed = stream_seed(self.seed, UNANNOUNCED, node_id)
        return unannounced_tasks(self.config.unannounced_local, seed)


def draw_faults(
    config: FaultsConfig,
    nodes: Sequence[Node],
    busy: Sequence[Sequence[tuple[float, float]]],
    seed: np.random.SeedSequence,
) -> InstanceFaults:
    """The faults of one instance (local load ``busy`` sorted per node, as the planner has it)."""
    busy = [sorted(intervals) for intervals in busy]
    traced = None
    if config.failures.trace is not None:
        config.check_nodes(len(nodes))
        traced = read_availability_trace(config.failures.trace)
    extra = local_overruns(config, busy, seed)
    return InstanceFaults(config, tuple(nodes), extra, seed, listed_outages=traced)
