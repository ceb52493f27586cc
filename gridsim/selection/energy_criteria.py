"""Criteria that see energy, carbon and electricity prices that change over time.

``MinEnergy``, ``MinCarbon`` and ``MinCostOverTime`` choose the window of least energy (kWh),
carbon (kg) or money (the nodes' static price x runtime plus the electricity bought at the
price of the hours the window runs), exactly, by :mod:`~gridsim.selection.signal_search`;
``slack`` lets a window start later than the job's earliest start, up to that many time
units, at an hour the signals make cheaper or cleaner. A scenario's power model and signals
reach them through :func:`bind_energy`, which the kinds call on every criterion they build:
plain ``MinCost`` then becomes ``MinCostOverTime`` (same label), so its choice and its
budget see the electricity the window buys (docs/energy.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

import numpy as np

from gridsim.model import Request, Window
from gridsim.profile import Profile
from gridsim.selection.candidates import Candidates
from gridsim.selection.criteria import Criterion
from gridsim.selection.signal_search import find_signal_window
from gridsim.selection.ties import ordered_sum

#: Marks a field set by :func:`bind_energy`, not by a scenario (no parameter, no label).
BOUND = {"bound": True}


@dataclass(frozen=True)
class SignalCriterion(Criterion):
    """Least ``quantity`` over the window, searched exactly at every start that can be best."""

    quantity: ClassVar[str] = "cost"
    slack: float = 0.0
    energy: Any = field(default=None, compare=False, repr=False, metadata=BOUND)

    def __post_init__(self) -> None:
        if not self.slack >= 0:
            raise ValueError(f"slack must be a time >= 0, got {self.slack}")

    def search(self, profile: Profile, request: Request) -> Window | None:
        if self.energy is None:
            raise ValueError(f"{self.name} needs a power model (docs/energy.md)")
        slots = Candidates.from_table(profile.slot_table(), request)
        return find_signal_window(slots, request, self.energy, self.quantity, self.slack)

    def score(self, window, nodes):
        """Minus the window's ``quantity``, from its nodes, start and runtime."""
        ids = np.array(window.nodes, dtype=np.int64)
        which = "price" if self.quantity == "cost" else self.quantity
        values = self.energy.window_costs(which, ids, window.start, window.runtime)
        if self.quantity == "cost":
            values = values + window.runtime * np.array([nodes[i].price for i in window.nodes])
        return -float(ordered_sum(np.sort(values)))


@dataclass(frozen=True)
class MinEnergy(SignalCriterion):
    name: ClassVar[str] = "MinEnergy"
    summary: ClassVar[str] = "least busy energy (kWh) of the window's tasks"
    quantity: ClassVar[str] = "energy"


@dataclass(frozen=True)
class MinCarbon(SignalCriterion):
    name: ClassVar[str] = "MinCarbon"
    summary: ClassVar[str] = "least carbon: busy power x carbon intensity over the run"
    quantity: ClassVar[str] = "carbon"


@dataclass(frozen=True)
class MinCostOverTime(SignalCriterion):
    name: ClassVar[str] = "MinCostOverTime"
    summary: ClassVar[str] = "least money: node prices plus the electricity price over the run"
    quantity: ClassVar[str] = "cost"


@dataclass(frozen=True)
class _BoundMinCost(MinCostOverTime):
    """``MinCost`` on a platform with power: the same criterion, electricity included."""

    name: ClassVar[str] = "MinCost"


ENERGY_CRITERIA = (MinEnergy, MinCarbon, MinCostOverTime)
ENERGY_CRITERIA_NAMES = frozenset(cls.name for cls in ENERGY_CRITERIA)


def needs_energy(criterion: Criterion) -> bool:
    """An energy criterion, or one whose cost term weighs energy, electricity or carbon
    (CoP's and PAST's ``needs_power``)."""
    return isinstance(criterion, SignalCriterion) or bool(getattr(criterion, "needs_power", False))


def bind_energy(criterion: Criterion, model) -> Criterion:
    """``criterion`` seeing the power model and signals ``model`` (None: no power model;
    a criterion that needs one raises ValueError naming it)."""
    if needs_energy(criterion):
        if model is None:
            raise ValueError(f"policy {criterion.name} needs a power model: give power: "
                             "{idle_watts: W, busy_watts: W} (docs/energy.md)")  # fmt: skip
        return replace(criterion, energy=model)
    if (
        model is not None
        and criterion.name == "MinCost"
        and not any(f.name != "name" for f in fields(criterion))
    ):
        return _BoundMinCost(energy=model)
    return criterion


def power_needed(criteria, has_power: bool, where: str) -> None:
    """ValueError naming the first criterion that needs a power model ``where`` has none."""
    for criterion in criteria:
        if needs_energy(criterion) and not has_power:
            raise ValueError(f"policy {criterion.name} needs a power model; give {where}: "
                             "{idle_watts: W, busy_watts: W} (docs/energy.md)")  # fmt: skip
