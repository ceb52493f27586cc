"""The guard around plugin criteria (gridsim.selection.guard), one check at a time.

Each test hands ``window_problem`` a window that breaks exactly one rule of a feasible window
(and one just inside the rule's tolerance, which must pass), and reads the message whole; a
scripted plugin shows what ``GuardedCriterion`` passes on, stops or names.
"""

from __future__ import annotations

import pickle
from dataclasses import replace

import pytest

from gridsim.model import Node, Request, Slot, Window
from gridsim.plugins import PluginError
from gridsim.profile import Profile
from gridsim.selection.guard import RELATIVE_TOLERANCE, GuardedCriterion, window_problem

#: Node 0 is busy over [10, 20), node 1 over [30, 40); node 2 is free throughout.
NODES = (Node(0, 1.0, 2.0), Node(1, 2.0, 1.0), Node(2, 4.0, 3.0))
BUSY = ([(10.0, 20.0)], [(30.0, 40.0)], [])
#: Two nodes at least as fast as 1, volume 10, budget 100, from time 0.
REQUEST = Request(n=2, volume=10.0, budget=100.0, min_performance=1.0, earliest_start=0.0)


def profile() -> Profile:
    return Profile(NODES, BUSY)


def window(start: float, runtime: float, *nodes: int, cost: float | None = None) -> Window:
    """A window on ``nodes`` costing what their prices say, with the slots holding it."""
    if cost is None:
        cost = sum(runtime * NODES[i].price for i in nodes)
    free = profile()
    slots = tuple(
        free.enclosing_slot(i, start, start + runtime)
        if free.is_free(i, start, start + runtime)
        else Slot(i, start, start + runtime)
        for i in nodes
    )
    return Window(start, runtime, nodes, slots, cost)


#: Nodes 1 and 2 from time 0: the slowest runs at 2, so 5 time units, costing 5 * (1 + 3).
FEASIBLE = window(0.0, 5.0, 1, 2)


def problem(candidate, request=REQUEST, check_slots=True):
    return window_problem(candidate, profile(), request, check_slots=check_slots)


def test_a_feasible_window_has_no_problem_with_or_without_its_slots_checked():
    assert FEASIBLE.cost == 20.0
    assert FEASIBLE.slots == (Slot(1, 0.0, 30.0), Slot(2, 0.0, float("inf")))
    assert problem(FEASIBLE) is None
    assert problem(FEASIBLE, check_slots=False) is None


def test_the_slots_are_checked_unless_asked_not_to_be():
    wrong_slots = replace(FEASIBLE, slots=(Slot(1, 0.0, 5.0), Slot(2, 0.0, 5.0)))
    assert window_problem(wrong_slots, profile(), REQUEST) is not None
    assert window_problem(wrong_slots, profile(), REQUEST, check_slots=False) is None


def test_something_other_than_a_window_is_named_by_its_type():
    assert problem((0.0, 5.0, (1, 2))) == "expected a Window or None, got tuple"


def test_a_window_of_another_size_than_the_request_is_refused():
    assert problem(window(0.0, 5.0, 2)) == "it has 1 nodes, the request needs 2"
    assert problem(window(0.0, 5.0, 0, 1, 2)) == "it has 3 nodes, the request needs 2"


def test_a_node_used_twice_is_named():
    three = replace(REQUEST, n=3)
    assert problem(window(0.0, 5.0, 2, 1, 2), three) == "node 2 is used twice"
    assert problem(window(0.0, 5.0, 1, 2, 2), three) == "node 2 is used twice"


@pytest.mark.parametrize("node", [-1, 3, 7])
def test_a_node_that_does_not_exist_is_named(node):
    candidate = replace(FEASIBLE, nodes=(1, node))
    assert problem(candidate) == f"node {node} does not exist (nodes are 0..2)"


def test_node_zero_and_the_last_node_exist():
    assert problem(window(0.0, 10.0, 0, 2)) is None
    assert problem(window(0.0, 10.0, 2, 0)) is None


def test_a_start_before_the_earliest_start_is_refused_beyond_a_billionth():
    request = replace(REQUEST, earliest_start=1000.0)
    slack = RELATIVE_TOLERANCE * 1005.0  # of the finish, the larger time
    assert problem(window(1000.0 - 0.5 * slack, 5.0, 1, 2), request) is None
    assert problem(window(1000.0 - 2 * slack, 5.0, 1, 2), request) == (
        "it starts at 999.999998, before the earliest start 1000"
    )
    assert problem(window(999.0, 5.0, 1, 2), request) == (
        "it starts at 999, before the earliest start 1000"
    )


