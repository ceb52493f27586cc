"""General square window search [TY18, Sec. 3.2] with exact slot subset allocation.

Consumes a :class:`~gridsim.profile.SlotTable`, a :class:`~gridsim.model.Request` and a
criterion; produces the best :class:`~gridsim.model.Window`, or ``None`` when nothing fits.

The paper's procedure walks the performance groups from the fastest down and, inside a group,
the slots in start order, keeping a candidate list ``S_W`` of slots that can still hold a task
of length ``T = V / P_k`` from the current start; at every step it allocates the best subset of
``n`` slots of ``S_W`` and keeps the best window seen. This module computes the same maximum
with the same candidate starts (the starts of the group's slots), reorganised for speed:

* A window whose slowest node has performance ``P_k`` must contain a slot of such a node. So
  every window is met exactly once as "slot ``sigma`` is the slowest task": ``sigma`` fixes the
  group and ``T``; the steps are the starts of group slots while ``sigma`` is in ``S_W``; the
  other ``n - 1`` tasks come from the candidates of that step. This makes the runtime of every
  window exactly ``V / min p`` (the paper's rule 3(c)v.A skips steps without such a slot).
* Each ``sigma`` gets an optimistic bound of the best window it can give; they are visited
  best bound first and the search stops when no bound can beat the best window found
  (branch and bound: exact, and most ``sigma`` are never evaluated).
* The steps of one ``sigma`` are evaluated together as a NumPy matrix (steps x candidates);
  the exact subset programme (:func:`~gridsim.selection.subset.best_subset`) runs only for
  steps whose bound still beats the best window and whose unconstrained best subset breaks
  the budget.

Ties are broken as the paper's scan meets windows: higher criterion value, then (for criteria
that say so) a secondary value, then the faster group, then the earlier start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gridsim.model import Request, Slot, Window
from gridsim.profile import SlotTable
from gridsim.selection.subset import best_subset

if TYPE_CHECKING:
    from gridsim.selection.criteria import Criterion

_NEG = -np.inf


@dataclass(frozen=True)
class Candidates:
    """The slots eligible for one request, re-sorted by their effective start."""

    node: np.ndarray
    slot_start: np.ndarray  # the free interval's own start (for L_left)
    start: np.ndarray  # max(slot_start, request.earliest_start)
    end: np.ndarray
    performance: np.ndarray
    price: np.ndarray
    q: np.ndarray

    @classmethod
    def from_table(cls, table: SlotTable, request: Request) -> Candidates:
        start = np.maximum(table.start, request.earliest_start)
        keep = (table.performance >= request.min_performance) & (table.end > start)
        order = np.lexsort((table.node[keep], start[keep]))
        return cls(
            node=table.node[keep][order],
            slot_start=table.start[keep][order],
            start=start[keep][order],
            end=table.end[keep][order],
            performance=table.performance[keep][order],
            price=table.price[keep][order],
            q=table.q[keep][order],
        )

    def __len__(self) -> int:
        return len(self.start)


@dataclass(frozen=True)
class _Choice:
    """The best window of one ``sigma``: enough to build the Window at the end."""

    key: tuple[float, float, float, float]
    sigma: int
    start: float
    runtime: float
    others: tuple[int, ...]


def find_window(table: SlotTable, request: Request, criterion: Criterion) -> Window | None:
    """The best window for ``request`` under ``criterion`` (see module docstring)."""
    slots = Candidates.from_table(table, request)
    if request.n < 1 or len(slots) < request.n:
        return None
    runtime = request.volume / slots.performance
    sigmas = np.flatnonzero(slots.end - slots.start >= runtime * (1 - 1e-12))
    if len(sigmas) == 0:
        return None
    bounds = criterion.sigma_bounds(slots, sigmas, runtime[sigmas], request)
    # Visit the most promising sigma first: bound, then faster group, then earlier start.
    order = np.lexsort((slots.start[sigmas], -slots.performance[sigmas], -bounds))
    best: _Choice | None = None
    secondary_bound = criterion.secondary_bound
    for position in order:
        sigma = int(sigmas[position])
        bound_key = (
            float(bounds[position]),
            secondary_bound,
            float(slots.performance[sigma]),
            -float(slots.start[sigma]),
        )
        if best is not None and bound_key <= best.key:
            break
        choice = _evaluate_sigma(slots, sigma, float(runtime[sigma]), request, criterion, best)
        if choice is not None and (best is None or choice.key > best.key):
            best = choice
    return None if best is None else _build_window(slots, best, request)


def _evaluate_sigma(
    slots: Candidates,
    sigma: int,
    runtime: float,
    request: Request,
    criterion: Criterion,
    incumbent: _Choice | None,
) -> _Choice | None:
    """Best window in which slot ``sigma`` is the slowest task, or None."""
    perf = slots.performance[sigma]
    latest_start = slots.end[sigma] - runtime
    last = int(np.searchsorted(slots.start, latest_start, side="right"))
    step_index = np.arange(sigma, last)
    step_index = step_index[slots.performance[step_index] >= perf]
    if len(step_index) == 0:
        return None
    step_start = slots.start[step_index]
    # Candidate columns: group members seen by the last step, long enough for the first one.
    columns = np.arange(step_index[-1] + 1)
    columns = columns[
        (slots.performance[columns] >= perf)
        & (slots.end[columns] >= step_start[0] + runtime)
        & (columns != sigma)
    ]
    others_needed = request.n - 1
    if len(columns) < others_needed:
        return None
    member = (columns[None, :] <= step_index[:, None]) & (
        slots.end[columns][None, :] >= (step_start + runtime)[:, None] * (1 - 1e-15)
    )
    enough = member.sum(axis=1) >= others_needed
    if not enough.any():
        return None
    step_index, step_start, member = step_index[enough], step_start[enough], member[enough]
    column_cost = runtime * slots.price[columns]
    budget_left = request.budget - runtime * slots.price[sigma]
    return criterion.choose(
        _Step(slots, sigma, runtime, step_start, columns, member, column_cost, budget_left),
        others_needed,
        incumbent,
    )


@dataclass(frozen=True)
class _Step:
    """All steps of one ``sigma``: rows are candidate starts, columns candidate slots."""

    slots: Candidates
    sigma: int
    runtime: float
    start: np.ndarray  # (rows,)
    columns: np.ndarray  # (cols,) indices into slots
    member: np.ndarray  # (rows, cols) bool: column is in S_W at this step
    column_cost: np.ndarray  # (cols,)
    budget_left: float  # budget once sigma is paid for

    def key(self, value: float, secondary: float, start: float) -> tuple[float, ...]:
        return (value, secondary, float(self.slots.performance[self.sigma]), -start)

    def cheapest(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per row: the ``count`` cheapest member columns, their cost and affordability."""
        costs = np.where(self.member, self.column_cost[None, :], np.inf)
        if count == 0:
            picks = np.empty((len(self.start), 0), dtype=np.int64)
        else:
            picks = np.argpartition(costs, count - 1, axis=1)[:, :count]
        total = np.take_along_axis(costs, picks, axis=1).sum(axis=1)
        return picks, total, total <= self.budget_left

    def choice(self, row: int, value: float, secondary: float, picks) -> _Choice:
        others = tuple(sorted(int(self.columns[p]) for p in picks))
        start = float(self.start[row])
        return _Choice(self.key(value, secondary, start), self.sigma, start, self.runtime, others)


