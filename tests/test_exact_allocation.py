"""The exact subset allocation of one batch of steps (gridsim.selection.exact.choose_optimal)
against brute force over every row and every subset of its members.

A row is a step (sigma, start); its window is sigma and ``count`` of the row's members within
the row's budget, worth sigma's value plus theirs. The best window has the largest key: value,
then the faster slowest node (sigma's performance), then the earlier start. Given an
incumbent, the allocation returns a window only if it beats the incumbent's key.

Whole-number values and costs make many rows tie exactly (the search's tie-break decides),
costs of 0 and budgets of exactly 0 sit on the affordability edge, and rows with a negative
budget (sigma alone already over it) are never chosen. Values are also scaled to 1e8, where
the search's margin of 1e-9 is below half a unit in the last place and vanishes: rows of equal
bound are then told apart by the tie-break alone. The window search reaches this code
only through its bounds and pruning, where such rows rarely meet; here they are frequent.
"""

from __future__ import annotations

from itertools import combinations
from types import SimpleNamespace

import numpy as np
import pytest

from gridsim.selection.exact import choose_optimal
from gridsim.selection.steps import _Choice, _Step


def make_step(performance, sigma, start, budget_left, member, cost) -> _Step:
    """A step with its membership and costs given (as ``_Step.compact`` fills them)."""
    rows, cols = member.shape
    step = _Step(
        slots=SimpleNamespace(performance=np.asarray(performance, dtype=float)),
        sigma=np.asarray(sigma),
        runtime=np.ones(rows),
        start=np.asarray(start, dtype=float),
        step=np.zeros(rows, dtype=np.int64),
        budget_left=np.asarray(budget_left, dtype=float),
    )
    step.__dict__.update(columns=100 + np.arange(cols), member=member, cost=cost)
    return step


def brute_force(step: _Step, count: int, values, sigma_values):
    """The best key over every row and affordable ``count``-subset of its members."""
    best = None
    performance = step.slots.performance
    for row in range(len(step.start)):
        members = np.flatnonzero(step.member[row])
        for subset in combinations(members, count):
            if step.cost[row, list(subset)].sum() > step.budget_left[row]:
                continue
            value = sigma_values[row] + values[row, list(subset)].sum()
            key = (value, 0.0, performance[step.sigma[row]], -step.start[row])
            best = key if best is None or key > best else best
    return best


def check(step: _Step, count: int, values, sigma_values, incumbent=None) -> _Choice | None:
    """choose_optimal agrees with brute force; its window is affordable and worth its key."""
    choice = choose_optimal(step, count, values, sigma_values, incumbent)
    expected = brute_force(step, count, values, sigma_values)
    if expected is None or (incumbent is not None and expected <= incumbent.key):
        assert choice is None
        return None
    assert choice is not None and choice.key == expected
    rows = [r for r in range(len(step.start))
            if (step.sigma[r], step.start[r]) == (choice.sigma, choice.start)]  # fmt: skip
    picks = [int(np.flatnonzero(step.columns == c)[0]) for c in choice.others]
    assert any(
        step.member[r, picks].all()
        and len(picks) == count
        and step.cost[r, picks].sum() <= step.budget_left[r]
        and sigma_values[r] + values[r, picks].sum() == choice.key[0]
        for r in rows
    )
    return choice


@pytest.mark.parametrize("scale", [1.0, 1e8])
def test_a_later_row_of_equal_value_wins_on_the_faster_slowest_node(scale):
    """Three rows of equal value: (slow, start 0), (slow, start 4), (fast, start 9). The
    second ties the first and loses the tie-break; the search must go on to the third, which
    wins it."""
    step = make_step(
        performance=[1.0, 2.0], sigma=[0, 0, 1], start=[0, 4, 9], budget_left=[9, 9, 9],
        member=np.ones((3, 2), dtype=bool), cost=np.ones((3, 2)),
    )  # fmt: skip
    values = np.array([[2.0, 0.0], [2.0, 0.0], [2.0, 0.0]])
    choice = check(step, 1, values, np.full(3, 3.0 * scale))
    assert (choice.sigma, choice.start, choice.others) == (1, 9.0, (100,))


def test_an_incumbent_of_equal_value_is_beaten_only_by_a_better_tie_break():
    step = make_step(
        performance=[1.0, 2.0], sigma=[0, 1], start=[3, 6], budget_left=[9, 9],
        member=np.ones((2, 2), dtype=bool), cost=np.ones((2, 2)),
    )  # fmt: skip
    values, sigma_values = np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([4.0, 4.0])
    slow_early = _Choice((5.0, 0.0, 1.0, -1.0), 7, 1.0, 1.0, (200,))
    assert check(step, 1, values, sigma_values, slow_early).sigma == 1
    fast_early = _Choice((5.0, 0.0, 2.0, -1.0), 7, 1.0, 1.0, (200,))
    assert check(step, 1, values, sigma_values, fast_early) is None


def test_a_budget_left_of_exactly_zero_affords_members_that_cost_nothing():
    step = make_step(
        performance=[1.0], sigma=[0, 0], start=[0, 1], budget_left=[0.0, -1.0],
        member=np.ones((2, 2), dtype=bool), cost=np.zeros((2, 2)),
    )  # fmt: skip
    choice = check(step, 1, np.array([[1.0, 2.0], [7.0, 7.0]]), np.array([1.0, 1.0]))
    assert (choice.start, choice.others) == (0.0, (101,))


def test_a_window_worth_zero_that_ties_the_best_is_still_compared_on_the_tie_break():
    """Both rows can afford only their second member (worth 0) and are solved by the subset
    programme; the second row, of the faster slowest node, must not be pruned as unable to
    beat 0: it ties it and wins the tie-break."""
    step = make_step(
        performance=[1.0, 2.0], sigma=[0, 1], start=[0, 5], budget_left=[2, 2],
        member=np.ones((2, 2), dtype=bool), cost=np.array([[5.0, 0.0], [5.0, 0.0]]),
    )  # fmt: skip
    choice = check(step, 1, np.array([[1.0, 0.0], [1.0, 0.0]]), np.zeros(2))
    assert (choice.sigma, choice.start, choice.others) == (1, 5.0, (101,))


def random_case(rng: np.random.Generator):
    rows, cols = int(rng.integers(1, 7)), int(rng.integers(1, 9))
    count = int(rng.integers(0, min(cols, 4) + 1))
    member = rng.random((rows, cols)) < 0.75
    cost = rng.integers(0, 4, (rows, cols)).astype(float)
    if rng.random() < 0.3:
        budget_left = np.full(rows, np.inf)
    else:
        budget_left = rng.integers(-1, 3 * max(count, 1), rows).astype(float)
    performance = rng.integers(1, 3, 3).astype(float)
    step = make_step(performance, rng.integers(0, 3, rows), rng.integers(0, 3, rows),
                     budget_left, member, cost)  # fmt: skip
    scale = 1e8 if rng.random() < 0.5 else 1.0  # whole numbers: sums stay exact
    values = scale * rng.integers(0, 3, (rows, cols))
    sigma_values = scale * rng.integers(0, 3, rows)
    incumbent = None
    if rng.random() < 0.5:
        value = scale * float(rng.integers(0, 7))
        key = (value, 0.0, float(rng.integers(1, 3)), -float(rng.integers(0, 3)))
        incumbent = _Choice(key, 9, -key[3], 1.0, ())
    return step, count, values, sigma_values, incumbent


@pytest.mark.parametrize("seed", range(8))
def test_random_steps_with_many_ties_get_the_brute_force_optimum(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        check(*random_case(rng))
