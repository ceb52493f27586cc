"""PAST, CoP and the backfilling criteria: parameters, bounds and exactness."""

import itertools
from pathlib import Path

import numpy as np
import pytest
import yaml

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.placement import PAST, CoP
from gridsim.selection.registry import CriterionError, build_criterion

ROOT = Path(__file__).resolve().parents[2]


def test_table_1_constants_are_the_defaults_and_the_config_file():
    constants = yaml.safe_load((ROOT / "configs/past-cop.yaml").read_text())
    assert constants == dict(alpha1=0.1, alpha2=0.0001, delta1=1, delta2=0.1,
                             epsilon1=0.03, epsilon2=0.2, epsilon3=0.35)  # fmt: skip
    assert CoP() == CoP(**constants) and PAST() == PAST(**constants)


def test_constants_can_be_overridden_per_scenario_and_are_checked():
    assert build_criterion({"name": "CoP", "epsilon1": 0.05}).label == "CoP(epsilon1=0.05)"
    with pytest.raises(CriterionError, match="epsilon1 <= epsilon2"):
        build_criterion({"name": "CoP", "epsilon1": 0.5})
    with pytest.raises(CriterionError, match="has no parameter 'epsilon4'"):
        build_criterion({"name": "PAST", "epsilon4": 1})


def test_cop_rules_by_hand():
    cop = CoP()
    # Window [10, 20) (T = 10) in slot [9.9, 21): L_left 0.1 < 0.3 (+1), L_right 1 (none).
    z = cop.slot_values(9.9, 21.0, 0, 0, 10.0, 10.0, performance=2.0)
    assert z == pytest.approx(-20 - 0.2 + 1)
    # L_left 3 in (2, 3.5): -1; open tail: L_right = inf > T: +0.1.
    z = cop.slot_values(7.0, np.inf, 0, 0, 10.0, 10.0, performance=2.0)
    assert z == pytest.approx(-20 - 0.2 - 1 + 0.1)


def test_past_rules_by_hand():
    past = PAST()
    # Adjacent on the left (+1), L_right 5 costs 0.0005.
    z = past.slot_values(10.0, 25.0, 0, 0, 10.0, 10.0, performance=4.0)
    assert z == pytest.approx(-20 - 0.4 + 1 - 0.0005)
    # An open tail is no gap: no penalty.
    assert past.slot_values(5.0, np.inf, 0, 0, 10.0, 10.0, performance=4.0) == pytest.approx(-20.4)


@pytest.mark.parametrize(
    "criterion", [CoP(), PAST(), PAST(rule2="as_described"), PAST(rule2="as_described", alpha2=0.5)]
)
def test_slot_value_bound_is_an_upper_bound(criterion):
    rng = np.random.default_rng(3)
    for _ in range(300):
        slot_start = rng.uniform(0, 50)
        slot_end = np.inf if rng.random() < 0.2 else slot_start + rng.uniform(1, 80)
        runtime = rng.uniform(0.5, 40)
        if slot_end - slot_start < runtime:
            continue
        lo = slot_start + rng.uniform(0, 1) * (slot_end - slot_start - runtime if
                                               np.isfinite(slot_end) else 30)  # fmt: skip
        hi = lo + rng.uniform(0, 1) * ((slot_end - runtime - lo) if np.isfinite(slot_end) else 30)
        starts = np.concatenate([np.linspace(lo, hi, 400), [lo, hi]])
        p = rng.uniform(1, 10)
        values = criterion.slot_values(slot_start, slot_end, 0, 0, starts, runtime, p)
        bound = criterion.slot_value_bound(slot_start, slot_end, 0, 0, runtime, lo, hi, p)
        assert values.max() <= bound + 1e-9


def brute_force(profile, request, criterion):
    """Best sum of z over every n-subset of slots on distinct nodes and every candidate start:
    the start of a slot of the window's performance group (nodes at least as fast as its
    slowest), as the paper's scan meets them [TY18, Sec. 3.2]."""
    slots = [s for s in profile.slots() if s.end > request.earliest_start]
    best = -np.inf
    for combo in itertools.combinations(slots, request.n):
        if len({s.node for s in combo}) < request.n:
            continue
        slowest = min(profile.nodes[s.node].performance for s in combo)
        runtime = request.volume / slowest
        starts = {max(s.start, request.earliest_start) for s in slots
                  if profile.nodes[s.node].performance >= slowest}  # fmt: skip
        for t in sorted(starts):
            if all(max(s.start, request.earliest_start) <= t and t + runtime <= s.end + 1e-9
                   for s in combo):  # fmt: skip
                z = sum(
                    criterion.slot_values(
                        s.start, s.end, 0, 0, t, runtime, profile.nodes[s.node].performance
                    )
                    for s in combo
                )
                best = max(best, float(z))
    return best


@pytest.mark.parametrize(
    "name",
    [
        "CoP", "PAST", {"name": "PAST", "rule2": "as_described", "alpha2": 0.5},
        "DEP", {"name": "DEP", "max_distance": 4.0},
        "COORD", {"name": "COORD", "max_distance": 4.0},
    ],
)  # fmt: skip
def test_window_search_finds_the_brute_force_optimum(name):
    criterion = build_criterion(name)
    rng = np.random.default_rng(11)
    for _ in range(25):
        n_nodes = int(rng.integers(3, 6))
        nodes = [Node(i, float(rng.uniform(1, 6)), 1.0) for i in range(n_nodes)]
        busy = []
        for _ in range(n_nodes):
            a = float(rng.uniform(0, 20))
            busy.append([(a, a + float(rng.uniform(1, 15)))])
        profile = Profile(nodes, busy)
        request = Request(int(rng.integers(1, 4)), float(rng.uniform(5, 40)),
                          earliest_start=float(rng.uniform(0, 5)))  # fmt: skip
        window = criterion.search(profile, request)
        expected = brute_force(profile, request, criterion)
        assert window is not None
        assert window.criterion_value == pytest.approx(expected, abs=1e-7)


def test_distances_in_a_slot_open_to_the_right_count_the_left_neighbour_only():
    # Slot [10, inf): a task over [15, 25) is 5 after its left neighbour and has none after it.
    dep, coord = build_criterion("DEP"), build_criterion("COORD")
    assert dep.slot_values(10.0, np.inf, 0, 0, 15.0, 10.0) == 5.0
    assert coord.slot_values(10.0, np.inf, 0, 0, 15.0, 10.0) == -5.0
    # In a closed slot [10, 40) the nearest neighbour is 5 away and the farthest 15.
    assert dep.slot_values(10.0, 40.0, 0, 0, 15.0, 10.0) == 5.0
    assert coord.slot_values(10.0, 40.0, 0, 0, 15.0, 10.0) == -15.0
    # Capped at 4: farther counts as 4.
    capped = build_criterion({"name": "COORD", "max_distance": 4})
    assert build_criterion({"name": "DEP", "max_distance": 4}).slot_values(
        10.0, np.inf, 0, 0, 15.0, 10.0) == 4.0  # fmt: skip
    assert capped.slot_values(10.0, 40.0, 0, 0, 15.0, 10.0) == -4.0
    assert capped.label == "COORD(max_distance=4)"
    with pytest.raises(CriterionError, match="max_distance must be positive"):
        build_criterion({"name": "DEPLite", "max_distance": 0})