def choose_cheapest(
    step: _Step, count: int, score_rows, secondary_rows=None
) -> _Choice | None:
    """Take the cheapest affordable subset at every step; keep the row with the best key.

    ``score_rows(step, picks)`` gives each row's window value for its cheapest picks.
    """
    picks, total, affordable = step.cheapest(count)
    if not affordable.any():
        return None
    score = np.where(affordable, score_rows(step, picks, total), _NEG)
    secondary = np.zeros_like(score) if secondary_rows is None else secondary_rows(total)
    # Best value, then secondary, then earliest start (rows are in start order).
    row = int(np.lexsort((np.arange(len(score)), -secondary, -score))[0])
    return step.choice(row, float(score[row]), float(secondary[row]), picks[row])


def choose_optimal(step: _Step, count: int, values, sigma_values, incumbent) -> _Choice | None:
    """Exact subset allocation at every step whose bound can still beat ``incumbent``.

    ``values`` is a (rows, cols) array of the columns' ``z`` at each step and
    ``sigma_values`` the (rows,) ``z`` of sigma itself. Rows are visited by their Lagrangian
    bound (:func:`lagrangian_bounds`); the subset programme runs only when the best
    ``count`` columns by value break the budget.
    """
    if step.budget_left < 0:
        return None
    masked = np.where(step.member, values, _NEG)
    if count:
        top = np.argpartition(-masked, count - 1, axis=1)[:, :count]
        top_cost = step.column_cost[top].sum(axis=1)
        bound = sigma_values + lagrangian_bounds(
            masked, step.column_cost, count, step.budget_left
        )
    else:
        top = np.empty((len(step.start), 0), dtype=np.int64)
        bound = sigma_values.copy()
        top_cost = np.zeros(len(step.start))
    best = incumbent
    for row in np.lexsort((np.arange(len(bound)), -bound)):
        row = int(row)
        start = float(step.start[row])
        if not np.isfinite(bound[row]):
            break
        if best is not None and step.key(float(bound[row]) + 1e-9, 0.0, start) <= best.key:
            break
        if top_cost[row] <= step.budget_left:
            picks = top[row]
        else:
            members = np.flatnonzero(step.member[row])
            chosen = best_subset(
                values[row, members], step.column_cost[members], count, step.budget_left
            )
            if chosen is None:
                continue
            picks = members[list(chosen)]
        value = float(sigma_values[row] + values[row, picks].sum())
        choice = step.choice(row, value, 0.0, picks)
        if best is None or choice.key > best.key:
            best = choice
    return best if best is not incumbent else None


