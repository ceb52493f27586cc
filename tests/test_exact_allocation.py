"""The exact subset allocation of one batch of steps (gridsim.selection.exact.choose_optimal)
against brute force over every row and every subset of its members.

A row is a step (sigma, start); its window is sigma and ``count`` of the row's members within
the row's budget, worth sigma's value plus theirs. The window chosen is the tie rule's
(gridsim.selection.ties): among the windows tied in value with the best, the largest rank
(the faster slowest node, the earlier start, the lower sigma, the earlier step). Given an
incumbent (a window found before), the allocation's windows must still lead to the same
choice over all of them.

Whole-number values and costs make many rows tie exactly (the search's tie-break decides),
costs of 0 and budgets of exactly 0 sit on the affordability edge, and rows with a negative
budget (sigma alone already over it) are never chosen. Values are also scaled to 1e8, where
the margins of the search's pruning are far below the gaps between values: rows of equal
bound are then told apart by rank alone. The window search reaches this code
only through its bounds and pruning, where such rows rarely meet; here they are frequent.
"""

from __future__ import annotations

from itertools import combinations
from types import SimpleNamespace

import numpy as np
import pytest
from reference_window_search import by_tie_rule

from gridsim.selection.exact import choose_optimal
from gridsim.selection.steps import Step
from gridsim.selection.ties import Choice, Contenders


def make_step(performance, sigma, start, budget_left, member, cost) -> Step:
    """A step with its membership and costs given (as ``Step.compact`` fills them)."""
    rows, cols = member.shape
    step = Step(
        slots=SimpleNamespace(performance=np.asarray(performance, dtype=float)),
        sigma=np.asarray(sigma),
        runtime=np.ones(rows),
        start=np.asarray(start, dtype=float),
        step=np.arange(rows, dtype=np.int64),
        budget_left=np.asarray(budget_left, dtype=float),
    )
    step.__dict__.update(columns=100 + np.arange(cols), member=member, cost=cost)
    return step


def brute_force(step: Step, count: int, values, sigma_values):
    """Every window of every row: every affordable ``count``-subset of its members."""
    windows = []
    performance = step.slots.performance
    for row in range(len(step.start)):
        members = np.flatnonzero(step.member[row])
        for subset in combinations(members, count):
            if step.cost[row, list(subset)].sum() > step.budget_left[row]:
                continue
            value = sigma_values[row] + values[row, list(subset)].sum()
            rank = (0.0, performance[step.sigma[row]], -step.start[row], -int(step.sigma[row]),
                    -int(step.step[row]))  # fmt: skip
            windows.append(SimpleNamespace(value=value, rank=rank))
    return windows


def check(step: Step, count: int, values, sigma_values, incumbent=None) -> Choice | None:
    """choose_optimal with brute force leads to the tie rule's choice over every window of the
    step (and the incumbent); that window is affordable and worth its value."""
    contenders = Contenders()
    if incumbent is not None:
        contenders.offer(incumbent)
    choose_optimal(step, count, values, sigma_values, contenders)
    if len(contenders.unsettled()):  # rows skipped by rank too early: evaluated in full
        contenders.skipping = False
        choose_optimal(step, count, values, sigma_values, contenders)
    choice = contenders.best()
    windows = brute_force(step, count, values, sigma_values)
    expected = by_tie_rule(windows + ([] if incumbent is None else [incumbent]))
    if expected is None:
        assert choice is None
        return None
    assert choice is not None and (choice.value, choice.rank) == (expected.value, expected.rank)
    if choice is incumbent:
        return None
    row = int(np.flatnonzero(step.step == choice.step)[0])
    picks = [int(np.flatnonzero(step.columns == c)[0]) for c in choice.others]
    assert step.member[row, picks].all() and len(picks) == count
    assert step.cost[row, picks].sum() <= step.budget_left[row]
    assert sigma_values[row] + values[row, picks].sum() == choice.value
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
    slow_early = Choice(5.0, 0.0, 1.0, 1.0, 7, 7, 1.0, (200,))
    assert check(step, 1, values, sigma_values, slow_early).sigma == 1
    fast_early = Choice(5.0, 0.0, 2.0, 1.0, 7, 7, 1.0, (200,))
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
        start, performance = float(rng.integers(0, 3)), float(rng.integers(1, 3))
        incumbent = Choice(value, 0.0, performance, start, 9, 9, 1.0, ())
    return step, count, values, sigma_values, incumbent


@pytest.mark.parametrize("seed", range(8))
def test_random_steps_with_many_ties_get_the_brute_force_optimum(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        check(*random_case(rng))
