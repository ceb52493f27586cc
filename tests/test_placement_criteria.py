"""The job-flow placement criteria (gridsim.selection.placement) rule by rule.

Backfilling's window (the first member slots in slot order) is compared step by step with a
plain loop over the rows written from its definition; PAST's and CoP's per-slot values are
worked by hand at the edges of their rules; their slot bounds are never below a slot's value
over the starts they cover and equal to it at a single start (CoP's per side: the exact best,
against every piece of the rule); the parameters are checked with their messages.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
import test_window_ties
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance
from reference_window_search import by_tie_rule
from search_steps import all_steps, best_offered

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.criteria import FirstFit, MinFinish
from gridsim.selection.placement import (
    _OWN_SLOT_START,
    ADJACENT,
    PAST,
    BFshort,
    BFstart,
    CoP,
    InSlotOrder,
    choose_in_slot_order,
)
from gridsim.selection.registry import build_criterion


def reference_in_slot_order(step, count, value, equal_starts="node", ties="fastest"):
    """The best row and its members, a row at a time: the first ``count`` members in slot
    order (start, then node; ``equal_starts`` orders equal starts by performance) if they fit
    the budget, else the cheapest ``count``; the row the tie rule chooses, ``ties`` saying
    whether the faster or the slower sigma ranks first."""
    slots = step.slots
    cheap, _, cheap_ok = step.cheapest(count)
    scores = value(step.start, step.runtime)
    sign = {"node": 0.0, "fastest": -1.0, "slowest": 1.0}[equal_starts]
    rows = []
    for row in range(len(step.start)):
        members = [int(c) for c in step.columns[step.member[row]]]
        members.sort(key=lambda s: (slots.start[s], sign * slots.performance[s], s))
        first = members[:count]
        chosen = None
        if len(first) == count:
            cost = sum(step.runtime[row] * slots.price[s] for s in first)
            if cost <= step.budget_left[row]:
                chosen = first
        if chosen is None and cheap_ok[row]:
            chosen = list(cheap[row])
        if chosen is None:
            continue
        perf = float(slots.performance[step.sigma[row]])
        secondary = -perf if ties == "slowest" else 0.0
        rank = (secondary, perf, -float(step.start[row]), -int(step.sigma[row]),
                -int(step.step[row]))  # fmt: skip
        rows.append(
            SimpleNamespace(
                value=float(scores[row]),
                rank=rank,
                sigma=int(step.sigma[row]),
                others=tuple(sorted(chosen)),
            )
        )
    return as_reference(by_tie_rule(rows))


def as_reference(choice):
    return None if choice is None else (choice.value, choice.rank, choice.sigma, choice.others)


def latest_start(start, runtime):
    """A value that grows with the start (no criterion's, so no shortcut applies)."""
    return np.asarray(start, dtype=float) + 0.0 * runtime


VALUES = {
    "earliest start": (FirstFit().value, True),
    "earliest finish": (MinFinish().value, True),
    "latest start": (latest_start, False),
}
ORDERS = [("node", "fastest"), ("node", "slowest"), ("fastest", "fastest"),
          ("slowest", "slowest"), ("fastest", "slowest"), ("slowest", "fastest")]  # fmt: skip


def check_in_slot_order(profile, request, value_name, order) -> None:
    step = all_steps(profile, request)
    if step is None or request.n < 2:
        return
    value, falls = VALUES[value_name]
    count = request.n - 1
    expected = reference_in_slot_order(step, count, value, *order)
    got = best_offered(
        lambda c: choose_in_slot_order(step, count, value, c, *order, falls_with_start=falls)
    )
    assert as_reference(got) == expected


@settings(max_examples=examples(80), deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(list(VALUES)), st.sampled_from(ORDERS))
def test_the_first_members_in_slot_order_against_a_row_by_row_loop(seed, value_name, order):
    profile, request = random_instance(seed)
    check_in_slot_order(profile, request, value_name, order)


@settings(max_examples=examples(80), deadline=None)
@given(test_window_ties.tied_instances(), st.sampled_from(list(VALUES)), st.sampled_from(ORDERS))
def test_the_first_members_in_slot_order_with_many_equal_starts(instance, value_name, order):
    profile, request = instance
    check_in_slot_order(profile, request, value_name, order)


@settings(max_examples=examples(40), deadline=None)
@given(test_window_ties.tied_instances(), st.sampled_from(ORDERS))
def test_bfstart_s_readings_choose_as_the_loop_does(instance, order):
    profile, request = instance
    step = all_steps(profile, request)
    if step is None or request.n < 2:
        return
    equal_starts, ties = order
    criterion = BFstart(equal_starts=equal_starts, ties=ties)
    expected = reference_in_slot_order(step, request.n - 1, criterion.value, *order)
    got = best_offered(lambda c: criterion.choose(step, request.n - 1, c))
    assert as_reference(got) == expected


class LatestStart(InSlotOrder, FirstFit):
    """Slots in order, the latest start: a value the search may not assume falls with it."""

    def value(self, start, runtime):
        return latest_start(start, runtime)


@settings(max_examples=examples(40), deadline=None)
@given(test_window_ties.tied_instances())
def test_in_slot_order_takes_slots_in_node_order_and_the_faster_sigma_by_default(instance):
    profile, request = instance
    step = all_steps(profile, request)
    if step is None or request.n < 2:
        return
    for criterion in (build_criterion("BFfinish"), LatestStart()):
        expected = reference_in_slot_order(step, request.n - 1, criterion.value)
        got = best_offered(lambda c, criterion=criterion: criterion.choose(step, request.n - 1, c))
        assert as_reference(got) == expected


#: All free from 0: node 3 (performance 3) is the slowest; before it in the slot list are
#: nodes of performance 4, 5 and 3.5, so which joins it depends on ``equal_starts``.
EQUAL_STARTS = (Node(0, 4.0, 1.0), Node(1, 5.0, 1.0), Node(2, 3.5, 1.0), Node(3, 3.0, 1.0))


@pytest.mark.parametrize(("equal_starts", "partner"), [("node", 0), ("fastest", 1), ("slowest", 2)])
def test_bfstart_s_equal_starts_picks_which_slot_joins_the_slowest(equal_starts, partner):
    """All windows start at 0; ``ties: slowest`` keeps node 3 as the slowest node."""
    criterion = BFstart(ties="slowest", equal_starts=equal_starts)
    window = criterion.search(Profile(EQUAL_STARTS), Request(n=2, volume=12.0))
    assert (window.start, window.nodes) == (0.0, tuple(sorted((partner, 3))))
    assert window.runtime == 4.0


def test_bfstart_s_ties_pick_the_faster_or_the_slower_slowest_node():
    profile = Profile(EQUAL_STARTS)
    fastest = BFstart().search(profile, Request(n=2, volume=12.0))
    assert (fastest.nodes, fastest.runtime) == ((0, 1), 3.0)
    slowest = BFstart(ties="slowest").search(profile, Request(n=2, volume=12.0))
    assert (slowest.nodes, slowest.runtime) == ((0, 3), 4.0)


def test_bfstart_s_ties_hold_for_a_one_node_request_too():
    # Nodes of performance 4 and 2, both free from 0: the same start on either.
    nodes = (Node(0, 4.0, 1.0), Node(1, 2.0, 1.0))
    profile = Profile(nodes, [[], []])
    request = Request(n=1, volume=8.0)
    assert BFstart().search(profile, request).nodes == (0,)
    slowest = BFstart(ties="slowest").search(profile, request)
    assert (slowest.nodes, slowest.start, slowest.runtime) == ((1,), 0.0, 4.0)


def test_bfstart_start_of_slot_takes_the_slots_free_longest():
    # Free from 0, 5 and 3; every window can start at 10.
    nodes = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0), Node(2, 1.0, 1.0))
    profile = Profile(nodes, [[], [(0.0, 5.0)], [(0.0, 3.0)]])
    request = Request(n=2, volume=4.0, earliest_start=10.0)
    window = BFstart(start_of="slot").search(profile, request)
    assert (window.start, window.nodes) == (10.0, (0, 2))
    assert window.criterion_value == -3.0  # minus the slots' starts, 0 and 3
    assert BFstart().search(profile, request).nodes == (0, 1)


