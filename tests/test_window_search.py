"""The window search against a plain reference of [TY18, Sec. 3.2], and window invariants."""

from __future__ import annotations

import itertools
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance, window_value
from reference_window_search import ALL, reference_search_all

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.energy_criteria import ENERGY_CRITERIA_NAMES
from gridsim.selection.registry import CRITERIA, MultipleBest, build_criterion

INSTANCES = range(40)


@cache
def instance_and_reference(seed: int):
    profile, request = random_instance(seed)
    return profile, request, reference_search_all(profile, request)


#: The job-flow placement criteria of [TY20]; tests/jobflow checks them by enumeration.
JOB_FLOW = {"BFstart", "BFfinish", "BFshort", "PAST", "CoP"}


def test_the_reference_covers_every_single_job_criterion_but_multiple_best():
    # The energy criteria have their own brute force (tests/test_signal_criteria.py).
    assert set(ALL) == set(CRITERIA) - {"MultipleBest"} - JOB_FLOW - ENERGY_CRITERIA_NAMES


def test_the_random_instances_include_found_and_unfound_windows_and_binding_budgets():
    found = [instance_and_reference(seed)[2]["FirstFit"] is not None for seed in INSTANCES]
    assert 10 <= sum(found) < len(found)
    budgets = [instance_and_reference(seed)[1].budget for seed in INSTANCES]
    assert any(b == float("inf") for b in budgets) and any(b < float("inf") for b in budgets)


@pytest.mark.parametrize("name", sorted(ALL))
def test_search_reaches_the_reference_value_of_the_paper_procedure(name):
    criterion = build_criterion(name)
    mismatches = []
    for seed in INSTANCES:
        profile, request, reference = instance_and_reference(seed)
        expected = reference[name]
        window = criterion.search(profile, request)
        if (window is None) != (expected is None):
            mismatches.append((seed, "found" if window else "none", expected and expected.value))
            continue
        if window is None:
            continue
        value = window_value(name, window, profile.nodes)
        if value != pytest.approx(expected.value, rel=1e-9, abs=1e-9):
            mismatches.append((seed, value, expected.value))
        elif window.criterion_value != pytest.approx(value, rel=1e-9, abs=1e-9):
            mismatches.append((seed, "criterion_value", window.criterion_value, value))
        elif name == "MinStart" and window.cost != pytest.approx(expected.cost, rel=1e-9):
            mismatches.append((seed, "MinStart cost", window.cost, expected.cost))
    # (seed, got, expected) of every instance where the search and the reference disagree.
    assert mismatches == []


def test_a_slot_shorter_than_the_task_is_not_a_window_start():
    # [TY18, Sec. 3.2, step 3(c)ii]: a slot shorter than T_k is skipped before it can set
    # W.start. Node 1 (fast) has only slivers, [0, 5) and [40, 41), too short for any task;
    # node 0 is free throughout. The one step of the paper's procedure is start 0 on node 0
    # (T = 20), where L_left = 0, so DEP is 0. Starting at 40, the sliver's start, would give
    # DEP 40, but 40 is not a step of the paper's procedure.
    nodes = (Node(0, 1.0, 1.0), Node(1, 2.0, 2.0))
    profile = Profile(nodes, [[], [(5.0, 40.0), (41.0, 100.0)]], 0.0, 100.0)
    request = Request(n=1, volume=20.0, budget=1000.0)
    reference = reference_search_all(profile, request)["DEP"]
    assert (reference.start, reference.nodes, reference.value) == (0.0, (0,), 0.0)
    window = build_criterion("DEP").search(profile, request)
    assert window is not None
    assert (window.start, window.nodes, window.criterion_value) == (0.0, (0,), 0.0)


# -- invariants -------------------------------------------------------------------------------

POLICIES = [
    *sorted(ALL),
    {"name": "MultipleBest"},
    {"name": "MultipleBest", "target": "MinCost"},
    {"name": "MultipleBest", "target": "DEP"},
]