def test_the_start_slack_is_a_billionth_of_one_for_times_below_one():
    request = replace(REQUEST, earliest_start=0.5)
    # max(1, |start|, |finish|) = 1 for a window that ends before 1.
    short = replace(REQUEST, volume=0.2, earliest_start=0.5)
    assert problem(window(0.5 - 0.5e-9, 0.1, 1, 2), short) is None
    assert problem(window(0.5 - 2e-9, 0.1, 1, 2), short) is not None
    assert problem(window(0.4, 5.0, 1, 2), request) is not None


def test_the_start_slack_grows_with_the_larger_of_start_and_finish():
    # Times below zero (a horizon may start anywhere): |start| is then the larger, four times
    # |finish| here.
    early = Profile(NODES, horizon_start=-3e6)
    request = replace(REQUEST, earliest_start=-2e6, budget=float("inf"))
    slack = RELATIVE_TOLERANCE * 2e6
    runtime = 1.5e6
    ok = Window(-2e6 - 0.5 * slack, runtime, (1, 2), (), 4 * runtime)
    late = Window(-2e6 - 2 * slack, runtime, (1, 2), (), 4 * runtime)
    assert window_problem(ok, early, request, check_slots=False) is None
    assert window_problem(late, early, request, check_slots=False) is not None
    # Times below one: the slack is a billionth of one, not of the finish.
    short = replace(REQUEST, volume=0.2)  # 0.1 on node 1
    assert problem(window(-0.5e-9, 0.1, 1, 2), short, check_slots=False) is None
    assert problem(window(-2e-9, 0.1, 1, 2), short, check_slots=False) is not None


#: Free nodes (price 0) over [-1, 0) only, so that times and money near 0 are exact: a
#: window's slack is then exactly RELATIVE_TOLERANCE.
FREE_NODES = (Node(0, 1.0, 0.0), Node(1, 2.0, 0.0))
BEFORE_ZERO = Profile(FREE_NODES, [[(0.0, 10.0)], [(0.0, 10.0)]], horizon_start=-1.0)
TENTH = Request(n=2, volume=0.1, budget=0.0, earliest_start=-0.5)  # 0.1 on node 0


def test_each_tolerance_includes_its_bound():
    slots = (Slot(0, -1.0, 0.0), Slot(1, -1.0, 0.0))
    exact = Window(-0.5, 0.1, (0, 1), slots, 0.0)
    tol = RELATIVE_TOLERANCE
    assert window_problem(exact, BEFORE_ZERO, TENTH) is None  # costing 0 fits a budget of 0
    at_bounds = [
        replace(exact, start=-0.5 - tol),  # before the earliest start by exactly the slack
        replace(exact, runtime=0.1 * (1 - tol)),  # shorter by exactly the tolerance
        replace(exact, cost=tol),  # a reported cost off by exactly the tolerance (of 1)
        replace(exact, slots=(Slot(0, -1.0, tol), slots[1])),  # a slot ending a slack late
        replace(exact, start=-0.2, slots=(slots[0], Slot(1, -1.0, -tol))),  # or early
    ]
    for candidate in at_bounds:
        assert window_problem(candidate, BEFORE_ZERO, TENTH) is None, candidate
    early_slot = replace(exact, start=0.3, slots=(Slot(0, tol, 1.0), Slot(1, 0.0, 1.0)))
    free_later = Profile(FREE_NODES, [[(1.0, 10.0)], [(1.0, 10.0)]])
    assert window_problem(early_slot, free_later, replace(TENTH, earliest_start=0.0)) is None


def test_a_node_slower_than_the_minimum_is_named_with_its_performance():
    request = replace(REQUEST, min_performance=2.0)
    assert problem(window(0.0, 10.0, 2, 0), request) == (
        "node 0 has performance 1, below the minimum 2"
    )
    assert problem(window(0.0, 5.0, 2, 1), request) is None  # exactly the minimum


def test_a_runtime_shorter_than_the_slowest_node_needs_is_refused_beyond_a_billionth():
    assert problem(window(0.0, 5.0 * (1 - 0.5e-9), 1, 2)) is None
    assert problem(window(0.0, 5.0 * (1 - 2e-9), 1, 2)) == (
        "its runtime 4.99999999 is shorter than the volume needs on its slowest node 1 (5)"
    )
    # Node 0 (performance 1) is the slowest here, wherever it is listed.
    assert problem(window(0.0, 5.0, 2, 0)) == (
        "its runtime 5 is shorter than the volume needs on its slowest node 0 (10)"
    )