def test_bfshort_searches_for_the_runtime_cut_by_its_factor():
    profile = Profile((Node(0, 2.0, 1.0), Node(1, 4.0, 1.0)))
    window = BFshort(runtime_factor=0.75).search(profile, Request(n=2, volume=8.0))
    assert window.runtime == 3.0  # 0.75 * 8 on the slower node, of performance 2
    assert BFshort().search(profile, Request(n=2, volume=8.0)).runtime == 0.99 * 8.0 / 2.0


@pytest.mark.parametrize("factor", [0.0, -0.5, 1.0 + 1e-9, 2.0])
def test_bfshort_refuses_a_factor_outside_zero_to_one(factor):
    with pytest.raises(ValueError) as raised:
        BFshort(runtime_factor=factor)
    assert str(raised.value) == f"runtime_factor must be in (0, 1], got {factor}"


def test_bfshort_accepts_a_factor_of_one_and_tiny_ones():
    assert BFshort(runtime_factor=1.0).runtime_factor == 1.0
    assert BFshort(runtime_factor=1e-9).runtime_factor == 1e-9


# -- PAST and CoP parameters -----------------------------------------------------------------


@pytest.mark.parametrize("rule", [PAST, CoP])
@pytest.mark.parametrize("field_name", ["alpha1", "alpha2", "delta1", "delta2"])
def test_a_negative_weight_is_refused_naming_it(rule, field_name):
    with pytest.raises(ValueError) as raised:
        rule(**{field_name: -0.5})
    assert str(raised.value) == f"{field_name} must be >= 0, got -0.5"
    assert getattr(rule(**{field_name: 0.0}), field_name) == 0.0


