"""The Lagrangian bounds of the exact subset allocation (gridsim.selection.exact).

Two properties, per row: the bound is never below the best ``count``-subset within the
budget (brute force), so pruning with it never loses the optimum; and it is exactly the
documented one -- the smallest of the unconstrained top-``count`` sum and
``lam * budget + top_count(values - lam * costs)`` over the 13 multipliers
``lam = s * 2**k``, ``k = -6..6``, with ``s`` the block's mean |value| over its mean cost.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from gridsim.selection.exact import lagrangian_bounds


def block(seed: int, cols: int | None = None):
    """Rows of ``cols`` columns (default 4 to 40; some not members: -inf), budgets finite,
    tight or infinite."""
    rng = np.random.default_rng(seed)
    rows, cols = 5, cols or int(rng.integers(4, 41))
    values = rng.uniform(-2, 10, size=(rows, cols)).round(2)
    values[rng.random((rows, cols)) < 0.2] = -np.inf
    costs = rng.uniform(0.5, 5, size=(rows, cols)).round(2)
    budget = rng.uniform(1, 12, size=rows).round(2)
    budget[rng.random(rows) < 0.25] = np.inf
    return values, costs, int(rng.integers(1, 4)), budget


def brute_force(values, costs, count, budget) -> float:
    best = -math.inf
    members = [j for j in range(len(values)) if np.isfinite(values[j])]
    for subset in itertools.combinations(members, count):
        if sum(costs[j] for j in subset) <= budget:
            best = max(best, sum(values[j] for j in subset))
    return best


def top(values, count) -> float:
    return sum(sorted(values, reverse=True)[:count])


def documented(values, costs, count, budget) -> list[float]:
    finite = np.isfinite(values)
    scale = np.abs(values[finite]).mean() / max(costs[finite].mean(), 1e-12)
    multipliers = [max(scale, 1e-12) * 2.0**k for k in range(-6, 7)]
    bounds = []
    for row in range(len(values)):
        free = top(values[row], count)
        if math.isinf(budget[row]):
            bounds.append(free)
            continue
        relaxed = [lam * budget[row] + top(values[row] - lam * costs[row], count)
                   for lam in multipliers]  # fmt: skip
        bounds.append(min(free, *relaxed))
    return bounds


@pytest.mark.parametrize("seed", range(40))
def test_bounds_are_the_documented_ones(seed):
    values, costs, count, budget = block(seed)
    bounds = lagrangian_bounds(values.copy(), costs, count, budget)
    assert bounds.tolist() == pytest.approx(documented(values, costs, count, budget), rel=1e-12)


#: Blocks drawn as above, then changed: slots costing under 1 a unit, values small against
#: costs (scale ``s`` below 1), values far from 0 with the same spread (the best multiplier
#: is then small against ``s``, near the grid's lower end).
VARIANTS = {
    "cheap slots": lambda values, costs, budget: (values, costs / 100, budget / 100),
    "small values": lambda values, costs, budget: (values / 100, costs, budget),
    "values near 100": lambda values, costs, budget: (values + 100, costs, budget),
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(10))
def test_bounds_are_the_documented_ones_at_other_scales(variant, seed):
    values, costs, count, budget = block(seed)
    values, costs, budget = VARIANTS[variant](values, costs, budget)
    bounds = lagrangian_bounds(values.copy(), costs, count, budget)
    assert bounds.tolist() == pytest.approx(documented(values, costs, count, budget), rel=1e-12)


def test_rows_without_members_are_bounded_by_minus_infinity():
    values = np.full((2, 3), -np.inf)
    bounds = lagrangian_bounds(values, np.ones((2, 3)), 1, np.array([1.0, np.inf]))
    assert bounds.tolist() == [-np.inf, -np.inf]


@pytest.mark.parametrize("seed", range(30))
def test_bounds_are_never_below_the_best_subset_within_the_budget(seed):
    values, costs, count, budget = block(seed, cols=7)
    bounds = lagrangian_bounds(values.copy(), costs, count, budget)
    for row in range(len(values)):
        assert bounds[row] >= brute_force(values[row], costs[row], count, budget[row]) - 1e-9


def test_a_binding_budget_gives_a_bound_below_the_unconstrained_sum():
    values = np.array([[10.0, 9.0, 1.0, 1.0]])
    costs = np.array([[10.0, 10.0, 1.0, 1.0]])
    (bound,) = lagrangian_bounds(values.copy(), costs, 2, np.array([2.0]))
    assert brute_force(values[0], costs[0], 2, 2.0) == 2.0
    assert 2.0 <= bound < top(values[0], 2) == 19.0
