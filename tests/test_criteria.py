"""Criteria by name: the registry, its errors, and hand-worked windows of each criterion."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance
from reference_window_search import reference_search_all

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.criteria import _farthest, _nearest
from gridsim.selection.energy_criteria import ENERGY_CRITERIA_NAMES
from gridsim.selection.registry import (
    CRITERIA,
    CriterionError,
    MultipleBest,
    build_criterion,
    describe_criteria,
)

PAPER_CRITERIA = {
    "FirstFit", "MinStart", "MinFinish", "MinRuntime", "MinCost", "MaxQ", "MaxQLite",
    "MultipleBest", "DEP", "DEPLite", "COORD", "COORDLite",
}  # fmt: skip


def test_the_registry_holds_every_criterion_of_the_papers():
    assert set(CRITERIA) >= PAPER_CRITERIA
    assert {name for name, _summary in describe_criteria()} == set(CRITERIA)
    for name in PAPER_CRITERIA:
        assert build_criterion(name).name == name


def test_an_unknown_criterion_name_suggests_the_closest_one():
    with pytest.raises(CriterionError, match=r"unknown criterion 'MaxQQ'; did you mean 'MaxQ'\?"):
        build_criterion("MaxQQ")
    with pytest.raises(CriterionError, match="did you mean 'FirstFit'"):
        build_criterion({"name": "Firstfit"})


def test_a_name_like_no_criterion_is_refused_without_a_suggestion():
    with pytest.raises(CriterionError, match="unknown criterion 'xyzzy'") as error:
        build_criterion("xyzzy")
    assert "did you mean" not in str(error.value)


def test_a_mapping_without_a_name_is_refused():
    with pytest.raises(
        CriterionError,
        match=r"a criterion given as a mapping needs its name, "
        r"e\.g\. \{name: MultipleBest, target: MaxQ\}; got keys \['target'\]",
    ):
        build_criterion({"target": "MaxQ"})


def test_an_unknown_parameter_is_refused_with_the_allowed_ones():
    with pytest.raises(CriterionError, match="criterion MaxQ has no parameter 'alpha'"):
        build_criterion({"name": "MaxQ", "alpha": 1})
    with pytest.raises(CriterionError, match=r"has no parameter 'targte'.*'target'"):
        build_criterion({"name": "MultipleBest", "targte": "DEP"})


def test_multiple_best_parameters_are_validated():
    assert build_criterion({"name": "MultipleBest", "target": "DEP"}) == MultipleBest("DEP")
    assert build_criterion({"name": "MultipleBest", "target": "DEP"}).label == (
        "MultipleBest(target=DEP)"
    )
    assert build_criterion("MultipleBest").label == "MultipleBest(target=MaxQ)"
    with pytest.raises(CriterionError, match="target must name a criterion"):
        build_criterion({"name": "MultipleBest", "target": "Nope"})
    with pytest.raises(CriterionError, match="target must name a criterion"):
        build_criterion({"name": "MultipleBest", "target": "MultipleBest"})
    with pytest.raises(CriterionError, match="max_alternatives must be at least 1"):
        build_criterion({"name": "MultipleBest", "max_alternatives": 0})


# -- a hand-worked environment ----------------------------------------------------------------
#
# Five nodes over [0, 100), request n = 2, V = 40. Task length T = 40 / (slowest performance).
#
#   node  perf  price  q   free
#   0     2     1      1   [0, 100)
#   1     4     3      9   [30, 100)
#   2     5     4      2   [0, 5), [50, 100)
#   3     0.5   0.5    8   [0, 100)
#   4     1     0.2    5   [20, 100)
#
#   pair   T   earliest start  finish  cost                Q
#   {0,1}  20  30              50      20*(1+3)   = 80     10
#   {0,2}  20  50              70      20*(1+4)   = 100     3
#   {0,3}  80   0              80      80*(1+0.5) = 120     9
#   {0,4}  40  20              60      40*(1+0.2) = 48      6
#   {1,2}  10  50              60      10*(3+4)   = 70     11
#   {1,4}  40  30              70      40*(3+0.2) = 128    14
#   {2,4}  40  50              90      40*(4+0.2) = 168     7
#   {3,4}  80  20             100      80*(0.5+0.2) = 56   13
#   {1,3}, {2,3}: an 80-long task does not fit after 30 or 50 in the horizon.

HAND_NODES = (
    Node(0, 2.0, 1.0, 1.0),
    Node(1, 4.0, 3.0, 9.0),
    Node(2, 5.0, 4.0, 2.0),
    Node(3, 0.5, 0.5, 8.0),
    Node(4, 1.0, 0.2, 5.0),
)
HAND_BUSY = [[], [(0.0, 30.0)], [(5.0, 50.0)], [], [(0.0, 20.0)]]


def hand_profile() -> Profile:
    return Profile(HAND_NODES, HAND_BUSY, 0.0, 100.0)


def picked(name, budget):
    window = build_criterion(name).search(hand_profile(), Request(n=2, volume=40.0, budget=budget))
    assert window is not None
    return window.start, window.nodes, window.runtime, window.cost


def test_first_fit_takes_the_earliest_start_even_on_slow_nodes():
    assert picked("FirstFit", budget=150.0) == (0.0, (0, 3), 80.0, 120.0)


def test_first_fit_prefers_the_faster_group_between_equal_starts():
    # Budget 100 rules out {0,3}; {0,4} and {3,4} both start at 20, {0,4} on faster nodes.
    assert picked("FirstFit", budget=100.0) == (20.0, (0, 4), 40.0, 48.0)


def test_min_finish_takes_the_window_that_ends_first():
    assert picked("MinFinish", budget=150.0) == (30.0, (0, 1), 20.0, 80.0)


def test_min_runtime_takes_the_fastest_pair():
    assert picked("MinRuntime", budget=150.0) == (50.0, (1, 2), 10.0, 70.0)


def test_min_runtime_settles_for_a_slower_pair_when_the_fastest_breaks_the_budget():
    # Budget 69 rules out {1,2} (70); the next shortest runtime is 20: {0,1} at 30 (cost 80) is
    # too dear, so nothing with T = 20 fits; T = 40: {0,4} at 20 (cost 48).
    assert picked("MinRuntime", budget=69.0) == (20.0, (0, 4), 40.0, 48.0)


def test_min_cost_takes_the_cheapest_pair():
    assert picked("MinCost", budget=150.0) == (20.0, (0, 4), 40.0, 48.0)


def test_max_q_takes_the_most_valuable_affordable_pair():
    assert picked("MaxQ", budget=150.0) == (30.0, (1, 4), 40.0, 128.0)


def test_max_q_gives_up_value_when_the_budget_binds():
    # Budget 100 rules out {1,4} (Q 14, cost 128); next is {3,4} (Q 13, cost 56).
    assert picked("MaxQ", budget=100.0) == (20.0, (3, 4), 80.0, 56.0)


def test_max_q_with_an_unlimited_budget_takes_the_most_valuable_pair():
    # Request's default budget is unlimited; {1,4} (Q 14) is the best pair that fits in time.
    window = build_criterion("MaxQ").search(hand_profile(), Request(n=2, volume=40.0))
    assert window is not None
    assert (window.start, window.nodes) == (30.0, (1, 4))


@pytest.mark.parametrize("name", ["DEP", "COORD", "DEPLite", "COORDLite", "MaxQLite"])
def test_additive_criteria_find_the_reference_s_window_with_an_unlimited_budget(name):
    request = Request(n=2, volume=40.0)
    window = build_criterion(name).search(hand_profile(), request)
    best = reference_search_all(hand_profile(), request)[name]
    assert (window.start, window.nodes, window.runtime) == (best.start, best.nodes, best.runtime)
    assert window.criterion_value == pytest.approx(best.value, rel=1e-12)


def test_max_q_lite_scores_the_cheapest_pair_of_each_step():
    # Steps and their cheapest affordable pair (budget 150), by group from the fastest:
    # P=4: start 50 {1,2} Q 11. P=2: start 30 {0,1} Q 10, start 50 {0,1} Q 10.
    # P=1: start 20 {0,4} Q 6, start 30 {0,4} Q 6, start 50 {0,4} Q 6.
    # P=0.5: start 0 {0,3} Q 9, start 20 {3,4} Q 13 (56 < 120).  Best: {3,4} Q 13.
    assert picked("MaxQLite", budget=150.0) == (20.0, (3, 4), 80.0, 56.0)


# -- comparisons on random instances ---------------------------------------------------------


def q_of(window, nodes):
    return sum(nodes[i].q for i in window.nodes)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 10**6))
def test_max_q_has_at_least_the_q_of_max_q_lite_and_of_multiple_best(seed):
    profile, request = random_instance(seed)
    exact = build_criterion("MaxQ").search(profile, request)
    lite = build_criterion("MaxQLite").search(profile, request)
    multiple = build_criterion({"name": "MultipleBest", "target": "MaxQ"}).search(profile, request)
    if lite is None and multiple is None:
        assert exact is None
        return
    assert exact is not None, request
    best = q_of(exact, profile.nodes)
    assert best >= q_of(lite, profile.nodes) - 1e-9
    assert best >= q_of(multiple, profile.nodes) - 1e-9


# BFshort plans a 1% shorter runtime, so it may be cheaper than any window of the request.
# The energy criteria need a power model (tests/test_signal_criteria.py).
OTHERS = [
    name for name in sorted(CRITERIA) if name not in ("MinCost", "BFshort", *ENERGY_CRITERIA_NAMES)
] + [{"name": "MultipleBest", "target": "MinCost"}]


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 10**6))
def test_min_cost_costs_no_more_than_any_other_criterion(seed):
    profile, request = random_instance(seed)
    cheapest = build_criterion("MinCost").search(profile, request)
    for spec in OTHERS:
        window = build_criterion(spec).search(profile, request)
        if window is not None:
            assert cheapest is not None
            assert cheapest.cost <= window.cost * (1 + 1e-12), spec


@pytest.mark.parametrize("spec", ["CoP", "PAST", {"name": "CoP", "delta2": 3.0}])
def test_window_value_bound_is_above_every_window_value(spec):
    # z of n slots on nodes no slower than the slowest, for windows fitting their slots.
    criterion = build_criterion(spec)
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 6))
        start, runtime = float(rng.uniform(0, 1e6)), float(rng.uniform(1, 1e4))
        slowest = float(rng.uniform(1, 3))
        performance = slowest * rng.uniform(1, 2, n)
        slot_start = start - rng.choice([0.0, 1e-7, 1.0, 1e3], n) * rng.uniform(0, 1, n)
        tail = rng.random(n) < 0.3
        slot_end = np.where(tail, np.inf, start + runtime + rng.uniform(0, 2 * runtime, n))
        z = criterion.slot_values(slot_start, slot_end, 0.0, 0.0, start, runtime, performance)
        bound = criterion.window_value_bound(np.array([start]), runtime, slowest, n)
        assert float(np.sum(z)) <= float(bound[0]) + 1e-6


def test_criteria_without_a_window_value_bound_say_so():
    assert (
        build_criterion({"name": "PAST", "rule2": "as_described"}).window_value_bound(
            np.array([0.0]), 1.0, 1.0, 2
        )
        is None
    )
    assert build_criterion("MinCost").window_value_bound(np.array([0.0]), 1.0, 1.0, 2) is None


def _plain_distances(slot_start, slot_end, start, runtime):
    """The distance formulas as first written (selections everywhere), for comparison."""
    open_end = np.isposinf(slot_end)
    right = np.where(open_end, np.inf, np.where(open_end, 0.0, slot_end) - (start + runtime))
    return start - slot_start, right


_EDGE_TIMES = st.one_of(
    st.floats(-50, 50, allow_nan=False), st.sampled_from([-np.inf, np.inf, 0.0, 10.0])
)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.tuples(_EDGE_TIMES, _EDGE_TIMES), min_size=1, max_size=12),
    st.floats(-20, 20, allow_nan=False),
    st.floats(0.5, 30, allow_nan=False),
)
def test_distance_values_are_the_plain_formulas_to_the_bit(slots, start, runtime):
    """The shortcuts of the distance criteria (no selections where nothing is infinite) give
    the numbers of the plain formulas, infinite neighbours included."""
    slot_start = np.array([s for s, _ in slots])
    slot_end = np.array([e for _, e in slots])
    left, right = _plain_distances(slot_start, slot_end, start, runtime)
    farthest = np.where(np.isposinf(right), left, np.maximum(left, right))
    plain_farthest = -np.where(np.isinf(left), right, farthest)
    with np.errstate(invalid="ignore"):
        got_farthest = _farthest(slot_start, slot_end, None, None, start, runtime)
        got_nearest = _nearest(slot_start, slot_end, None, None, start, runtime)
    np.testing.assert_array_equal(got_farthest, plain_farthest, strict=True)
    np.testing.assert_array_equal(got_nearest, np.minimum(left, right), strict=True)
