"""Ties in the exact subset allocation: whole-number node values make many windows worth the
same, and the documented tie-break decides -- the faster slowest node, then the earlier start
(``_Step.key``; the reference of tests/reference_window_search.py uses the same order).

Random float values (tests/test_window_search.py) almost never tie, so a search that stopped
at the first of several rows with an equal bound, or kept the later of two equal windows,
would pass there and is caught here.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance
from reference_window_search import reference_search_all

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.criteria import build_criterion


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
