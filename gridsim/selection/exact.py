"""Exact subset allocation at the steps of the window search [TY18, Sec. 3.3, eq. 2].

Consumes the steps of a batch of sigmas (:class:`~gridsim.selection.steps._Step`) with each
column's value ``z`` at each step; produces the best window among them that can still beat the
best one found so far, solving the subset programme only where bounds cannot rule a step out.
"""

from __future__ import annotations

import math

import numpy as np

from gridsim.selection.steps import _NEG, _Choice, _Step
from gridsim.selection.subset import best_subset

#: Rows whose Lagrangian bound is computed together (amortises NumPy call overhead).
_LAGRANGE_BLOCK = 32


def _margin(value: float) -> float:
    """How far below ``value`` a bound still counts as reaching it: bounds and values add the
    same terms in other orders, so they may differ by rounding. Relative to ``value`` (as in
    the criteria's pruning), since an absolute margin vanishes in the rounding of large values
    (above about 3e7 for 1e-9) and a window tying the best one would then be pruned before
    its tie-break is compared."""
    return 1e-9 * (abs(value) + 1.0) if math.isfinite(value) else 1e-9


def choose_optimal(step: _Step, count: int, values, sigma_values, incumbent) -> _Choice | None:
    """Exact subset allocation at every step whose bound can still beat ``incumbent``.

    ``values`` is a (rows, cols) array of the columns' ``z`` at each step and
    ``sigma_values`` the (rows,) ``z`` of sigma itself. Rows are visited by their
    budget-free bound; a row whose best ``count`` columns fit the budget is solved by them;
    otherwise its Lagrangian bound (:func:`lagrangian_bounds`) is tried before the subset
    programme, which itself prunes against the incumbent.
    """
    rows = len(step.start)
    masked = np.where(step.member, values, _NEG)
    row_index = np.arange(rows)[:, None]  # plain indexing: take_along_axis costs more here
    if count:
        top = np.argpartition(-masked, count - 1, axis=1)[:, :count]
        # Without a budget the best columns always fit: their cost is not needed.
        top_cost = np.zeros(rows)
        if np.isfinite(step.budget_left).any():
            top_cost = step.cost[row_index, top].sum(axis=1)
        bound = sigma_values + masked[row_index, top].sum(axis=1)
    else:
        top = np.empty((rows, 0), dtype=np.int64)
        bound = sigma_values.copy()
        top_cost = np.zeros(rows)
    bound = np.where(step.budget_left >= 0, bound, _NEG)
    if rows and count and not np.isfinite(step.budget_left).any() and np.isfinite(bound).all():
        return _best_unlimited(step, top, bound, incumbent)
    best = incumbent
    margin = 0.0 if best is None else _margin(best.key[0])
    order = np.lexsort((np.arange(rows), -bound))
    relaxed = np.full(rows, np.nan)  # Lagrangian bounds, computed a block of rows at a time
    # The loop reads Python floats: many rows often tie with the best (symmetric nodes) and
    # are tested one by one, so NumPy's cost per scalar access would dominate. A row solved
    # by its best columns has exactly the value the per-row sum gives (the same additions).
    top_value = (sigma_values + values[row_index, top].sum(axis=1)).tolist()
    top_fits = (top_cost <= step.budget_left).tolist()
    bounds = bound.tolist()
    performance = step.slots.performance[step.sigma].tolist()
    negative_start = (-step.start).tolist()
    for position, row in enumerate(order.tolist()):
        row_bound = bounds[row]
        if not math.isfinite(row_bound):
            break
        if best is not None:
            if row_bound + margin < best.key[0]:
                break  # rows are in bound order: none of the rest can reach the best
            if (row_bound + margin, 0.0, performance[row], negative_start[row]) <= best.key:
                continue  # equal bound: a later row may still win the tie-break
        if top_fits[row]:
            picks, value = top[row], top_value[row]
        else:
            members = np.flatnonzero(step.member[row])
            row_values, row_costs = values[row, members], step.cost[row, members]
            floor = -np.inf if best is None else best.key[0] - float(sigma_values[row]) - margin
            if best is not None:
                if np.isnan(relaxed[row]):
                    block = order[position : position + _LAGRANGE_BLOCK]
                    relaxed[block] = lagrangian_bounds(
                        masked[block], step.cost[block], count, step.budget_left[block]
                    )
                if relaxed[row] <= floor:
                    continue
            chosen = best_subset(row_values, row_costs, count, step.budget_left[row], floor)
            if chosen is None:
                continue
            picks = members[list(chosen)]
            value = float(sigma_values[row] + values[row, picks].sum())
        if best is None or (value, 0.0, performance[row], negative_start[row]) > best.key:
            best = step.choice(row, value, 0.0, step.columns[picks])  # ties keep the first
            margin = _margin(value)
    return best if best is not incumbent else None


def _best_unlimited(step: _Step, top, value, incumbent) -> _Choice | None:
    """The loop of :func:`choose_optimal` when no row has a budget: every row is solved by
    its best columns ``top``, so its value is its bound (``value``, all finite), and the loop
    keeps the row with the largest key (value, performance, earlier start), the first in
    row order among equal keys (rows of equal value are visited in row order), if it beats
    ``incumbent``. Taken here in a few NumPy calls instead of one Python step per row."""
    tied = np.flatnonzero(value == value.max())
    if len(tied) > 1:
        performance = step.slots.performance[step.sigma[tied]]
        tied = tied[performance == performance.max()]
    if len(tied) > 1:
        start = step.start[tied]
        tied = tied[start == start.min()]
    row = int(tied[0])
    key = step.key(row, float(value[row]), 0.0)
    if incumbent is not None and not key > incumbent.key:
        return None
    return step.choice(row, float(value[row]), 0.0, step.columns[top[row]])


def lagrangian_bounds(
    values: np.ndarray, costs: np.ndarray, count: int, budget: np.ndarray
) -> np.ndarray:
    """Upper bounds, per row, of the best ``count``-subset value within the row's budget.

    For any multiplier ``lam >= 0``, ``lam * budget + top_count(values - lam * costs)`` bounds
    the constrained optimum (relaxing the budget into the objective); the smallest over a
    geometric grid of multipliers is kept. ``values`` and ``costs`` are (rows, cols), with
    ``-inf`` values for non-members; ``budget`` is (rows,).
    """
    budget = np.asarray(budget, dtype=float)
    negated = -values
    negated.partition(count - 1, axis=1)  # in place: the same as np.partition, without a copy
    unconstrained = (-negated[:, :count]).sum(axis=1)
    finite_budget = np.isfinite(budget)
    if not finite_budget.any():
        return unconstrained
    finite = np.isfinite(values)
    scale = 1.0
    if finite.any():
        scale = np.abs(values[finite]).mean() / max(costs[finite].mean(), 1e-12)
    multipliers = max(scale, 1e-12) * 2.0 ** np.arange(-6, 7)
    adjusted = values[:, None, :] - multipliers[None, :, None] * costs[:, None, :]
    adjusted = -adjusted
    adjusted.partition(count - 1, axis=2)
    top = -adjusted[:, :, :count]
    relaxed = multipliers[None, :] * np.where(finite_budget, budget, 0.0)[:, None] + top.sum(axis=2)
    return np.where(finite_budget, np.minimum(unconstrained, relaxed.min(axis=1)), unconstrained)
