"""Ties: whole-number node values make many windows worth the same, and the tie rule of
gridsim/selection/ties.py decides -- the faster slowest node, then the earlier start
(``Choice.rank``; the reference of tests/reference_window_search.py applies the same rule).

Random float values (tests/test_window_search.py) almost never tie, so a search that stopped
at the first of several rows with an equal bound, or kept the later of two equal windows,
would pass there and is caught here. The rule itself (values equal up to rounding are tied;
the choice does not depend on the order windows are found in; skips checked at the end) and
the order-free sums it relies on are tested at the end of the file.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from operator import add

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance
from reference_window_search import by_tie_rule, reference_search_all

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.exact import top_columns
from gridsim.selection.registry import build_criterion
from gridsim.selection.ties import (
    TIE_TOLERANCE,
    Choice,
    Contenders,
    ordered_sum,
    window_value,
)


@st.composite
def tied_instances(draw):
    """5-8 nodes of performance 2 or 4 with values q in {0, 1, 2}, at most one local task
    each on a whole-number grid, and a 2-3 node request whose budget may bind."""
    count = draw(st.integers(5, 8))
    nodes = []
    busy = []
    for i in range(count):
        performance = draw(st.sampled_from([2.0, 4.0]))
        nodes.append(Node(i, performance, performance / 10, float(draw(st.integers(0, 2)))))
        start = draw(st.integers(0, 60))
        length = draw(st.integers(0, 40))
        busy.append([(float(start), float(start + length))] if length else [])
    n = draw(st.integers(2, 3))
    volume = float(draw(st.sampled_from([40, 80])))
    budget = draw(st.sampled_from([float("inf"), n * volume * 0.06, n * volume * 0.08]))
    return Profile(nodes, busy, 0.0, 200.0), Request(n, volume, budget)


@settings(max_examples=examples(200))
@given(tied_instances(), st.sampled_from(["MaxQ", "DEP", "COORD"]))
def test_equal_windows_are_broken_by_the_slowest_node_then_the_start(instance, name):
    profile, request = instance
    window = build_criterion(name).search(profile, request)
    expected = reference_search_all(profile, request)[name]
    assert (window is None) == (expected is None)
    if window is None:
        return
    slowest = min(profile.nodes[i].performance for i in window.nodes)
    assert (window.criterion_value, slowest, window.start) == (
        expected.value, expected.performance, expected.start
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("name", ["MaxQ", "DEP", "COORD"])
def test_money_units_do_not_change_the_window(seed, name):
    """Prices and budget in thousandths (budgets left below 1) give the same window."""
    profile, request = random_instance(seed)
    scaled_nodes = [replace(node, price=node.price / 1000) for node in profile.nodes]
    scaled = Profile(scaled_nodes, busy_of(profile), profile.horizon_start, profile.horizon_end)
    cheap = replace(request, budget=request.budget / 1000)
    window = build_criterion(name).search(profile, request)
    thousandths = build_criterion(name).search(scaled, cheap)
    assert (window is None) == (thousandths is None)
    if window is not None:
        assert (thousandths.start, thousandths.nodes) == (window.start, window.nodes)


def busy_of(profile: Profile) -> list[list[tuple[float, float]]]:
    """Per node, the busy intervals of ``profile``: the gaps between its free intervals."""
    busy = []
    for node in profile.nodes:
        edges = [profile.horizon_start]
        for start, end in profile.free_intervals(node.id):
            edges += [start, end]
        edges.append(profile.horizon_end)
        busy.append([(a, b) for a, b in zip(edges[::2], edges[1::2], strict=True) if b > a])
    return busy


#: Instances per criterion (about 0.1 s each with the reference).
INSTANCES_WITH_GAPS = 300


def tied_instance_with_gaps(seed: int) -> tuple[Profile, Request]:
    """4-8 nodes of performance 2 or 4 with values q in {0, 1, 2} and up to two local tasks
    each on a whole-number grid, so a node has several free slots (equal windows in two of
    them are common); a 1-3 node request, sometimes arriving at time 10."""
    rng = np.random.default_rng(seed)
    nodes, busy = [], []
    for i in range(int(rng.integers(4, 9))):
        performance = float(rng.choice([2.0, 4.0]))
        nodes.append(Node(i, performance, performance / 10, float(rng.integers(0, 3))))
        intervals, free_from = [], 0
        for _ in range(int(rng.integers(0, 3))):
            start = free_from + int(rng.integers(0, 40))
            end = start + int(rng.integers(1, 30))
            intervals.append((float(start), float(end)))
            free_from = end + 1
        busy.append(intervals)
    n = int(rng.integers(1, 4))
    volume = float(rng.choice([20, 40, 80]))
    budget = float(rng.choice([np.inf, n * volume * 0.06, n * volume * 0.08]))
    earliest_start = float(rng.choice([0.0, 0.0, 10.0]))
    return Profile(nodes, busy, 0.0, 200.0), Request(n, volume, budget, 0.0, earliest_start)


@pytest.mark.parametrize("name", ["MaxQ", "MinCost", "COORD", "DEP"])
def test_equal_windows_in_several_slots_of_a_node_take_the_earliest_start(name):
    """A sigma visited later whose bound only equals the best value found so far can still
    hold a window of that value on as fast a group at an earlier start: the search must
    evaluate it (the reference takes the earlier window)."""
    criterion = build_criterion(name)
    for seed in range(INSTANCES_WITH_GAPS):
        profile, request = tied_instance_with_gaps(seed)
        window = criterion.search(profile, request)
        expected = reference_search_all(profile, request)[name]
        assert (window is None) == (expected is None), seed
        if window is None:
            continue
        slowest = min(profile.nodes[i].performance for i in window.nodes)
        assert (window.criterion_value, slowest, window.start) == (
            expected.value, expected.performance, expected.start
        ), seed  # fmt: skip


# -- the rule itself -------------------------------------------------------------------------


def choice(value: float, performance: float = 1.0, start: float = 0.0, sigma: int = 0) -> Choice:
    return Choice(value, 0.0, performance, start, sigma, sigma, 1.0, ())


def test_values_equal_up_to_rounding_are_tied_and_the_rank_decides():
    # 0.1 + 0.2 and 0.3 differ in the last bit: tied, so the faster group wins.
    slow, fast = choice(0.1 + 0.2, performance=1.0), choice(0.3, performance=2.0)
    assert slow.value > fast.value
    assert best_of([slow, fast]) is fast
    # A difference far above rounding (1e-9 of the value) is a better window.
    better = choice(0.3 * (1 + 1e-9), performance=1.0)
    assert best_of([better, fast]) is better
    # Within the tolerance of the best value, not of each other window.
    edge = choice(100.0 - 0.5 * TIE_TOLERANCE * 101.0, performance=3.0)
    beyond = choice(100.0 - 2.0 * TIE_TOLERANCE * 101.0, performance=4.0)
    assert best_of([choice(100.0), edge, beyond]) is edge


@settings(max_examples=examples(200))
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 3), st.integers(0, 3)), min_size=1,
                max_size=8, unique=True), st.randoms(use_true_random=False))  # fmt: skip
def test_the_choice_does_not_depend_on_the_order_windows_are_found(windows, random):
    """Values a few tolerances apart (chains of near ties included): offered in any order,
    the window kept is the reference's (the largest rank among those tied with the best)."""
    found = [choice(1000.0 + 0.4 * TIE_TOLERANCE * 1001.0 * k, float(p), float(t), i)
             for i, (k, p, t) in enumerate(windows)]  # fmt: skip
    expected = by_tie_rule(found)
    random.shuffle(found)
    assert best_of(found) is expected


