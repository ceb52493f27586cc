"""Plugin classes for the plugin tests, named in scenarios as ``plugin_samples:<Class>``.

Good ones re-implement built-ins through the public contracts (their results must equal the
built-ins'); bad ones each break one rule of a contract, so each error message is pinned.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from gridsim.model import Slot, Window
from gridsim.scheduling.backfilling import ConservativeBackfilling, ReservationPlanner
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


# -- job-flow schedulers ----------------------------------------------------------------------


class Conservative(ConservativeBackfilling):
    """Conservative backfilling, as a plugin: its tables must be the built-in's."""


class AreaFirst(ConservativeBackfilling):
    """Conservative backfilling that plans jobs arriving together by ``n * volume``."""

    def __init__(self, nodes, busy, criterion, priority="fcfs", largest_first: bool = False):
        super().__init__(nodes, busy, criterion, priority)
        sign = -1 if largest_first else 1
        self.key = lambda job: (sign * job.n * job.volume, job.arrival, job.id)


class Described(ConservativeBackfilling):
    """Conservative backfilling under another name.

    Only the first line of this docstring describes it in listings.
    """


class Undescribed(ConservativeBackfilling):
    __doc__ = None


class NotAPlanner:
    def submit(self, jobs, now):
        return {}, []


class NoOverrun(ReservationPlanner):
    def submit(self, jobs, now):
        return {}, []

    def finish(self, job_id, now):
        return {}


class SubmitWithoutTime(ConservativeBackfilling):
    def submit(self, jobs):
        return {}, []


class StackedOnFirstNodes(ConservativeBackfilling):
    """Every job on nodes 0..n-1 from when it is submitted, whoever holds them."""

    def submit(self, jobs, now):
        planned = {}
        for job in jobs:
            nodes = tuple(range(job.n))
            runtime = job.volume / min(self.nodes[i].performance for i in nodes)
            window = Window(
                start=max(job.arrival, now),
                runtime=runtime,
                nodes=nodes,
                slots=tuple(Slot(i, 0.0, float("inf")) for i in nodes),
                cost=sum(runtime * self.nodes[i].price for i in nodes),
            )
            self.jobs[job.id] = job
            self.reservations[job.id] = window
            self.first_promised[job.id] = window.start
            planned[job.id] = window
        return planned, []

    def finish(self, job_id, now):
        self.running.pop(job_id)
        self.busy_until.pop(job_id)
        return {}


class Procrastinating(ConservativeBackfilling):
    """After every early finish, pushes one queued reservation 50 time units later."""

    def finish(self, job_id, now):
        moved = dict(super().finish(job_id, now))
        for other, window in sorted(self.reservations.items()):
            later = replace(window, start=window.start + 50.0)
            self.profile.release_window(window)
            if all(self.profile.is_free(i, later.start, later.finish) for i in later.nodes):
                self.profile.reserve(later)
                self.reservations[other] = moved[other] = later
                return moved
            self.profile.reserve(window)
        return moved


class LosesTrack(ConservativeBackfilling):
    def finish(self, job_id, now):
        raise KeyError(f"lost track of job {job_id}")