def test_a_cost_other_than_the_nodes_prices_give_is_refused_beyond_a_billionth():
    assert problem(replace(FEASIBLE, cost=20.0 * (1 + 0.5e-9))) is None
    assert problem(replace(FEASIBLE, cost=20.0 * (1 + 2e-9))) == (
        "it reports cost 20, its nodes' prices give 20"
    )
    assert problem(replace(FEASIBLE, cost=19.0)) == (
        "it reports cost 19, its nodes' prices give 20"
    )
    assert problem(replace(FEASIBLE, cost=21.0)) == (
        "it reports cost 21, its nodes' prices give 20"
    )


def test_the_cost_tolerance_is_a_billionth_of_one_for_costs_below_one():
    cheap = (Node(0, 1.0, 0.001), Node(1, 1.0, 0.001))
    free = Profile(cheap)
    request = Request(n=2, volume=1.0)
    cost = 2 * 0.001  # under 1: the tolerance is 1e-9, not a billionth of the cost
    near = Window(0.0, 1.0, (0, 1), (Slot(0, 0.0, float("inf")), Slot(1, 0.0, float("inf"))),
                  cost + 0.5e-9)  # fmt: skip
    assert window_problem(near, free, request) is None
    assert window_problem(replace(near, cost=cost + 2e-9), free, request) is not None


def test_a_window_over_the_budget_is_refused_beyond_a_billionth():
    assert problem(FEASIBLE, replace(REQUEST, budget=20.0 * (1 - 0.5e-9))) is None
    assert problem(FEASIBLE, replace(REQUEST, budget=20.0)) is None
    assert problem(FEASIBLE, replace(REQUEST, budget=20.0 * (1 - 2e-9))) == (
        "it costs 20, over the budget 20"
    )
    assert problem(FEASIBLE, replace(REQUEST, budget=19.0)) == "it costs 20, over the budget 19"


def test_without_slots_checked_a_node_must_be_free_over_the_window():
    # Node 0 is busy over [10, 20): a window over [5, 15) overlaps it.
    overlapping = window(5.0, 10.0, 2, 0)
    assert problem(overlapping, check_slots=False) == "node 0 is not free over [5, 15)"
    # Ending where the reservation starts, or starting where it ends, is free.
    assert problem(window(0.0, 10.0, 2, 0), check_slots=False) is None
    assert problem(window(20.0, 10.0, 0, 2), check_slots=False) is None
    # Overlapping it by less than the slack is float dust, not an overlap.
    dust = 0.5 * RELATIVE_TOLERANCE * 20.0
    assert problem(window(dust, 10.0, 0, 2), check_slots=False) is None
    assert problem(window(20.0 - dust, 10.0, 0, 2), check_slots=False) is None
    # The slots are not read then: a window without any passes.
    assert problem(replace(FEASIBLE, slots=()), check_slots=False) is None


def test_the_free_check_names_the_first_busy_node_in_the_window_s_order():
    both_busy = window(12.0, 20.0, 0, 1)
    request = replace(REQUEST, min_performance=0.0, volume=20.0)
    assert problem(both_busy, request, check_slots=False) == "node 0 is not free over [12, 32)"
    assert problem(replace(both_busy, nodes=(1, 0)), request, check_slots=False) == (
        "node 1 is not free over [12, 32)"
    )


def test_slots_that_do_not_match_the_nodes_are_refused():
    missing = replace(FEASIBLE, slots=FEASIBLE.slots[:1])
    assert problem(missing) == f"its slots {missing.slots} do not match its nodes (1, 2)"
    other_node = replace(FEASIBLE, slots=(FEASIBLE.slots[0], Slot(0, 0.0, 10.0)))
    assert problem(other_node) == f"its slots {other_node.slots} do not match its nodes (1, 2)"
    twice = replace(FEASIBLE, slots=(FEASIBLE.slots[0], FEASIBLE.slots[0]))
    assert problem(twice).startswith("its slots ")


def test_with_slots_checked_a_node_must_be_free_over_the_window():
    overlapping = window(5.0, 10.0, 2, 0)
    assert problem(overlapping) == "node 0 is not free over [5, 15)"
    dust = 0.5 * RELATIVE_TOLERANCE * 20.0
    open_tail = Slot(2, 0.0, float("inf"))
    before = replace(window(dust, 10.0, 0, 2), slots=(Slot(0, 0.0, 10.0), open_tail))
    after = replace(window(20.0 - dust, 10.0, 0, 2), slots=(Slot(0, 20.0, float("inf")), open_tail))
    assert problem(before) is None
    assert problem(after) is None