def lagrangian_bounds(values: np.ndarray, costs: np.ndarray, count: int, budget: float):
    """Upper bounds, per row, of the best ``count``-subset value within ``budget``.

    For any multiplier ``lam >= 0``, ``lam * budget + top_count(values - lam * costs)`` bounds
    the constrained optimum (relaxing the budget into the objective); the smallest over a
    geometric grid of multipliers is kept. ``values`` is (rows, cols) with ``-inf`` for
    non-members; ``costs`` is (cols,).
    """
    if not np.isfinite(budget):  # no budget: the unconstrained top ``count`` is the optimum
        return -np.partition(-values, count - 1, axis=1)[:, :count].sum(axis=1)
    finite = np.isfinite(values)
    scale = np.abs(values[finite]).mean() / max(costs.mean(), 1e-12) if finite.any() else 1.0
    multipliers = np.concatenate(([0.0], max(scale, 1e-12) * 2.0 ** np.arange(-6, 7)))
    adjusted = values[:, None, :] - multipliers[None, :, None] * costs[None, None, :]
    top = -np.partition(-adjusted, count - 1, axis=2)[:, :, :count]
    return (multipliers[None, :] * budget + top.sum(axis=2)).min(axis=1)


def _build_window(slots: Candidates, choice: _Choice, request: Request) -> Window:
    chosen = sorted((choice.sigma, *choice.others), key=lambda i: int(slots.node[i]))
    cost_sigma = choice.runtime * slots.price[choice.sigma]
    cost = float(cost_sigma + sum(choice.runtime * slots.price[i] for i in choice.others))
    return Window(
        start=choice.start,
        runtime=choice.runtime,
        nodes=tuple(int(slots.node[i]) for i in chosen),
        slots=tuple(
            Slot(int(slots.node[i]), float(slots.slot_start[i]), float(slots.end[i]))
            for i in chosen
        ),
        cost=cost,
        criterion_value=choice.key[0],
    )
