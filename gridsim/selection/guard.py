"""Guard rails around a plugin criterion: every window it returns is checked before use.

Consumes a plugin criterion (anything with ``search(profile, request)``) and the profile and
request of each search; produces the same window, or stops the run with a
:class:`~gridsim.plugins.PluginError` naming the plugin, the request and what is wrong. A
built-in criterion is trusted (its windows are feasible by construction and tested); a
plugin's are not, and a window that overlaps a reservation, starts before the job may start or
breaks the budget would otherwise corrupt the profile or the results silently.

Cost per search: O(n log k) for a window of ``n`` nodes whose nodes hold ``k`` free
intervals each, next to the search itself (benchmarks/bench_plugins.py measures it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gridsim.model import Node, Request, Window
from gridsim.plugins import PluginError, one_line
from gridsim.profile import Profile

#: Relative slack on times and money (float dust of sums taken in another order).
RELATIVE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class GuardedCriterion:
    """A plugin criterion whose windows and exceptions are checked (see module docstring).

    Attributes:
        inner: the plugin's criterion object.
        name: the name it has in result tables.
        label: the name with non-default parameters.
        origin: what the scenario wrote (``package.module:Class`` or an entry point's name).
    """

    inner: Any
    name: str
    label: str
    origin: str

    def search(self, profile: Profile, request: Request) -> Window | None:
        try:
            window = self.inner.search(profile, request)
        except Exception as error:
            raise _failure(
                f"policy {self.origin} raised {one_line(error)} {_describe(request)}", request
            ) from error
        if window is None:
            return None
        problem = window_problem(window, profile, request)
        if problem is not None:
            raise _failure(
                f"policy {self.origin} returned an infeasible window {_describe(request)}: "
                f"{problem}",
                request,
            )
        return window

    def score(self, window: Window, nodes: Sequence[Node]) -> float:
        try:
            return float(self.inner.score(window, nodes))
        except Exception as error:
            raise PluginError(f"policy {self.origin}: score raised {one_line(error)}") from error

    def __getattr__(self, attribute: str) -> Any:
        # Parameters and class attributes of the plugin (e.g. ``runtime_factor``) stay
        # readable; ``inner`` itself is looked up normally (and missing while unpickling).
        if attribute == "inner":
            raise AttributeError(attribute)
        return getattr(self.inner, attribute)


def window_problem(
    window: Any, profile: Profile, request: Request, check_slots: bool = True
) -> str | None:
    """What makes ``window`` infeasible for ``request`` in ``profile``, or None.

    A feasible window is a :class:`~gridsim.model.Window` of ``request.n`` distinct existing
    nodes, each at least ``min_performance`` fast and free over ``[start, finish)``, starting
    no earlier than ``earliest_start``, lasting at least ``volume / slowest performance``,
    costing what its nodes' prices say and no more than the budget, with each slot the free
    slot of its node that holds the task (unless ``check_slots`` is False: a planner's windows
    keep the slots of the profile they were searched in).
    """
    if not isinstance(window, Window):
        return f"expected a Window or None, got {type(window).__name__}"
    nodes, start, finish = window.nodes, window.start, window.finish
    if len(nodes) != request.n:
        return f"it has {len(nodes)} nodes, the request needs {request.n}"
    if len(set(nodes)) != len(nodes):
        twice = next(i for i in nodes if nodes.count(i) > 1)
        return f"node {twice} is used twice"
    unknown = [i for i in nodes if not 0 <= i < len(profile.nodes)]
    if unknown:
        return f"node {unknown[0]} does not exist (nodes are 0..{len(profile.nodes) - 1})"
    slack = RELATIVE_TOLERANCE * max(1.0, abs(start), abs(finish))
    if start < request.earliest_start - slack:
        return f"it starts at {start:.9g}, before the earliest start {request.earliest_start:.9g}"
    members = [profile.nodes[i] for i in nodes]
    slow = min(members, key=lambda node: node.performance)
    if slow.performance < request.min_performance:
        return (
            f"node {slow.id} has performance {slow.performance:.6g}, "
            f"below the minimum {request.min_performance:.6g}"
        )
    needed = float(request.runtime_on(slow.performance))
    if window.runtime < needed * (1 - RELATIVE_TOLERANCE):
        return (
            f"its runtime {window.runtime:.9g} is shorter than the volume needs on its "
            f"slowest node {slow.id} ({needed:.9g})"
        )
    extra = request.resource_price or (0.0,) * len(profile.nodes)
    cost = sum(window.runtime * (node.price + extra[node.id]) for node in members)
    if abs(window.cost - cost) > RELATIVE_TOLERANCE * max(1.0, cost):
        return f"it reports cost {window.cost:.9g}, its nodes' prices give {cost:.9g}"
    if cost > request.budget * (1 + RELATIVE_TOLERANCE):
        return f"it costs {cost:.9g}, over the budget {request.budget:.9g}"
    if not check_slots:
        for i in nodes:
            if not profile.is_free(i, start + slack, finish - slack):
                return f"node {i} is not free over [{start:.9g}, {finish:.9g})"
        return None
    if len(window.slots) != len(nodes) or {slot.node for slot in window.slots} != set(nodes):
        return f"its slots {window.slots} do not match its nodes {nodes}"
    for slot in window.slots:
        try:
            free = profile.enclosing_slot(slot.node, start + slack, finish - slack)
        except ValueError:
            return f"node {slot.node} is not free over [{start:.9g}, {finish:.9g})"
        if abs(slot.start - free.start) > slack or abs(slot.end - free.end) > slack:
            return (
                f"its slot of node {slot.node} is [{slot.start:.9g}, {slot.end:.9g}), the free "
                f"slot holding the task is [{free.start:.9g}, {free.end:.9g})"
            )
    return None


def _failure(message: str, request: Request) -> PluginError:
    """A PluginError that carries the request (a scheduler's guard names the job from it)."""
    error = PluginError(message)
    error.request = request  # type: ignore[attr-defined]
    return error


def _describe(request: Request) -> str:
    return f"for a request of {request.n} nodes from time {request.earliest_start:.9g}"