@pytest.mark.parametrize(
    "epsilons", [(0.0, 0.0, 0.0), (0.2, 0.2, 0.2), (1.0, 1.0, 1.0), (0.0, 0.5, 1.0)]
)
def test_epsilons_may_be_equal_and_reach_zero_and_one(epsilons):
    e1, e2, e3 = epsilons
    assert (CoP(epsilon1=e1, epsilon2=e2, epsilon3=e3).epsilon3) == e3


@pytest.mark.parametrize(
    "epsilons", [(-0.1, 0.2, 0.3), (0.3, 0.2, 0.4), (0.1, 0.4, 0.3), (0.1, 0.2, 1.5)]
)
def test_epsilons_out_of_order_or_range_are_refused(epsilons):
    e1, e2, e3 = epsilons
    with pytest.raises(ValueError) as raised:
        CoP(epsilon1=e1, epsilon2=e2, epsilon3=e3)
    assert str(raised.value) == (
        f"expected 0 <= epsilon1 <= epsilon2 <= epsilon3 <= 1, got {e1}, {e2}, {e3}"
    )


def test_past_s_rule2_reading_is_checked():
    with pytest.raises(ValueError) as raised:
        PAST(rule2="as_guessed")
    assert str(raised.value) == "rule2 must be one of as_printed, as_described; got 'as_guessed'"


# -- slot values by hand ---------------------------------------------------------------------

#: CoP's thresholds at runtime 8: tight below 1, awkward between 2 and 4, roomy above 8.
BINARY = {"epsilon1": 0.125, "epsilon2": 0.25, "epsilon3": 0.5, "delta1": 1.0, "delta2": 0.5}


def past_value(rule, slot_start, slot_end, start, runtime, performance):
    values = rule.slot_values(
        np.array([slot_start]), np.array([slot_end]), None, None, start, runtime,
        np.array([performance]),
    )  # fmt: skip
    return float(values[0])


