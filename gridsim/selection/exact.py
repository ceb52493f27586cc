"""Exact subset allocation at the steps of the window search [TY18, Sec. 3.3, eq. 2].

Consumes the steps of a batch of sigmas (:class:`~gridsim.selection.steps.Step`) with each
column's value ``z`` at each step; offers their windows to the tie rule
(:class:`~gridsim.selection.ties.Contenders`), solving the subset programme only where bounds
cannot rule a step out.
"""

from __future__ import annotations

import math

import numpy as np

from gridsim.selection.steps import NEG_INF, Step
from gridsim.selection.subset import best_subset
from gridsim.selection.ties import Contenders, ordered_sum, window_value, with_slack

#: Rows whose Lagrangian bound is computed together (amortises NumPy call overhead).
_LAGRANGE_BLOCK = 32


def _margin(value: float) -> float:
    """How far below ``value`` a Lagrangian bound, or a subset's value inside the subset
    programme, still counts as reaching it: they add the same terms in other orders, so they
    may differ by rounding. Relative to ``value``, as the criteria's pruning."""
    return 1e-9 * (abs(value) + 1.0) if math.isfinite(value) else 1e-9


def top_columns(values: np.ndarray, count: int) -> np.ndarray:
    """Per row, the ``count`` columns of the largest values, in column order; among equal
    values the lower columns (the cheaper slots: columns are in price order), so that the
    choice is the same whichever order a partition leaves equal values in."""
    rows = len(values)
    kth = -np.partition(-values, count - 1, axis=1)[:, count - 1 : count]
    above = values > kth
    tied = values == kth
    wanted = count - above.sum(axis=1, keepdims=True)
    take = above | (tied & (np.cumsum(tied, axis=1) <= wanted))
    return np.nonzero(take)[1].reshape(rows, count)


def choose_optimal(step: Step, count: int, values, sigma_values, contenders: Contenders) -> None:
    """Exact subset allocation at every step that the tie rule may still choose; the rows'
    windows are offered to ``contenders``.

    ``values`` is a (rows, cols) array of the columns' ``z`` at each step and
    ``sigma_values`` the (rows,) ``z`` of sigma itself. A row's window is sigma and the
    ``count`` members of the largest sum of ``z`` within the budget (ties: the cheaper
    members), worth :func:`~gridsim.selection.ties.window_value`. Rows are visited by their
    budget-free bound; a row whose best ``count`` columns fit the budget is solved by them;
    otherwise its Lagrangian bound (:func:`lagrangian_bounds`) is tried before the subset
    programme, which itself prunes against the tie floor of the best window found.
    """
    rows = len(step.start)
    masked = np.where(step.member, values, NEG_INF)
    budgeted = bool(np.isfinite(step.budget_left).any())
    top = None  # the best columns of every row, where a budget needs their cost
    if count:
        # The row's best value: its ``count`` largest member values, whichever columns hold
        # them (-inf where a row has fewer members).
        top_cost = np.zeros(rows)  # without a budget the best columns always fit
        if budgeted:
            top = top_columns(masked, count)
            row_index = np.arange(rows)[:, None]
            largest = masked[row_index, top]
            top_cost = ordered_sum(step.cost[row_index, top])
        else:
            largest = -np.partition(-masked, count - 1, axis=1)[:, :count]
        top_value = window_value(sigma_values, largest)
    else:
        top = np.empty((rows, 0), dtype=np.int64)
        top_value = sigma_values.copy()
        top_cost = np.zeros(rows)

    def best_columns(row: int) -> np.ndarray:
        if top is not None:
            return top[row]
        # The same columns as top_columns: a stable sort keeps equal values in column order.
        return np.sort(np.argsort(-masked[row], kind="stable")[:count])

    # A row's value is at most that of its best columns (and exactly that if they fit).
    bound = np.where(step.budget_left >= 0, top_value, NEG_INF)
    if rows and count and not budgeted and np.isfinite(bound).all():
        every = np.arange(rows)
        step.offer(
            contenders, every, bound, np.zeros(rows), lambda r: step.columns[best_columns(r)]
        )
        return
    order = np.lexsort((np.arange(rows), -bound))
    relaxed = np.full(rows, np.nan)  # Lagrangian bounds, computed a block of rows at a time
    # The loop reads Python floats: many rows often tie with the best (symmetric nodes) and
    # are tested one by one, so NumPy's cost per scalar access would dominate.
    top_fits = (top_cost <= step.budget_left).tolist()
    bounds = bound.tolist()
    performance = step.slots.performance[step.sigma].tolist()
    starts, step_slots, sigmas = step.start.tolist(), step.step.tolist(), step.sigma.tolist()
    for position, row in enumerate(order.tolist()):
        ceiling = with_slack(bounds[row])
        if not math.isfinite(ceiling) or ceiling < contenders.floor:
            break  # rows are in bound order: none of the rest can be tied with the best
        rank = (0.0, performance[row], -starts[row], -sigmas[row], -step_slots[row])
        if contenders.outranks(ceiling, rank):
            # A window tied with anything the row can give outranks it.
            record = (ceiling, 0.0, performance[row], starts[row], sigmas[row], step_slots[row])
            contenders.skip(ceiling, lambda record=record: record)
            continue
        if top_fits[row]:
            contenders.offer(step.choice(row, bounds[row], 0.0, step.columns[best_columns(row)]))
            continue
        members = np.flatnonzero(step.member[row])
        row_values, row_costs = values[row, members], step.cost[row, members]
        floor = contenders.floor
        if math.isfinite(floor):
            floor -= float(sigma_values[row]) + _margin(floor)
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
        value = float(window_value(sigma_values[row], values[row, picks]))
        contenders.offer(step.choice(row, value, 0.0, step.columns[picks]))


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
