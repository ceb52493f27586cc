"""Slot subset allocation [TY18, Sec. 3.3, eq. 2]: choose exactly ``count`` of ``m`` slots.

Consumes per-slot values ``z_i`` and costs ``c_i`` (real numbers) with a count and a budget;
produces the indices of the chosen slots, or ``None`` when no subset fits the budget.

The paper's recurrence ``f_i(C_j, n_k)`` runs over integer budgets ``C_j = 1..C``. Costs here are
real, so instead of rounding them onto a grid the same recurrence is run over the *exact*
reachable budgets: for each count ``k`` the table keeps only the Pareto-optimal pairs
(cost, value) -- a pair is dropped when another reaches at least its value for at most its cost.
Any cell ``f_i(C_j, k)`` of the paper's table is the best value among the kept pairs with cost
``<= C_j``, so the optimum is the same, with no discretisation error and no grid parameter.
Cost: O(m * count * F) where F is the size of the Pareto front (small for random slots; at most
the number of subsets).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# A state: (cost, value, chosen) with ``chosen`` a linked list ``(index, rest)`` or ``None``.
_State = tuple[float, float, tuple | None]


def best_subset(
    values: Sequence[float] | np.ndarray,
    costs: Sequence[float] | np.ndarray,
    count: int,
    budget: float,
) -> tuple[int, ...] | None:
    """Indices of ``count`` items maximising ``sum(values)`` with ``sum(costs) <= budget``.

    Ties in value go to the cheaper subset; costs are added in index order, so the total the
    caller recomputes in that order is exactly the total checked against the budget.
    """
    values = [float(v) for v in values]
    costs = [float(c) for c in costs]
    m = len(values)
    if count == 0:
        return () if budget >= 0 else None
    if count > m:
        return None
    # fronts[k]: Pareto front for subsets of size k, sorted by cost with increasing value.
    fronts: list[list[_State]] = [[(0.0, 0.0, None)]] + [[] for _ in range(count)]
    for i in range(m):
        c_i, z_i = costs[i], values[i]
        # Items left after i must still be able to fill the subset: k >= count - (m - i - 1).
        lowest_k = max(1, count - (m - i - 1))
        for k in range(min(count, i + 1), lowest_k - 1, -1):
            below = fronts[k - 1]
            if not below:
                continue
            extended = [
                (cost + c_i, value + z_i, (i, chosen))
                for cost, value, chosen in below
                if cost + c_i <= budget
            ]
            if extended:
                fronts[k] = _merge_fronts(fronts[k], extended)
    if not fronts[count]:
        return None
    _cost, _value, chosen = fronts[count][-1]
    indices = []
    while chosen is not None:
        index, chosen = chosen
        indices.append(index)
    return tuple(reversed(indices))


def _merge_fronts(first: list[_State], second: list[_State]) -> list[_State]:
    """Pareto front (cost up, value strictly up) of the union of two fronts."""
    merged = sorted(first + second, key=lambda state: (state[0], -state[1]))
    front: list[_State] = []
    best_value = float("-inf")
    for state in merged:
        if state[1] > best_value:
            front.append(state)
            best_value = state[1]
    return front


def cheapest_subset(costs: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` cheapest items (ties to the lower index), in index order."""
    if count <= 0:
        return np.empty(0, dtype=np.int64)
    order = np.argsort(costs, kind="stable")[:count]
    return np.sort(order)