def test_past_slot_values_by_hand():
    past = PAST(alpha1=0.5, alpha2=0.25, delta1=2.0)
    # A slot [0, 20) holding [4, 12) at performance 2: gaps of 4 and 8.
    assert past_value(past, 0.0, 20.0, 4.0, 8.0, 2.0) == -12.0 - 1.0 - 0.25 * 8
    # No gap on the left: one adjacency bonus.
    assert past_value(past, 4.0, 20.0, 4.0, 8.0, 2.0) == -12.0 - 1.0 + 2.0 - 0.25 * 8
    # No gap on the right: the other bonus, and no penalty.
    assert past_value(past, 0.0, 12.0, 4.0, 8.0, 2.0) == -12.0 - 1.0 + 2.0
    # An open tail: no penalty, no right bonus.
    assert past_value(past, 4.0, np.inf, 4.0, 8.0, 2.0) == -12.0 - 1.0 + 2.0
    described = PAST(alpha1=0.5, alpha2=0.25, delta1=2.0, rule2="as_described")
    assert past_value(described, 0.0, 20.0, 4.0, 8.0, 2.0) == -12.0 - 1.0 + 0.25 * 8
    assert past_value(described, 0.0, np.inf, 4.0, 8.0, 2.0) == -12.0 - 1.0


def test_past_s_adjacency_includes_a_gap_of_exactly_adjacent():
    past = PAST(alpha1=0.0, alpha2=0.0, delta1=1.0)
    # Times around 0, so that the gaps are exactly ADJACENT (and twice it).
    assert past_value(past, -ADJACENT, 1.0, 0.0, 0.5, 1.0) == -0.5 + 1.0
    assert past_value(past, -2 * ADJACENT, 1.0, 0.0, 0.5, 1.0) == -0.5
    assert past_value(past, -1.0, ADJACENT, -1.0, 1.0, 1.0) == 0.0 + 2.0
    assert past_value(past, -1.0, 2 * ADJACENT, -1.0, 1.0, 1.0) == 0.0 + 1.0


def cop_side(distance, runtime=8.0, **changes):
    return float(CoP(**{**BINARY, **changes})._side(np.array([distance]), runtime)[0])


@pytest.mark.parametrize(
    ("distance", "expected"),
    [(0.0, 1.0), (0.5, 1.0), (1.0, 0.0), (1.5, 0.0), (2.0, 0.0), (3.0, -1.0), (4.0, 0.0),
     (6.0, 0.0), (8.0, 0.0), (9.0, 0.5), (np.inf, 0.5)],
)  # fmt: skip
def test_cop_side_by_hand_with_every_threshold_strict(distance, expected):
    assert cop_side(distance) == expected


def test_cop_slot_values_add_both_sides_to_the_finish_and_performance():
    cop = CoP(alpha1=0.5, **BINARY)
    # Slot [0, 30) holding [3, 11): left 3 (awkward), right 19 (roomy).
    values = cop.slot_values(np.array([0.0]), np.array([30.0]), None, None, 3.0, 8.0,
                             np.array([2.0]))  # fmt: skip
    assert float(values[0]) == -11.0 - 1.0 - 1.0 + 0.5


# -- slot bounds -----------------------------------------------------------------------------


def side_best(rule, low, high, runtime):
    """The best of CoP's side over ``[low, high]``: the rule is constant between its
    thresholds, so its ends, the thresholds and their neighbours inside cover every piece."""
    cuts = [rule.epsilon1 * runtime, rule.epsilon2 * runtime, rule.epsilon3 * runtime, runtime]
    points = {low, high}
    for cut in cuts:
        points.update([*np.nextafter(cut, [-np.inf, np.inf]).tolist(), cut])
    inside = np.array(sorted(p for p in points if low <= p <= high))
    return float(rule._side(inside, runtime).max())


GRID = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 8.0, 9.0, np.inf]


@pytest.mark.parametrize("runtime", [8.0, 2.0])
def test_cop_side_bound_is_the_exact_best_over_every_interval(runtime):
    rule = CoP(**BINARY)
    scale = runtime / 8.0
    for low, high in itertools.combinations_with_replacement(GRID, 2):
        low, high = low * scale, high * scale
        bound = float(rule._side_bound(np.array([low]), np.array([high]), runtime)[0])
        assert bound == side_best(rule, low, high, runtime), (low, high)


