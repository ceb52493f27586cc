"""A power cap for the node-level planners: planned busy watts over time, and the window rule.

Consumes a :class:`~gridsim.scheduling.resource_profile.PowerLimit` (per node the busy
milliwatts a task there draws, the cap's steps; :func:`gridsim.energy.cap.power_limit`) and
the windows the planners reserve and release; produces :class:`CappedProfile`, a
:class:`~gridsim.profile.Profile` that also tracks the milliwatts the cap still allows at
every instant, and :func:`capped_search`, the window a criterion gets under the cap.

Data: :class:`PowerPlan`, a step function (``times``, the step starts, and ``free_mw``, the
milliwatts still allowed on each step; the last step lasts for ever), in whole milliwatts so
that reserving and releasing add up exactly. Local load is nobody's job and draws no job
power, as the accounting decides, so only reserved windows enter the plan.

The rule (docs/model.md, "Power cap of the window-search planners"): the criterion chooses
its window as without a cap; the window stands if its nodes' busy watts fit what the plan
allows over its whole span.
If they do not, the search starts again from the next instant after that window's start at
which a node's free slot begins or the planned watts change. Once nothing changes any more
(every node free, nothing planned, the cap at its lowest value), a window the cap refuses is
replaced by the ``n`` eligible nodes that draw least. Reservations never move later, and a
window in the plan never exceeds the cap: :meth:`PowerPlan.add` raises if one would.

Cost: one window search per start tried; a step function of O(reservations) steps.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from gridsim.model import Node, Request, Window
from gridsim.profile import Profile
from gridsim.scheduling.resource_profile import PowerLimit

#: The trace's reason for a job whose least-drawing nodes exceed the cap's lowest value.
OVER_CAP = (
    "its least-drawing nodes draw more than the power cap's lowest value (or cost more than "
    "its budget)"
)


class PowerPlan:
    """The busy milliwatts the cap still allows from ``now`` on (a step function)."""

    def __init__(self, limit: PowerLimit, now: float) -> None:
        later = [i for i, t in enumerate(limit.times) if t > now]
        # Before its first step (a log's first submission) the cap's first value holds.
        first = max((later[0] if later else len(limit.times)) - 1, 0)
        later = [i for i in later if i > first]
        self.times: list[float] = [now]
        self.free_mw: list[int] = [int(limit.cap_mw[first])]
        for i in later:
            if limit.cap_mw[i] != self.free_mw[-1]:
                self.times.append(float(limit.times[i]))
                self.free_mw.append(int(limit.cap_mw[i]))
        #: The lowest value of the cap: every window must fit it once nothing is planned.
        self.lowest_mw = int(min(limit.cap_mw))

    def _step_at(self, time: float) -> int:
        return max(bisect_right(self.times, time) - 1, 0)

    def forget_before(self, now: float) -> None:
        """Drop the steps that ended at or before ``now``."""
        i = self._step_at(now)
        if i > 0:
            del self.times[:i]
            del self.free_mw[:i]
        self.times[0] = max(self.times[0], now)

    def fits(self, start: float, end: float, draw_mw: int) -> bool:
        """Whether ``draw_mw`` more fits every instant of ``[start, end)``."""
        i = self._step_at(start)
        return min(self.free_mw[i : max(bisect_left(self.times, end), i + 1)]) >= draw_mw

    def most_free(self, first: float, last: float) -> int:
        """The most milliwatts free at any instant of ``[first, last]``."""
        i, j = self._step_at(first), self._step_at(last)
        return max(self.free_mw[i : j + 1])

    def add(self, start: float, end: float, draw_mw: int, sign: int = 1) -> None:
        """Plan ``draw_mw`` over ``[start, end)`` (give it back with ``sign=-1``).

        Raises:
            ValueError: the plan would exceed the cap.
        """
        if end <= start:
            return
        i = self._split(max(start, self.times[0]))
        j = len(self.times) if end == math.inf else self._split(end)
        free = [value - sign * draw_mw for value in self.free_mw[i:j]]
        if free and min(free) < 0:
            raise ValueError(f"{draw_mw / 1000:g} W over [{start}, {end}) exceed the power cap")
        self.free_mw[i:j] = free
        self._merge(j)
        self._merge(i)

    def next_change(self, time: float) -> float | None:
        """The first step start after ``time`` (None: the plan is constant from ``time``)."""
        i = bisect_right(self.times, time)
        return self.times[i] if i < len(self.times) else None

    def _split(self, time: float) -> int:
        i = bisect_left(self.times, time)
        if i == len(self.times) or self.times[i] != time:
            self.times.insert(i, time)
            self.free_mw.insert(i, self.free_mw[i - 1])
        return i

    def _merge(self, i: int) -> None:
        if 0 < i < len(self.times) and self.free_mw[i] == self.free_mw[i - 1]:
            del self.times[i]
            del self.free_mw[i]


class CappedProfile(Profile):
    """A :class:`~gridsim.profile.Profile` whose reserved windows also enter a
    :class:`PowerPlan`: the planners reserve and release as without a cap.

    Args:
        nodes: the environment's nodes, as :class:`~gridsim.profile.Profile`.
        busy: per node, the local-load busy intervals.
        horizon_start: the profile's start (its horizon is infinite).
        limit: the cap and the nodes' busy milliwatts.
    """

    def __init__(
        self,
        nodes: Sequence[Node],
        busy: Sequence[Iterable[tuple[float, float]]],
        horizon_start: float,
        limit: PowerLimit,
    ) -> None:
        super().__init__(nodes, busy, horizon_start, math.inf)
        self.node_mw = np.asarray(limit.node_mw, dtype=np.int64)
        self.plan = PowerPlan(limit, horizon_start)

    def draw_mw(self, nodes: Iterable[int]) -> int:
        """What a window on ``nodes`` draws (milliwatts)."""
        return int(self.node_mw[list(nodes)].sum())

    def fits(self, window: Window) -> bool:
        """Whether the window's watts fit what the plan allows over its span."""
        return self.plan.fits(window.start, window.finish, self.draw_mw(window.nodes))

    def holds(self, window: Window) -> bool:
        """Its nodes free over its span and its watts within the cap."""
        return super().holds(window) and self.fits(window)

    def reserve(self, window: Window) -> None:
        if not self.fits(window):
            raise ValueError(f"window on nodes {window.nodes} at {window.start} exceeds the cap")
        super().reserve(window)
        self.plan.add(window.start, window.finish, self.draw_mw(window.nodes))

    def release_updating_table(self, intervals: Iterable[tuple[int, float, float]]) -> None:
        intervals = list(intervals)
        super().release_updating_table(intervals)
        for node, start, end in intervals:
            self.plan.add(start, end, int(self.node_mw[node]), sign=-1)

    def forget_before(self, time: float) -> None:
        super().forget_before(time)
        self.plan.forget_before(time)

    def next_change(self, time: float) -> float | None:
        """The first instant after ``time`` at which a node's free slot begins or the
        planned watts change (None: neither ever does)."""
        starts = self.slot_table().start
        k = int(np.searchsorted(starts, time, side="right"))
        candidates = [float(starts[k])] if k < len(starts) else []
        plan = self.plan.next_change(time)
        if plan is not None:
            candidates.append(plan)
        return min(candidates, default=None)


