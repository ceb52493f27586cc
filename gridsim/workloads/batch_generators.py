"""Random slot lists and job batches for batch scheduling cycles [TYTB11, Sec. 5].

Consumes a ``numpy.random.Generator`` and the generator parameters; produces a ``Profile`` whose
free slots are the generated slot list, and a list of ``BatchJob``.

The paper generates the slot list directly instead of a whole system: each slot is the free
interval of its own node, whose performance and price are the slot's, so the profile has one
node per slot, busy outside that slot. All quantities are uniform on the given closed ranges;
counts are integers, times, performances and prices are real numbers. The job price cap is not
given by the paper: see ``docs/batch.md`` ("Model choices").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from gridsim.libm import power
from gridsim.model import Node
from gridsim.profile import Profile
from gridsim.scheduling.batch.window import BatchJob


@dataclass(frozen=True, slots=True)
class SlotListParameters:
    """Ranges of the slot-list generator; defaults are those of [TYTB11, Sec. 5].

    Attributes:
        count: number of slots, integer range.
        length: slot length (time units).
        performance: node performance (work units per time unit).
        same_start_probability: chance that a slot starts together with the previous one.
        gap: otherwise, time from the previous slot's start to this one's.
        price_spread: factor range of the price around its nominal value.
        price_base: nominal price per time unit is ``price_base ** performance``.
    """

    count: tuple[int, int] = (120, 150)
    length: tuple[float, float] = (50.0, 300.0)
    performance: tuple[float, float] = (1.0, 3.0)
    same_start_probability: float = 0.4
    gap: tuple[float, float] = (0.0, 10.0)
    price_spread: tuple[float, float] = (0.75, 1.25)
    price_base: float = 1.7


@dataclass(frozen=True, slots=True)
class BatchParameters:
    """Ranges of the job-batch generator; defaults are those of [TYTB11, Sec. 5].

    Attributes:
        count: number of jobs in the batch, integer range.
        nodes: nodes per job (``N``), integer range.
        runtime: job length at its minimum performance (``t``, time units).
        min_performance: minimum node performance (``P``).
        price_markup: the price cap is ``markup * price_base ** P``, markup drawn from this
            range (our choice, docs/batch.md); ``price_base`` is the slot generator's.
        price_base: must equal the slot generator's ``price_base``.
        length: what ``runtime`` is: ``"time"`` on a node of the minimum performance
            (default), or ``"work"`` (docs/model.md, "Batch job length").
    """

    count: tuple[int, int] = (3, 7)
    nodes: tuple[int, int] = (1, 6)
    runtime: tuple[float, float] = (50.0, 150.0)
    min_performance: tuple[float, float] = (1.0, 2.0)
    price_markup: tuple[float, float] = (1.0, 1.25)
    price_base: float = 1.7
    length: Literal["time", "work"] = "time"


def generate_slot_list(rng: np.random.Generator, parameters: SlotListParameters) -> Profile:
    """A slot list sorted by start, as a profile with one node per slot.

    The first slot starts at 0; each next one starts with the previous one with probability
    ``same_start_probability``, else a uniform ``gap`` later.
    """
    count = int(rng.integers(parameters.count[0], parameters.count[1] + 1))
    same = rng.random(count) < parameters.same_start_probability
    gaps = np.where(same, 0.0, rng.uniform(*parameters.gap, size=count))
    gaps[0] = 0.0
    starts = np.cumsum(gaps)
    lengths = rng.uniform(*parameters.length, size=count)
    performance = rng.uniform(*parameters.performance, size=count)
    price = rng.uniform(*parameters.price_spread, size=count) * power(
        parameters.price_base, performance
    )
    return slot_list_profile(starts, starts + lengths, performance, price)


def slot_list_profile(
    starts: np.ndarray, ends: np.ndarray, performance: np.ndarray, price: np.ndarray
) -> Profile:
    """A profile whose free slots are exactly ``[starts[i], ends[i])``, each on its own node."""
    nodes = [
        Node(id=i, performance=float(p), price=float(c))
        for i, (p, c) in enumerate(zip(performance, price, strict=True))
    ]
    horizon_end = float(np.max(ends))
    busy = [
        [(0.0, float(start)), (float(end), horizon_end)]
        for start, end in zip(starts, ends, strict=True)
    ]
    return Profile(nodes, busy, horizon_start=0.0, horizon_end=horizon_end)


def generate_batch(rng: np.random.Generator, parameters: BatchParameters) -> list[BatchJob]:
    """A batch of jobs, highest priority first (the order drawn)."""
    count = int(rng.integers(parameters.count[0], parameters.count[1] + 1))
    nodes = rng.integers(parameters.nodes[0], parameters.nodes[1] + 1, size=count)
    runtime = rng.uniform(*parameters.runtime, size=count)
    min_performance = rng.uniform(*parameters.min_performance, size=count)
    markup = rng.uniform(*parameters.price_markup, size=count)
    price_cap = markup * power(parameters.price_base, min_performance)
    return [
        BatchJob(int(n), float(t), float(p), float(c), parameters.length == "work")
        for n, t, p, c in zip(nodes, runtime, min_performance, price_cap, strict=True)
    ]
