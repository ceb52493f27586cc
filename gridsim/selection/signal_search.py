"""The exact window search when a window's worth changes with its start: electricity price,
energy and carbon over time.

Consumes the candidate slots of a request (:class:`~gridsim.selection.candidates.Candidates`),
an :class:`~gridsim.energy.model.EnergyModel` and what to minimise: ``cost`` (money: the
nodes' static price x runtime plus busy watts x the integral of the electricity price),
``energy`` (kWh) or ``carbon`` (kg); produces the best window within the request's budget.

A window starts at a slot start, as in [TY18], or at any time up to ``slack`` after the
request's earliest start (a delay-tolerant job waiting for a cheaper or cleaner hour).

Why it is exact. A square window of slowest performance ``p`` lasts ``T = V / p``. For a
fixed start ``s`` every slot's contribution is a fixed number, so the best window at ``s`` is
a count-constrained choice: the ``n`` smallest (one at least of performance ``p``) without a
budget, the exact subset programme of :mod:`~gridsim.selection.subset` with one. As ``s``
moves, the slots that can hold ``[s, s + T]`` change only at slot starts and at ``end - T``;
between those, each slot's contribution is linear in ``s`` except where ``s`` or ``s + T``
crosses a signal breakpoint. On each piece the best window's value is a minimum of linear
functions (concave), so its minimum lies at a piece's end: the candidate starts are the slot
starts and, within ``slack`` of the request's earliest start, that interval's ends, the slot
starts and ends minus ``T``, and each signal breakpoint ``b`` and ``b - T``.

Ties (values within :data:`~gridsim.selection.ties.TIE_TOLERANCE`): the earlier start, then
the shorter runtime; at one start, equal contributions go to the slot listed first. Cost:
O(levels x starts x m log m) without a budget; with one, the subset programme per (start,
slowest slot).
"""

from __future__ import annotations

import math

import numpy as np

from gridsim.energy.model import EnergyModel
from gridsim.model import Request, Slot, Window
from gridsim.selection.candidates import Candidates
from gridsim.selection.subset import best_subset
from gridsim.selection.ties import ordered_sum, tie_floor


def slot_quantities(
    slots: Candidates, model: EnergyModel, quantity: str, start: np.ndarray, runtime: float
) -> tuple[np.ndarray, np.ndarray]:
    """(starts x slots) what each slot's task adds to ``quantity`` and to the money cost."""
    nodes = np.broadcast_to(slots.node, (len(start), len(slots)))
    begin = np.broadcast_to(np.asarray(start, float)[:, None], nodes.shape)
    watts = model.busy_watts[nodes]
    money = runtime * slots.price[None, :] + model.weighted(
        "price", nodes.ravel(), begin.ravel(), begin.ravel() + runtime, watts.ravel()
    ).reshape(nodes.shape)
    if quantity == "cost":
        return money, money
    if quantity == "energy":
        return np.broadcast_to(model.busy_kwh(slots.node, 0.0, runtime), nodes.shape), money
    carbon = model.weighted("carbon", nodes.ravel(), begin.ravel(), begin.ravel() + runtime,
                            watts.ravel())  # fmt: skip
    return carbon.reshape(nodes.shape), money


def candidate_starts(
    slots: Candidates, model: EnergyModel, request: Request, runtime: float, slack: float
) -> np.ndarray:
    """The starts at which the best window of runtime ``runtime`` may begin: every slot start
    (as [TY18]) and, in ``[earliest, earliest + slack]``, both ends of that interval, each slot
    end minus ``runtime`` and each signal breakpoint ``b`` and ``b - runtime`` (module doc)."""
    if slack <= 0:
        return np.unique(slots.start)
    first, last = request.earliest_start, request.earliest_start + slack
    inside = [np.array([first, last]), slots.start, slots.end - runtime]
    for signal in (*model.price_signals, *model.carbon_signals):
        if not signal.is_constant:
            kinks = breakpoints(signal, first, last + runtime)
            inside += [kinks, kinks - runtime]
    shifted = np.concatenate(inside)
    return np.unique(np.concatenate((slots.start, shifted[(shifted >= first) & (shifted <= last)])))


