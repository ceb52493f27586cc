"""Plugin classes for the plugin tests, named in scenarios as ``plugin_samples:<Class>``.

Good ones re-implement built-ins through the public contracts (their results must equal the
built-ins'); bad ones each break one rule of a contract, so each error message is pinned.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from gridsim.model import Slot, Window
from gridsim.selection.criteria import Criterion, SlotCriterion, WindowCriterion
from gridsim.selection.placement import CoP, InSlotOrder

# -- good plugins -----------------------------------------------------------------------------


@dataclass(frozen=True)
class EarliestFinish(InSlotOrder, WindowCriterion):
    """BFfinish written through the public contract: earliest finish, slots in order."""

    name: ClassVar[str] = "EarliestFinish"
    summary: ClassVar[str] = "BFfinish through the plugin contract"

    def value(self, start, runtime):
        return -(np.asarray(start, dtype=float) + runtime)


@dataclass(frozen=True)
class PlacementRules(CoP):
    """CoP re-exported under another name: its windows must be CoP's, to the bit."""


@dataclass(frozen=True)
class Cheapest(SlotCriterion):
    """MinCost through the public contract, with a parameter to pin unknown-parameter errors."""

    lite: ClassVar[bool] = True
    weight: float = 1.0

    def slot_values(self, slot_start, slot_end, q, cost, start, runtime, performance=None):
        shape = np.broadcast_shapes(np.shape(cost), np.shape(start))
        return -self.weight * np.broadcast_to(cost, shape)

    def slot_value_bound(self, slot_start, slot_end, q, cost, runtime, lo, hi, performance=None):
        return -self.weight * np.asarray(cost, dtype=float)


# -- plugins that break their contract when loaded --------------------------------------------

NOT_A_CLASS = 3


class NotACriterion:
    def search(self, profile, request):
        return None


@dataclass(frozen=True)
class NoValue(WindowCriterion):
    pass


@dataclass(frozen=True)
class ValueTakesOneArgument(WindowCriterion):
    def value(self, start):
        return -start


class Undecorated(WindowCriterion):
    def value(self, start, runtime):
        return -start


@dataclass(frozen=True)
class NoBound(SlotCriterion):
    def slot_values(self, slot_start, slot_end, q, cost, start, runtime, performance=None):
        return -cost


# -- plugins that misbehave while running -----------------------------------------------------


@dataclass(frozen=True)
class AlwaysNodeZero(Criterion):
    """Puts every window at the request's earliest start on nodes 0..n-1, free or not."""

    def search(self, profile, request):
        nodes = tuple(range(request.n))
        runtime = request.volume / min(profile.nodes[i].performance for i in nodes)
        start = request.earliest_start
        window = Window(
            start=start,
            runtime=runtime,
            nodes=nodes,
            slots=tuple(Slot(i, start, start + runtime) for i in nodes),
            cost=sum(runtime * profile.nodes[i].price for i in nodes),
        )
        try:  # right slots while the nodes are free, so the overlap is what goes wrong
            return profile.with_enclosing_slots(window)
        except ValueError:
            return window


@dataclass(frozen=True)
class TooEarly(EarliestFinish):
    """EarliestFinish's window moved one time unit before the job may start."""

    def search(self, profile, request):
        window = super().search(profile, request)
        return None if window is None else replace(window, start=window.start - 1.0)


@dataclass(frozen=True)
class Crashing(WindowCriterion):
    def value(self, start, runtime):
        raise ZeroDivisionError("no value today")