def best_of(found: list[Choice]) -> Choice | None:
    contenders = Contenders()
    for c in found:
        contenders.offer(c)
    return contenders.best()


def test_a_skip_undone_by_a_better_window_found_later_is_reported():
    contenders = Contenders()
    contenders.offer(choice(10.0, performance=2.0, sigma=1))
    # A sigma of the slower group whose windows are worth at most 10: outranked, skipped.
    ranks = (0.0, np.array([1.0]), np.array([0.0]), np.array([7]), np.array([7]))
    assert contenders.outranked(np.array([10.0]), *ranks).all()
    contenders.skip(10.0, lambda: (np.array([10.0]), *ranks))
    assert list(contenders.unsettled()) == []  # nothing better found: the skip stands
    contenders.skip(10.0, lambda: (np.array([10.0]), *ranks))
    contenders.offer(choice(10.0 + 1e-6, performance=1.0, sigma=9))  # beyond the tolerance
    # The fast window is no longer tied with the best: the skipped sigma must be evaluated.
    assert list(contenders.unsettled()) == [7]


@settings(max_examples=examples(200))
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_a_window_value_is_the_same_bits_whichever_slots_hold_the_values(values, random):
    shuffled = list(values)
    random.shuffle(shuffled)
    assert window_value(2.5, np.array(values)) == window_value(2.5, np.array(shuffled))
    # Added left to right, as Python adds them.
    assert ordered_sum(np.array([sorted(values)]))[0] == functools.reduce(add, sorted(values))


@settings(max_examples=examples(200))
@given(st.lists(st.lists(st.integers(0, 3), min_size=6, max_size=6), min_size=1, max_size=5),
       st.integers(1, 6))  # fmt: skip
def test_the_best_columns_among_equal_values_are_the_first(rows, count):
    """The exact search's best columns: the largest values, among equal ones the lower
    columns (cheaper slots), whatever order a partition would leave them in."""
    values = np.array(rows, dtype=float)
    expected = [sorted(sorted(range(6), key=lambda c, r=r: (-r[c], c))[:count]) for r in rows]
    assert top_columns(values, count).tolist() == expected