@settings(max_examples=examples(100))
@given(
    st.floats(0, 50), st.floats(0, 50), st.floats(0.5, 20),
    st.lists(st.floats(0, 1), min_size=3, max_size=3).map(sorted),
    st.floats(0, 3), st.floats(0, 3),
)  # fmt: skip
def test_cop_side_bound_is_the_exact_best_at_any_thresholds(a, b, runtime, eps, d1, d2):
    rule = CoP(epsilon1=eps[0], epsilon2=eps[1], epsilon3=eps[2], delta1=d1, delta2=d2)
    low, high = min(a, b), max(a, b)
    bound = float(rule._side_bound(np.array([low]), np.array([high]), runtime)[0])
    assert bound == side_best(rule, low, high, runtime)


def random_slots(rng, count=40):
    """Slots long enough for a task of runtime 8 from any start up to 3 past their start (or
    3 before their end)."""
    start = rng.uniform(0, 50, count).round(1)
    end = start + 11.0 + rng.uniform(0, 60, count).round(1)
    end[rng.random(count) < 0.2] = np.inf
    performance = rng.uniform(1, 5, count)
    return start, end, performance


RULES = [
    _OWN_SLOT_START,
    PAST(),
    PAST(rule2="as_described"),
    PAST(alpha2=0.5, delta1=3.0),
    CoP(),
    CoP(**BINARY),
    CoP(delta2=2.0, epsilon1=0.1, epsilon2=0.1, epsilon3=0.9),
]


@pytest.mark.parametrize("rule", RULES, ids=repr)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_slot_bound_at_a_single_start_is_the_slot_s_value(rule, seed):
    rng = np.random.default_rng(seed)
    slot_start, slot_end, performance = random_slots(rng)
    runtime = rng.choice([4.0, 8.0], len(slot_start))
    # Starts on and near the slot's start and (finite) end, where the rules change.
    offsets = rng.choice([0.0, ADJACENT, 0.5, 1.0, 2.0, 3.0], len(slot_start))
    start = np.where(rng.random(len(slot_start)) < 0.5, slot_start + offsets, slot_start)
    near_end = np.isfinite(slot_end) & (rng.random(len(slot_start)) < 0.5)
    start = np.where(near_end, np.maximum(slot_end - runtime - offsets, slot_start), start)
    value = rule.slot_values(slot_start, slot_end, None, None, start, runtime, performance)
    bound = rule.slot_value_bound(slot_start, slot_end, None, None, runtime, start, start,
                                  performance)  # fmt: skip
    np.testing.assert_allclose(bound, value, rtol=0, atol=1e-9)


@pytest.mark.parametrize("rule", RULES, ids=repr)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_slot_bound_is_never_below_the_slot_s_value_at_any_start_it_covers(rule, seed):
    rng = np.random.default_rng(seed)
    slot_start, slot_end, performance = random_slots(rng)
    runtime = np.full(len(slot_start), 4.0)
    lo = slot_start + rng.choice([0.0, 1.0, 5.0], len(slot_start))
    hi = lo + rng.choice([0.0, 0.5, 3.0, 10.0], len(slot_start))
    hi = np.minimum(hi, slot_end - runtime)  # the task fits the slot from every start
    bound = rule.slot_value_bound(slot_start, slot_end, None, None, runtime, lo, hi, performance)
    for start in np.linspace(lo, hi, 41):  # every 1/40th of each range
        value = rule.slot_values(slot_start, slot_end, None, None, start, runtime, performance)
        assert (value <= bound + 1e-9).all()


def test_past_s_bound_by_hand_over_a_range_of_starts():
    past = PAST(alpha1=0.5, alpha2=0.25, delta1=2.0)
    # Slot [0, 20), runtime 8, starts in [0, 4]: finish at least 8; left from 0 (adjacent);
    # right from 8 (at start 4) to 12: the penalty is smallest at 8.
    bound = past.slot_value_bound(np.array([0.0]), np.array([20.0]), None, None,
                                  np.array([8.0]), 0.0, 4.0, np.array([2.0]))  # fmt: skip
    assert float(bound[0]) == -8.0 - 1.0 + 2.0 - 0.25 * 8
    described = PAST(alpha1=0.5, alpha2=0.25, delta1=2.0, rule2="as_described")
    bound = described.slot_value_bound(np.array([0.0]), np.array([20.0]), None, None,
                                       np.array([8.0]), 0.0, 4.0, np.array([2.0]))  # fmt: skip
    assert float(bound[0]) == -8.0 - 1.0 + 2.0 + 0.25 * 12
    # On an open tail neither reading adds or subtracts anything for the right side.
    for rule in (past, described):
        tail = rule.slot_value_bound(np.array([0.0]), np.array([np.inf]), None, None,
                                     np.array([8.0]), 0.0, 4.0, np.array([2.0]))  # fmt: skip
        assert float(tail[0]) == -8.0 - 1.0 + 2.0


