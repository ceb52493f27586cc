"""Slot subset allocation [TY18, Sec. 3.3, eq. 2] against brute force and a MILP solver."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

from gridsim.selection.subset import _best_sums_after, _merge_fronts, best_subset


def brute_force_best_value(values, costs, count, budget):
    """The best ``sum(values)`` over all ``count``-subsets within budget, or None."""
    best = None
    for subset in itertools.combinations(range(len(values)), count):
        if sum(costs[i] for i in subset) <= budget:
            value = sum(values[i] for i in subset)
            if best is None or value > best:
                best = value
    return best


def random_instance(rng: np.random.Generator):
    """A small instance whose budget binds, is slack, or is out of reach."""
    m = int(rng.integers(0, 13))
    count = int(rng.integers(0, 6))
    values = rng.uniform(-5, 20, size=m).round(rng.integers(1, 6))
    costs = rng.uniform(0.1, 10, size=m).round(rng.integers(1, 6))
    sorted_costs = np.sort(costs)
    cheapest = float(sorted_costs[:count].sum())
    kind = rng.integers(0, 3)
    if kind == 0:  # binding: between the cheapest subset and the most expensive one
        dearest = float(sorted_costs[::-1][:count].sum())
        budget = float(rng.uniform(cheapest, max(dearest, cheapest)))
    elif kind == 1:  # slack
        budget = float(costs.sum() + 1)
    else:  # usually infeasible: just under the cheapest subset
        budget = cheapest * float(rng.uniform(0.5, 0.999)) if count else -1.0
    return values, costs, count, budget


def test_best_subset_matches_brute_force_on_600_small_instances():
    rng = np.random.default_rng(20180903)
    infeasible = feasible = 0
    for _ in range(600):
        values, costs, count, budget = random_instance(rng)
        expected = brute_force_best_value(list(values), list(costs), count, budget)
        chosen = best_subset(values, costs, count, budget)
        if expected is None:
            assert chosen is None, (values, costs, count, budget)
            infeasible += 1
            continue
        feasible += 1
        assert chosen is not None, (values, costs, count, budget)
        assert len(chosen) == count
        assert len(set(chosen)) == count
        assert list(chosen) == sorted(chosen)
        assert all(0 <= i < len(values) for i in chosen)
        total_cost = 0.0
        for i in chosen:  # in index order, as the docstring promises
            total_cost += float(costs[i])
        assert total_cost <= budget
        assert sum(values[i] for i in chosen) == pytest.approx(expected, abs=1e-9)
    # The generator must exercise both outcomes, or the test proves little.
    assert infeasible > 50 and feasible > 300


def test_best_subset_prefers_the_cheaper_of_two_subsets_of_equal_value():
    # Every pair is worth 10; {1, 2} is the cheapest pair (cost 3).
    values = [5.0, 5.0, 5.0, 5.0]
    costs = [3.0, 2.0, 1.0, 4.0]
    assert best_subset(values, costs, 2, budget=100.0) == (1, 2)


def test_best_subset_gives_up_the_most_valuable_items_when_the_budget_binds():
    # The two most valuable items cost 9 together; the budget of 6 forces {1, 2}.
    values = [10.0, 8.0, 7.0, 1.0]
    costs = [5.0, 4.0, 2.0, 0.5]
    assert best_subset(values, costs, 2, budget=6.0) == (1, 2)
    assert best_subset(values, costs, 2, budget=9.0) == (0, 1)
    assert best_subset(values, costs, 2, budget=2.4) is None


def test_best_subset_of_more_items_than_there_are_is_none():
    assert best_subset([1.0, 2.0], [1.0, 1.0], 3, budget=100.0) is None


def milp_best_value(values, costs, count, budget):
    """``max z.x`` s.t. ``c.x <= B``, ``sum x = count``, ``x`` binary; None if infeasible."""
    m = len(values)
    constraints = [
        LinearConstraint(np.asarray(costs)[None, :], -np.inf, budget),
        LinearConstraint(np.ones((1, m)), count, count),
    ]
    result = milp(
        c=-np.asarray(values),
        constraints=constraints,
        integrality=np.ones(m),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0},
    )
    if result.status == 2:  # infeasible
        return None
    assert result.status == 0, result.message
    return -result.fun


@pytest.mark.parametrize("instance", range(20))
def test_best_subset_reaches_the_milp_optimum_on_medium_instances(instance):
    rng = np.random.default_rng(1000 + instance)
    m, count = int(rng.integers(50, 71)), int(rng.integers(6, 11))
    values = rng.uniform(0, 10, size=m)
    costs = rng.uniform(1, 20, size=m)
    # Between the cheapest subset and the unconstrained best subset's cost: the budget binds.
    cheapest = float(np.sort(costs)[:count].sum())
    unconstrained = float(costs[np.argsort(-values)[:count]].sum())
    budget = cheapest + rng.uniform(0.05, 0.6) * max(unconstrained - cheapest, 0.0)
    expected = milp_best_value(values, costs, count, budget)
    chosen = best_subset(values, costs, count, budget)
    assert expected is not None and chosen is not None
    assert len(set(chosen)) == count
    total_cost = 0.0
    for i in chosen:
        total_cost += float(costs[i])
    assert total_cost <= budget
    assert float(values[list(chosen)].sum()) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_best_subset_and_milp_agree_that_an_unreachable_budget_has_no_subset():
    rng = np.random.default_rng(7)
    values, costs = rng.uniform(0, 10, size=60), rng.uniform(1, 20, size=60)
    budget = 0.99 * float(np.sort(costs)[:8].sum())
    assert milp_best_value(values, costs, 8, budget) is None
    assert best_subset(values, costs, 8, budget) is None


def test_a_floor_keeps_the_best_subset_only_when_it_is_worth_more_than_the_floor():
    """Branch and bound: with ``floor`` below the optimum the optimum is returned as without
    one; at or above it, None (the floor only prunes, it never changes a result)."""
    rng = np.random.default_rng(20180904)
    checked = 0
    for _ in range(400):
        values, costs, count, budget = random_instance(rng)
        best = brute_force_best_value(list(values), list(costs), count, budget)
        if best is None or count == 0:
            continue
        free = best_subset(values, costs, count, budget)
        for floor in (best - 1.0, best - 1e-6, float(rng.uniform(best - 30, best))):
            assert best_subset(values, costs, count, budget, floor) == free, (floor, best)
        for floor in (best, best + 1e-6):
            assert best_subset(values, costs, count, budget, floor) is None, (floor, best)
        checked += 1
    assert checked > 150


def test_the_pruning_table_holds_the_best_sums_of_every_rest():
    """``_best_sums_after`` bounds what the items after ``i`` can add; too high a bound prunes
    less (the same subsets, more work), so it is checked against its definition here."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        values = rng.uniform(-5, 20, size=int(rng.integers(0, 9))).round(1).tolist()
        count = int(rng.integers(1, 5))
        table = _best_sums_after(values, count)
        assert len(table) == len(values) + 1
        for i, row in enumerate(table):
            expected = [
                max((sum(c) for c in itertools.combinations(values[i:], r)), default=-np.inf)
                for r in range(count + 1)
            ]
            assert row == pytest.approx(expected)


def test_merged_fronts_keep_exactly_the_states_no_other_state_beats():
    rng = np.random.default_rng(12)
    for _ in range(200):
        states = [(float(c), float(v), None)
                  for c, v in rng.integers(0, 6, size=(int(rng.integers(0, 10)), 2))]  # fmt: skip
        cut = int(rng.integers(0, len(states) + 1))
        front = _merge_fronts(states[:cut], states[cut:])
        costs, values = [s[0] for s in front], [s[1] for s in front]
        assert costs == sorted(set(costs)) and values == sorted(set(values))  # both strictly up
        for cost, value, _ in states:  # every state is matched or beaten by one kept
            assert any(c <= cost and v >= value for c, v in zip(costs, values, strict=True))
