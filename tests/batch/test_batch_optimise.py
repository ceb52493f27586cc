"""The batch optimisation of eq. 1-3 is exact: the Pareto DP matches brute force."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.scheduling.batch.optimise import (
    budget_limit,
    maximise_cost,
    minimise_cost,
    minimise_time,
    time_limit,
)


def brute_force(alternatives, objective, constraint, limit, maximise):
    """Best objective over all combinations meeting the limit, sums taken job by job."""
    best = None
    for combination in itertools.product(*alternatives):
        value = 0.0
        constrained = 0.0
        for pair in combination:
            value += pair[objective]
            constrained += pair[constraint]
        if constrained > limit:
            continue
        if best is None or (value > best if maximise else value < best):
            best = value
    return best


def totals(alternatives, choice):
    cost = time = 0.0
    for job, index in zip(alternatives, choice, strict=True):
        cost += job[index][0]
        time += job[index][1]
    return cost, time


numbers = st.floats(min_value=0.5, max_value=500.0, allow_nan=False, allow_infinity=False)
batches = st.lists(
    st.lists(st.tuples(numbers, numbers), min_size=1, max_size=5), min_size=1, max_size=5
)


@settings(max_examples=examples(300), deadline=None)
@given(batches, st.floats(min_value=0.0, max_value=1.2))
def test_every_optimum_equals_brute_force_and_respects_its_limit(alternatives, fraction):
    cost_span = sum(max(c for c, _ in job) for job in alternatives)
    time_span = sum(max(t for _, t in job) for job in alternatives)
    problems = [
        (minimise_time, 1, 0, fraction * cost_span, False),
        (minimise_cost, 0, 1, fraction * time_span, False),
        (maximise_cost, 0, 1, fraction * time_span, True),
    ]
    for solve, objective, constraint, limit, maximise in problems:
        expected = brute_force(alternatives, objective, constraint, limit, maximise)
        found = solve(alternatives, limit)
        if expected is None:
            assert found is None
            continue
        assert found is not None
        cost, time = totals(alternatives, found.choice)
        assert (cost, time) == (found.total_cost, found.total_time)
        assert (cost, time)[constraint] <= limit
        assert (cost, time)[objective] == expected


@settings(max_examples=examples(200), deadline=None)
@given(batches)
def test_time_minimisation_under_b_star_is_feasible_whenever_t_star_is(alternatives):
    limit = time_limit(alternatives)
    budget = budget_limit(alternatives, limit)
    if budget is None:
        assert brute_force(alternatives, 0, 1, limit, True) is None
        return
    fastest = minimise_time(alternatives, budget)
    assert fastest is not None
    assert fastest.total_cost <= budget
    # The dearest combination under T* meets B* by definition, so the fastest one under B*
    # is at least as fast as T* allows.
    assert fastest.total_time <= limit


def test_t_star_floors_the_mean_time_of_each_job():
    alternatives = [[(1.0, 10.0), (2.0, 13.0)], [(5.0, 7.9)]]
    assert time_limit(alternatives) == math.floor(11.5) + math.floor(7.9)


def test_b_star_is_the_dearest_combination_within_t_star():
    alternatives = [[(10.0, 5.0), (30.0, 2.0)], [(8.0, 6.0), (20.0, 1.0)]]
    # T* = floor(3.5) + floor(3.5) = 6. Combinations (cost, time): (18, 11), (30, 6), (38, 8),
    # (50, 3); within 6 time units are (30, 6) and (50, 3), so B* = 50.
    assert time_limit(alternatives) == 6.0
    assert budget_limit(alternatives, 6.0) == 50.0


def test_a_small_batch_picks_the_fast_alternatives_the_budget_allows():
    alternatives = [[(10.0, 50.0), (40.0, 20.0)], [(10.0, 30.0), (25.0, 10.0)]]
    # Combinations (cost, time): (20, 80), (35, 60), (50, 50), (65, 30).
    assert minimise_time(alternatives, 50.0).choice == (1, 0)
    assert minimise_time(alternatives, 65.0).choice == (1, 1)
    assert minimise_cost(alternatives, 60.0).choice == (0, 1)
    assert minimise_cost(alternatives, 10.0) is None


@pytest.mark.parametrize("solve", [minimise_time, minimise_cost, maximise_cost])
def test_a_job_without_alternatives_leaves_nothing_to_choose(solve):
    assert solve([[(1.0, 1.0)], []], 100.0) is None