def test_the_distance_ranges_over_a_range_of_starts():
    (left, right) = CoP._distance_ranges(
        np.array([2.0, 2.0]), np.array([30.0, np.inf]), np.array([8.0, 8.0]), 5.0, 7.0
    )
    np.testing.assert_array_equal(left[0], [3.0, 3.0])
    np.testing.assert_array_equal(left[1], [5.0, 5.0])
    np.testing.assert_array_equal(right[0], [15.0, np.inf])
    np.testing.assert_array_equal(right[1], [17.0, np.inf])


def test_window_bounds_add_the_bonus_of_each_reading():
    # n slots, each at most its base at the slowest node plus the rule's largest amendment.
    base = -(10.0 + 4.0) - 0.1 * 2.0
    assert PAST(delta1=1.5).window_value_bound(10.0, 4.0, 2.0, 3) == 3 * (base + 3.0)
    assert PAST(rule2="as_described").window_value_bound(10.0, 4.0, 2.0, 3) is None
    assert CoP(delta1=1.0, delta2=2.5).window_value_bound(10.0, 4.0, 2.0, 3) == 3 * (base + 5.0)
    assert CoP(delta1=3.0, delta2=2.5).window_value_bound(10.0, 4.0, 2.0, 3) == 3 * (base + 6.0)


@pytest.mark.parametrize(
    ("field_name", "value", "allowed"),
    [("start_of", "node", "window, slot"), ("ties", "random", "fastest, slowest"),
     ("equal_starts", "price", "node, fastest, slowest")],
)  # fmt: skip
def test_bfstart_names_the_reading_it_does_not_know(field_name, value, allowed):
    with pytest.raises(ValueError) as raised:
        BFstart(**{field_name: value})
    assert str(raised.value) == f"{field_name} must be one of {allowed}; got {value!r}"


def test_bfstart_knows_each_reading_and_start_of_slot_only_with_the_defaults():
    for equal_starts in ("node", "fastest", "slowest"):
        for ties in ("fastest", "slowest"):
            assert BFstart(ties=ties, equal_starts=equal_starts).start_of == "window"
    assert BFstart(start_of="slot").start_of == "slot"
    for changes in ({"ties": "slowest"}, {"equal_starts": "fastest"}):
        with pytest.raises(ValueError) as raised:
            BFstart(start_of="slot", **changes)
        assert str(raised.value) == (
            "start_of=slot chooses slots by their start: ties and equal_starts apply to "
            "start_of=window only"
        )


def test_a_one_node_request_takes_the_earliest_start_or_finish():
    # Node 0 is free from 10, node 1 from 0 but slower: it starts first, node 0 finishes first.
    nodes = (Node(0, 4.0, 1.0), Node(1, 1.0, 1.0))
    profile = Profile(nodes, [[(0.0, 10.0)], []])
    request = Request(n=1, volume=16.0)
    first = BFstart().search(profile, request)
    assert (first.nodes, first.start, first.runtime, first.criterion_value) == ((1,), 0, 16, 0)
    soonest = build_criterion("BFfinish").search(profile, request)
    assert (soonest.nodes, soonest.start, soonest.runtime) == ((0,), 10.0, 4.0)
    assert soonest.criterion_value == -14.0


#: Node 2 (performance 1) is the slowest; nodes 0 and 1 join it, node 0 first in slot order
#: and dearer: with node 2 for 2 time units, node 0 costs 6 and node 1 costs 4.
PRICED = (Node(0, 2.0, 3.0), Node(1, 2.0, 2.0), Node(2, 1.0, 1.0))


