"""Readings the papers leave open, as named parameters: performance granularity, the horizon
start's edge, BFstart's "earliest start", FirstFit's "first window found" and MultipleBest's
alternatives built on either."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from reference_window_search import FIRST_FOUND, reference_search_all

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.registry import build_criterion
from gridsim.workloads.environment import (
    EnvironmentSpec,
    LocalLoad,
    PriceModel,
    generate_environment,
)


def test_performance_step_draws_levels_and_zero_keeps_the_real_draws():
    real = generate_environment(EnvironmentSpec(nodes=500), np.random.default_rng(3))
    assert [n.performance for n in real.nodes] == list(
        np.random.default_rng(3).uniform(2.0, 10.0, size=500)
    )
    spec = EnvironmentSpec(nodes=2000, performance=(2.0, 16.0), performance_step=1.0)
    levels = {n.performance for n in generate_environment(spec, np.random.default_rng(3)).nodes}
    assert levels == {float(p) for p in range(2, 17)}
    halves = EnvironmentSpec(nodes=500, performance=(2.0, 3.0), performance_step=0.5)
    drawn = {n.performance for n in generate_environment(halves, np.random.default_rng(3)).nodes}
    assert drawn == {2.0, 2.5, 3.0}


def _environment(edge: str, seed: int):
    spec = EnvironmentSpec(
        nodes=int(np.random.default_rng(seed).integers(8, 15)),
        horizon=400.0,
        price=PriceModel(base=0.1, spread=0.3),
        local_load=LocalLoad(max_utilisation=0.5, tasks_per_node=(1, 4)),
        horizon_start_edge=edge,
    )
    return generate_environment(spec, np.random.default_rng(seed))


@pytest.mark.parametrize("seed", range(5))
def test_the_edge_readings_share_the_instance_inside_the_horizon(seed):
    neighbour, none, history = (_environment(e, seed) for e in ("neighbour", "none", "history"))
    assert neighbour.nodes == none.nodes == history.nodes
    assert neighbour.busy == none.busy
    inside = tuple(tuple(b for b in busy if b[0] >= 0) for busy in history.busy)
    assert inside == neighbour.busy
    assert all(b[1] <= 0 for busy in history.busy for b in busy if b[0] < 0)
    assert (neighbour.profile().horizon_start, none.profile().horizon_start) == (0.0, -np.inf)
    assert history.profile().horizon_start == -400.0


@pytest.mark.parametrize("edge", ["none", "history"])
@pytest.mark.parametrize("name", ["DEP", "COORD", "DEPLite", "COORDLite", "FirstFit"])
def test_distance_criteria_reach_the_reference_value_under_each_edge(edge, name):
    mismatches = []
    for seed in range(12):
        profile = _environment(edge, seed).profile()
        request = Request(n=3, volume=300.0, budget=float("inf") if seed % 2 else 90.0)
        expected = reference_search_all(profile, request)[name]
        window = build_criterion(name).search(profile, request)
        if (window is None) != (expected is None):
            mismatches.append((seed, window, expected))
        elif window is not None and window.criterion_value != pytest.approx(expected.value):
            mismatches.append((seed, window.criterion_value, expected.value))
    assert mismatches == []


def test_without_a_left_neighbour_both_distances_are_measured_on_the_right():
    nodes = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0))
    profile = Profile(nodes, [[(30.0, 40.0)], [(5.0, 10.0)]], -np.inf, 100.0)
    window = build_criterion("FirstFit").search(profile, Request(n=2, volume=20.0))
    # Node 0 is free from -inf to 30 (no left neighbour), node 1 from 10 to the horizon end.
    assert (window.start, window.left_distances()) == (10.0, (np.inf, 0.0))
    assert window.right_distances() == (0.0, 70.0)
    assert window.distance_to_nearest() == 0.0
    assert window.distance_to_farthest() == (0.0 + 70.0) / 2


def _flow_profile():
    """Nodes 0-1 slow (p 1), 2-3 fast (p 4); node 2 busy until 6 and node 3 until 2."""
    nodes = tuple(Node(i, p, p) for i, p in enumerate((1.0, 1.0, 4.0, 4.0)))
    return Profile(nodes, [[], [], [(0.0, 6.0)], [(0.0, 2.0)]], 0.0, np.inf)


def test_bfstart_readings_choose_their_windows():
    profile, request = _flow_profile(), Request(n=1, volume=8.0)
    windows = {
        label: build_criterion(spec).search(profile, request)
        for label, spec in {
            "default": "BFstart",
            "slowest": {"name": "BFstart", "ties": "slowest"},
            "slot": {"name": "BFstart", "start_of": "slot"},
        }.items()
    }
    # Earliest start 0: only the slow nodes are free, node 0 first in slot order.
    assert (windows["default"].start, windows["default"].nodes) == (0.0, (0,))
    assert (windows["slowest"].start, windows["slowest"].nodes) == (0.0, (0,))
    # The slots free longest (from 0) are the slow nodes' too.
    assert windows["slot"].slots[0].start == 0.0
    two = Request(n=2, volume=8.0, earliest_start=6.0)
    fastest = build_criterion("BFstart").search(profile, two)
    slowest = build_criterion({"name": "BFstart", "ties": "slowest"}).search(profile, two)
    assert (fastest.start, fastest.nodes, fastest.runtime) == (6.0, (2, 3), 2.0)
    assert (slowest.start, slowest.runtime) == (6.0, 8.0)
    assert 0 in slowest.nodes or 1 in slowest.nodes


def test_bfstart_reading_names_are_checked():
    with pytest.raises(ValueError, match="ties"):
        build_criterion({"name": "BFstart", "ties": "random"})
    with pytest.raises(ValueError, match="start_of=slot"):
        build_criterion({"name": "BFstart", "start_of": "slot", "ties": "slowest"})


@pytest.mark.parametrize("edge", ["neighbour", "none", "history"])
def test_first_found_is_the_first_window_of_the_papers_scan(edge):
    """[TY19]'s FirstFit against the reference scan stopped at its first window: the same
    group (slowest performance), start and runtime, on random small instances."""
    found = build_criterion({"name": "FirstFit", "first_fit": "first_found"})
    mismatches, later = [], 0
    for seed in range(16):
        profile = _environment(edge, seed).profile()
        request = Request(n=3, volume=300.0, budget=float("inf") if seed % 2 else 90.0)
        expected = reference_search_all(profile, request)[FIRST_FOUND]
        window = found.search(profile, request)
        if (window is None) != (expected is None):
            mismatches.append((seed, window, expected))
            continue
        if window is None:
            continue
        slowest = min(profile.nodes[i].performance for i in window.nodes)
        if (slowest, window.start, window.runtime) != pytest.approx(
            (expected.performance, expected.start, expected.runtime)
        ):
            mismatches.append((seed, (slowest, window.start), expected))
        earliest = build_criterion("FirstFit").search(profile, request)
        later += window.start > earliest.start
    assert mismatches == []
    assert later > 0  # the readings differ on these instances


def test_multiple_best_on_either_reading_scores_alternatives_in_the_real_profile():
    """Alternatives are FirstFit's windows of each reading, found one after another without
    overlapping; the one chosen is the best by the target measured in the real profile (the
    distances it reports), checked by scoring every alternative again."""
    for seed in range(6):
        environment = _environment("neighbour", seed)
        profile, request = environment.profile(), Request(n=2, volume=150.0)
        for reading in ("earliest_start", "first_found"):
            spec = {"name": "MultipleBest", "target": "COORD", "first_fit": reading}
            criterion = build_criterion(spec)
            alternatives = criterion.alternatives(profile, request)
            scratch = profile.copy()
            for window in alternatives:  # each is the reading's FirstFit window of the rest
                first = build_criterion({"name": "FirstFit", "first_fit": reading})
                assert first.search(scratch, request) == window
                scratch.reserve(window)
            coord = build_criterion("COORD")
            real = [
                coord.score(profile.with_enclosing_slots(w), profile.nodes) for w in alternatives
            ]
            chosen = criterion.search(profile, request)
            assert chosen.criterion_value == pytest.approx(max(real))
            assert chosen == replace(
                profile.with_enclosing_slots(alternatives[real.index(max(real))]),
                criterion_value=chosen.criterion_value,
            )


def test_first_fit_reading_is_a_scenario_switch_and_a_parameter():
    from gridsim.api import load_scenario

    scenario = load_scenario(
        "gridsim/scenarios/dependable-placement.yaml", overrides=["first_fit=first_found"]
    )
    labels = [criterion.label for criterion in scenario.criteria()]
    assert labels[0] == "FirstFit(first_fit=first_found)"
    assert "MultipleBest(target=DEP, first_fit=first_found)" in labels
    assert "DEP" in labels  # criteria without the parameter are left alone
    explicit = build_criterion({"name": "FirstFit", "first_fit": "earliest_start"},
                               {"first_fit": "first_found"})  # fmt: skip
    assert explicit.label == "FirstFit"  # the policy's own parameter wins
    with pytest.raises(ValueError, match="first_fit must be one of"):
        build_criterion({"name": "MultipleBest", "first_fit": "first"})