@pytest.mark.parametrize("spec", POLICIES, ids=lambda s: build_criterion(s).label)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_every_window_is_a_valid_allocation_of_the_request(spec, seed):
    profile, request = random_instance(seed)
    window = build_criterion(spec).search(profile, request)
    if window is None:
        return
    nodes = profile.nodes
    assert window.n == request.n
    assert len(set(window.nodes)) == request.n
    assert window.start >= request.earliest_start
    assert all(nodes[i].performance >= request.min_performance for i in window.nodes)
    slowest = min(nodes[i].performance for i in window.nodes)
    assert window.runtime == pytest.approx(request.volume / slowest, rel=1e-12)
    for node_id in window.nodes:
        assert profile.is_free(node_id, window.start, window.finish), node_id
    expected_cost = sum(window.runtime * nodes[i].price for i in window.nodes)
    assert window.cost == pytest.approx(expected_cost, rel=1e-9)
    assert window.cost <= request.budget * (1 + 1e-12)
    assert window.slots == tuple(
        profile.enclosing_slot(i, window.start, window.finish) for i in window.nodes
    )


@pytest.mark.parametrize("spec", POLICIES, ids=lambda s: build_criterion(s).label)
@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 10**6))
def test_every_criterion_finds_a_window_exactly_when_first_fit_does(spec, seed):
    # Every criterion searches the same set of feasible windows, so all of them find one or
    # none of them does -- whatever the budget (unlimited budgets included).
    profile, request = random_instance(seed)
    first_fit = build_criterion("FirstFit").search(profile, request)
    window = build_criterion(spec).search(profile, request)
    assert (window is None) == (first_fit is None), request


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 10**6))
def test_multiple_best_alternatives_never_share_a_node_at_the_same_time(seed):
    profile, request = random_instance(seed)
    alternatives = MultipleBest().alternatives(profile, request)
    for a, b in itertools.combinations(alternatives, 2):
        for node in set(a.nodes) & set(b.nodes):
            assert a.finish <= b.start or b.finish <= a.start, (node, a, b)
    for window in alternatives:
        for node_id in window.nodes:
            assert profile.is_free(node_id, window.start, window.finish)
    if alternatives:
        first = build_criterion("FirstFit").search(profile, request)
        assert alternatives[0] == first


def test_multiple_best_finds_several_alternatives_on_an_idle_environment():
    nodes = tuple(Node(i, 1.0, 1.0) for i in range(4))
    profile = Profile(nodes, None, 0.0, 100.0)
    alternatives = MultipleBest().alternatives(profile, Request(n=2, volume=30.0))
    # Two windows side by side at 0, 30, 60 -- six in all -- and none at 90 (too short).
    assert sorted((w.start, w.nodes) for w in alternatives) == [
        (0.0, (0, 1)), (0.0, (2, 3)), (30.0, (0, 1)), (30.0, (2, 3)),
        (60.0, (0, 1)), (60.0, (2, 3)),
    ]  # fmt: skip


UNSATISFIABLE = {
    "more nodes than the environment has": dict(n=20),
    "a budget below any task": dict(budget=1e-6),
    "a minimum performance no node has": dict(min_performance=11.0),
    "a task longer than the horizon": dict(volume=1e6),
    "an earliest start past the horizon": dict(earliest_start=1e4),
}


@pytest.mark.parametrize("spec", POLICIES, ids=lambda s: build_criterion(s).label)
@pytest.mark.parametrize("change", UNSATISFIABLE, ids=str)
def test_a_request_no_environment_can_satisfy_gives_no_window(spec, change):
    profile, request = random_instance(3)
    fields = dict(
        n=request.n, volume=request.volume, budget=request.budget,
        min_performance=request.min_performance, earliest_start=request.earliest_start,
    )  # fmt: skip
    fields.update(UNSATISFIABLE[change])
    assert build_criterion(spec).search(profile, Request(**fields)) is None
