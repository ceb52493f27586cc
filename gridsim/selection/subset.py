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

import bisect
from collections.abc import Sequence

import numpy as np

# A state: (cost, value, chosen) with ``chosen`` a linked list ``(index, rest)`` or ``None``.
_State = tuple[float, float, tuple | None]


def best_subset(
    values: Sequence[float] | np.ndarray,
    costs: Sequence[float] | np.ndarray,
    count: int,
    budget: float,
    floor: float = float("-inf"),
) -> tuple[int, ...] | None:
    """Indices of ``count`` items maximising ``sum(values)`` with ``sum(costs) <= budget``.

    Ties in value go to the cheaper subset; costs are added in index order, so the total the
    caller recomputes in that order is exactly the total checked against the budget.

    ``floor`` (branch and bound): only subsets worth more than ``floor`` are of interest, so
    partial subsets that cannot exceed it even with the best remaining items are dropped; the
    result is ``None`` when no subset exceeds it.
    """
    values = [float(v) for v in values]
    costs = [float(c) for c in costs]
    m = len(values)
    if count == 0:
        return () if budget >= 0 else None
    if count > m:
        return None
    # best_after[i][r]: the largest sum of r values among items i.. (for the floor test).
    best_after = _best_sums_after(values, count) if floor > float("-inf") else None
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
        if best_after is not None:
            rest = best_after[i + 1]
            for k in range(count):
                if fronts[k]:
                    need = floor - rest[count - k]
                    fronts[k] = [state for state in fronts[k] if state[1] > need]
    if not fronts[count] or fronts[count][-1][1] <= floor:
        return None
    _cost, _value, chosen = fronts[count][-1]
    indices = []
    while chosen is not None:
        index, chosen = chosen
        indices.append(index)
    return tuple(reversed(indices))


def _best_sums_after(values: list[float], count: int) -> list[list[float]]:
    """``table[i][r]``: the largest sum of ``r`` values among ``values[i:]`` (-inf if none)."""
    m = len(values)
    table = [[0.0] + [float("-inf")] * count for _ in range(m + 1)]
    top: list[float] = []  # the largest ``count`` values seen so far, descending
    for i in range(m - 1, -1, -1):
        bisect.insort(top, -values[i])
        del top[count:]
        running = 0.0
        row = table[i]
        for r, negative in enumerate(top, start=1):
            running -= negative
            row[r] = running
    return table


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