def least_draw_nodes(profile: CappedProfile, request: Request) -> list[int]:
    """The request's eligible nodes that draw least, ``n`` of them (ties: lower id), or fewer
    if fewer are eligible."""
    eligible = [
        node.id
        for node in profile.nodes
        if node.performance >= request.min_performance
        and (request.nodes_allowed is None or node.id in request.nodes_allowed)
    ]
    eligible.sort(key=lambda i: (int(profile.node_mw[i]), i))
    return eligible[: request.n]


def fits_lowest_cap(profile: CappedProfile, request: Request) -> bool:
    """Whether the request's least-drawing nodes fit the cap's lowest value (and its budget):
    else the job may never start (under a time-varying cap it would wait for ever), and it is
    rejected. Every job admitted thus has the last resort of :func:`capped_search`. A job
    with too few eligible nodes is not kept out by the cap (no window fits it anyway)."""
    nodes, _, cost = _least_draw(profile, request)
    if len(nodes) < request.n:
        return True
    return profile.draw_mw(nodes) <= profile.plan.lowest_mw and cost <= request.budget


def _least_draw(profile: CappedProfile, request: Request) -> tuple[list[int], float, float]:
    """The request's least-drawing eligible nodes (sorted), their runtime and cost."""
    nodes = sorted(least_draw_nodes(profile, request))
    if not nodes:
        return nodes, 0.0, 0.0
    runtime = float(request.runtime_on(min(profile.nodes[i].performance for i in nodes)))
    extra = request.resource_price or (0.0,) * len(profile.nodes)
    return nodes, runtime, runtime * sum(profile.nodes[i].price + extra[i] for i in nodes)


def capped_search(
    criterion, profile: CappedProfile, request: Request, before: float = math.inf
) -> Window | None:
    """The criterion's window for ``request`` under the cap (the rule of the module
    docstring); None if the criterion finds none, or the last resort breaks the budget.

    ``before``: a planner that keeps a job's window unless the new one starts no later than
    ``before`` stops the search (None) as soon as it could only give a later start."""
    earliest = request.earliest_start
    least = profile.draw_mw(least_draw_nodes(profile, request)) if before < math.inf else 0
    while earliest <= before:
        if profile.plan.most_free(earliest, before) < least:
            return None  # no window starting by ``before`` can fit, whatever its nodes
        window = criterion.search(profile, replace(request, earliest_start=earliest))
        if window is None or window.start > before:
            return None
        if profile.fits(window):
            return window
        later = profile.next_change(window.start)
        if later is None:
            return _least_draw_window(profile, request, window.start)
        earliest = later
    return None


def _least_draw_window(profile: CappedProfile, request: Request, start: float) -> Window | None:
    """The window of the least-drawing eligible nodes at ``start`` (every node is free from
    then on), if the plan and the budget allow it."""
    nodes, runtime, cost = _least_draw(profile, request)
    if len(nodes) < request.n or cost > request.budget:
        return None
    if not profile.plan.fits(start, start + runtime, profile.draw_mw(nodes)):
        return None
    slots = tuple(profile.enclosing_slot(i, start, start + runtime) for i in nodes)
    return Window(start=start, runtime=runtime, nodes=tuple(nodes), slots=slots, cost=cost)