def test_slots_in_order_are_taken_while_they_fit_the_budget_exactly():
    criterion = BFstart(ties="slowest")  # the window with node 2, not the faster ones
    exact = criterion.search(Profile(PRICED), Request(n=2, volume=2.0, budget=8.0))
    assert (exact.nodes, exact.cost) == ((0, 2), 8.0)
    cheaper = criterion.search(Profile(PRICED), Request(n=2, volume=2.0, budget=7.5))
    assert (cheaper.nodes, cheaper.cost) == ((1, 2), 6.0)


#: Node 3 (performance 3) is free from 10, nodes of performance 4, 5 and 3.5 from 0: the only
#: window starting at 10 has node 3 as its slowest node, and all three others may join it.
LATE_SLOWEST = Profile(EQUAL_STARTS, [[], [], [], [(0.0, 10.0)]])


@pytest.mark.parametrize(("equal_starts", "partner"), [("node", 0), ("fastest", 1), ("slowest", 2)])
def test_the_latest_start_takes_the_slots_that_start_together_in_the_order_asked(
    equal_starts, partner
):
    step = all_steps(LATE_SLOWEST, Request(n=2, volume=12.0))
    for ties in ("fastest", "slowest"):
        choice = best_offered(
            lambda c, ties=ties: choose_in_slot_order(step, 1, latest_start, c, equal_starts, ties)
        )
        assert (choice.start, choice.sigma, choice.others) == (10.0, 3, (partner,))


def test_slots_in_order_default_to_node_order_and_use_every_row_with_enough_members():
    two = LatestStart().search(LATE_SLOWEST, Request(n=2, volume=12.0))
    assert (two.start, two.nodes) == (10.0, (0, 3))
    # Four nodes: the row at 10 has exactly the three members it needs.
    four = LatestStart().search(LATE_SLOWEST, Request(n=4, volume=12.0))
    assert (four.start, four.nodes) == (10.0, (0, 1, 2, 3))


def test_past_s_bound_counts_a_gap_of_exactly_adjacent_as_adjacent():
    past = PAST(alpha1=0.0, alpha2=0.0, delta1=1.0)
    runtime = 2.0**-24  # times around 0, so that the gaps below are exactly ADJACENT

    def bound(slot_start, slot_end, start):
        slot = (np.array([slot_start]), np.array([slot_end]), None, None, np.array([runtime]))
        return float(past.slot_value_bound(*slot, start, start, np.array([1.0]))[0])

    assert bound(-ADJACENT, 1.0, 0.0) == -runtime + 1.0
    assert bound(-2 * ADJACENT, 1.0, 0.0) == -runtime
    assert bound(-1.0, ADJACENT, -runtime) == 0.0 + 1.0
    assert bound(-1.0, 2 * ADJACENT, -runtime) == 0.0


@pytest.mark.parametrize("order", ORDERS)
def test_no_window_where_no_slot_can_join_the_slowest(order):
    # Node 0 is free over [0, 1) only: too short for any task, so node 1 has no partner.
    nodes = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0))
    profile = Profile(nodes, [[(1.0, 50.0)], []], 0.0, 50.0)
    step = all_steps(profile, Request(n=2, volume=10.0, budget=100.0))
    assert len(step.columns) == 1  # node 1's slot alone
    assert (
        best_offered(lambda c: choose_in_slot_order(step, 1, FirstFit().value, c, *order)) is None
    )


def test_the_first_slots_in_order_are_kept_over_cheaper_ones_while_they_fit():
    # Node 3 (performance 1) is the slowest; in slot order nodes 0 and 1 join it, though
    # node 2 is cheaper than node 1. Node 0 is the cheapest slot of all.
    nodes = (Node(0, 2.0, 1.0), Node(1, 2.0, 3.0), Node(2, 2.0, 2.0), Node(3, 1.0, 5.0))
    criterion = BFstart(ties="slowest")
    first = criterion.search(Profile(nodes), Request(n=3, volume=2.0, budget=18.0))
    assert (first.nodes, first.cost) == ((0, 1, 3), 18.0)
    cheaper = criterion.search(Profile(nodes), Request(n=3, volume=2.0, budget=17.0))
    assert (cheaper.nodes, cheaper.cost) == ((0, 2, 3), 16.0)