def breakpoints(signal, first: float, last: float) -> np.ndarray:
    """The signal's breakpoints in ``[first, last]`` (every repeat of them)."""
    if not signal.repeat:
        return signal.times[(signal.times >= first) & (signal.times <= last)]
    period = signal.period
    cycles = np.arange(math.floor((first - signal.times[0]) / period),
                       math.floor((last - signal.times[0]) / period) + 1)  # fmt: skip
    every = (signal.times[:-1][None, :] + cycles[:, None] * period).ravel()
    return every[(every >= first) & (every <= last)]


def find_signal_window(
    slots: Candidates, request: Request, model: EnergyModel, quantity: str, slack: float = 0.0
) -> Window | None:
    """The window of least ``quantity`` within the budget (module doc); None if none fits."""
    n = request.n
    best: tuple | None = None  # (key of _better, start, runtime, chosen slots, money)
    for level in np.unique(slots.performance):
        runtime = float(request.runtime_on(level))
        able = slots.performance >= level
        starts = candidate_starts(slots, model, request, runtime, slack)
        starts = starts[starts >= request.earliest_start]
        if not len(starts):
            continue
        holds = able[None, :] & (slots.start[None, :] <= starts[:, None])
        holds &= slots.end[None, :] >= starts[:, None] + runtime
        rows = np.flatnonzero(
            (holds.sum(axis=1) >= n) & (holds & (slots.performance == level)).any(axis=1)
        )
        if not len(rows):
            continue
        value, money = slot_quantities(slots, model, quantity, starts[rows], runtime)
        for k, row in enumerate(rows):
            chosen = _best_at(holds[row], value[k], money[k], slots.performance == level, n,
                              request.budget)  # fmt: skip
            if chosen is None:
                continue
            total = float(ordered_sum(np.sort(value[k][chosen])))
            key = (-total, -starts[row], -runtime)
            if best is None or _better(key, best[0]):
                best = (
                    key,
                    float(starts[row]),
                    runtime,
                    chosen,
                    float(ordered_sum(money[k][chosen])),
                )
    if best is None:
        return None
    _, start, runtime, chosen, money = best
    order = np.argsort(slots.node[chosen], kind="stable")
    chosen = chosen[order]
    return Window(
        start=start,
        runtime=runtime,
        nodes=tuple(int(i) for i in slots.node[chosen]),
        slots=tuple(
            Slot(int(slots.node[i]), float(slots.slot_start[i]), float(slots.end[i]))
            for i in chosen
        ),
        cost=money,
        criterion_value=best[0][0],
    )


def _better(key: tuple, held: tuple) -> bool:
    """Whether a window of ``key`` (value, -start, -runtime) beats the one held (ties:
    earlier start, shorter runtime)."""
    if key[0] < tie_floor(held[0]):
        return False
    if held[0] < tie_floor(key[0]):
        return True
    return key[1:] > held[1:]


def _best_at(holds, value, money, at_level, n: int, budget: float) -> np.ndarray | None:
    """Slot indices of the ``n`` members of least total ``value`` with at least one of the
    level's performance, within ``budget`` (None: none fits)."""
    members = np.flatnonzero(holds)
    if math.isinf(budget):
        order = members[np.lexsort((members, value[members]))]
        chosen = order[:n]
        if not at_level[chosen].any():
            slowest = order[at_level[order]][0]
            chosen = np.append(chosen[: n - 1], slowest)
        return np.sort(chosen)
    best, best_total = None, math.inf
    for sigma in members[at_level[members]]:
        others = members[members != sigma]
        left = budget - money[sigma]
        if left < 0:
            continue
        picked = best_subset(-value[others], money[others], n - 1, left)
        if picked is None:
            continue
        chosen = np.sort(np.append(others[list(picked)], sigma))
        total = float(ordered_sum(np.sort(value[chosen])))
        if total < tie_floor(best_total):
            best, best_total = chosen, total
    return best
