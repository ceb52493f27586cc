"""ReliableFinish: the earliest finish, traded against the nodes' reliability.

Each node carries a value ``q`` (the environment draws it, ``environment.q``); read here as a
reliability score, higher is better. A window's value is the sum over its tasks of

    z_i = -(start + runtime) + reliability_weight * q_i

so with ``reliability_weight: 0`` it is the earliest finish (as MinFinish), and a larger weight
accepts a later finish for more reliable nodes. Exact: the search runs the slot subset
allocation at every step (``lite = False``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gridsim.selection.criteria import SlotCriterion


@dataclass(frozen=True)
class ReliableFinish(SlotCriterion):
    """Earliest finish plus ``reliability_weight`` times each node's ``q``."""

    name: ClassVar[str] = "ReliableFinish"
    summary: ClassVar[str] = "earliest finish traded against node reliability q"
    reliability_weight: float = 1.0

    def __post_init__(self) -> None:
        if self.reliability_weight < 0:
            raise ValueError(f"reliability_weight must be >= 0, got {self.reliability_weight}")

    def slot_values(self, slot_start, slot_end, q, cost, start, runtime, performance=None):
        return -(np.asarray(start, dtype=float) + runtime) + self.reliability_weight * q

    def slot_value_bound(self, slot_start, slot_end, q, cost, runtime, lo, hi, performance=None):
        # z falls as the start grows: its largest value over [lo, hi] is at lo.
        return -(np.asarray(lo, dtype=float) + runtime) + self.reliability_weight * q