def test_a_slot_other_than_the_free_slot_holding_the_task_is_named():
    # Node 1 is free over [0, 30): a slot cut to the task is not that slot.
    cut = replace(FEASIBLE, slots=(Slot(1, 0.0, 5.0), FEASIBLE.slots[1]))
    assert problem(cut) == (
        "its slot of node 1 is [0, 5), the free slot holding the task is [0, 30)"
    )
    later = replace(FEASIBLE, slots=(FEASIBLE.slots[0], Slot(2, 1.0, float("inf"))))
    assert problem(later) == (
        "its slot of node 2 is [1, inf), the free slot holding the task is [0, inf)"
    )
    # A slot's ends off by less than the slack are float dust.
    dust = 0.5 * RELATIVE_TOLERANCE * 5.0
    near = replace(FEASIBLE, slots=(Slot(1, dust, 30.0 + dust), FEASIBLE.slots[1]))
    assert problem(near) is None
    far = replace(FEASIBLE, slots=(Slot(1, 0.0, 30.0 + 4 * dust), FEASIBLE.slots[1]))
    assert problem(far) is not None
    far = replace(FEASIBLE, slots=(Slot(1, 4 * dust, 30.0), FEASIBLE.slots[1]))
    assert problem(far) is not None


# -- GuardedCriterion ------------------------------------------------------------------------


class Scripted:
    """A plugin criterion answering every search with ``answer`` (raised if an exception)."""

    runtime_factor = 0.5

    def __init__(self, answer, score=7) -> None:
        self.answer = answer
        self.given = []
        self.scored = score

    def search(self, profile, request):
        self.given.append((profile, request))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def score(self, window, nodes):
        self.given.append((window, nodes))
        if isinstance(self.scored, Exception):
            raise self.scored
        return self.scored


def guarded(answer, score=7) -> GuardedCriterion:
    return GuardedCriterion(Scripted(answer, score), "Scripted", "Scripted(x=1)", "pkg:Scripted")


def test_a_feasible_window_is_passed_on_as_it_is_and_none_as_none():
    free = profile()
    criterion = guarded(FEASIBLE)
    assert criterion.search(free, REQUEST) is FEASIBLE
    assert criterion.inner.given == [(free, REQUEST)]
    assert guarded(None).search(free, REQUEST) is None


def test_an_infeasible_window_stops_the_run_naming_the_plugin_and_the_request():
    request = replace(REQUEST, earliest_start=2.5)
    with pytest.raises(PluginError) as raised:
        guarded(FEASIBLE).search(profile(), request)
    assert str(raised.value) == (
        "policy pkg:Scripted returned an infeasible window for a request of 2 nodes from time "
        "2.5: it starts at 0, before the earliest start 2.5"
    )
    assert raised.value.request is request


def test_an_exception_in_the_plugin_is_one_line_naming_the_plugin_and_the_request():
    error = ValueError("no window\nsecond line")
    with pytest.raises(PluginError) as raised:
        guarded(error).search(profile(), REQUEST)
    assert str(raised.value) == (
        "policy pkg:Scripted raised ValueError: no window for a request of 2 nodes from time 0"
    )
    assert raised.value.__cause__ is error
    assert raised.value.request is REQUEST


def test_a_score_is_a_float_and_its_exception_names_the_plugin():
    criterion = guarded(FEASIBLE, score=7)
    score = criterion.score(FEASIBLE, NODES)
    assert criterion.inner.given == [(FEASIBLE, NODES)]
    assert score == 7.0
    assert type(score) is float
    error = KeyError("gone")
    with pytest.raises(PluginError) as raised:
        guarded(FEASIBLE, score=error).score(FEASIBLE, NODES)
    assert str(raised.value) == "policy pkg:Scripted: score raised KeyError: 'gone'"
    assert raised.value.__cause__ is error


def test_the_plugin_s_attributes_are_read_through_the_guard_and_it_pickles():
    criterion = guarded(None)
    assert criterion.runtime_factor == 0.5
    assert criterion.name == "Scripted"
    assert criterion.label == "Scripted(x=1)"
    with pytest.raises(AttributeError):
        _ = criterion.missing_attribute
    # While unpickling, before ``inner`` is set, asking for it is an AttributeError naming it
    # (not an endless recursion through ``__getattr__``).
    bare = GuardedCriterion.__new__(GuardedCriterion)
    with pytest.raises(AttributeError) as raised:
        _ = bare.inner
    assert str(raised.value) == "inner"
    again = pickle.loads(pickle.dumps(criterion))
    assert again.runtime_factor == 0.5
    assert again.origin == "pkg:Scripted"
    assert again.inner.answer is None
