"""CoP's and PAST's optional cost term (price, energy, electricity or carbon, weighted) against
brute force on small random instances: every n-subset of free slots on distinct nodes at every
start the paper's scan meets, within the budget, each slot's value written out here from
[TY20]'s rules and the signals integrated step by step (tests/energy_checker.py). Without a
weight the criteria are the paper's, compiled; with one they run the Python search.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from energy_checker import signal_integral

from gridsim.core import search as compiled_search
from gridsim.energy.config import PowerConfig, SignalConfig
from gridsim.energy.model import energy_model
from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.energy_criteria import bind_energy, needs_energy
from gridsim.selection.registry import CriterionError, build_criterion
from gridsim.selection.ties import TIE_TOLERANCE

INSTANCES = 260
#: Steps some seconds long, so that windows of the instances cross them.
PRICES = (SignalConfig(profile="daily", steps=((0, 0.1), (0.004, 0.4), (0.009, 0.2))),
          SignalConfig(profile="daily", steps=((0, 0.3), (0.007, 0.05)), offset=9.0))  # fmt: skip
CARBON = (SignalConfig(profile="daily", steps=((0, 300), (0.006, 120), (0.012, 450))),
          SignalConfig(profile="daily", steps=((0, 200), (0.003, 500))))  # fmt: skip
#: Weights that make each term worth some time units against the finish time.
WEIGHTS = {"price_weight": 0.5, "energy_weight": 1e4, "electricity_weight": 3e4,
           "carbon_weight": 3e4}  # fmt: skip


def side(distance, runtime, d1=1.0, d2=0.1, e1=0.03, e2=0.2, e3=0.35):
    """CoP's amendment for one neighbour distance [TY20, Sec. 4.1, item 3]."""
    if distance < e1 * runtime:
        return d1
    if e2 * runtime < distance < e3 * runtime:
        return -d1
    return d2 if distance > runtime else 0.0


def rules_z(rule, slot, start, runtime, performance):
    """z of [TY20]'s rules (defaults of Table 1): finish, performance, neighbour distances."""
    left = start - slot.start
    right = math.inf if math.isinf(slot.end) else slot.end - (start + runtime)
    z = -(start + runtime) - 0.1 * performance
    if rule == "CoP":
        return z + side(left, runtime) + side(right, runtime)
    z += (right <= 1e-6) + (left <= 1e-6)  # PAST, rule 2 as printed
    return z - (0.0 if math.isinf(right) else 1e-4 * right)


def cost_term(weights, node, power, price, carbon, start, runtime):
    watts = power.busy_watts + power.busy_watts_per_performance * node.performance
    end = start + runtime
    return (weights.get("price_weight", 0.0) * runtime * node.price
            + weights.get("energy_weight", 0.0) * watts * runtime / 3.6e6
            + weights.get("electricity_weight", 0.0) * watts
            * signal_integral(price, start, end) / 3.6e6
            + weights.get("carbon_weight", 0.0) * watts
            * signal_integral(carbon, start, end) / 3.6e9)  # fmt: skip


def random_case(rng):
    count = int(rng.integers(3, 6))
    nodes = [Node(i, float(rng.choice([1.0, 2.0, 3.0, 5.0])), float(rng.uniform(0.2, 2.0)))
             for i in range(count)]  # fmt: skip
    busy = []
    for _ in range(count):
        a = float(rng.uniform(0, 25))
        busy.append([(a, a + float(rng.uniform(1, 15)))])
    profile = Profile(nodes, busy)
    powers = [PowerConfig(idle_watts=40, busy_watts=float(rng.integers(80, 200)),
                          busy_watts_per_performance=float(rng.integers(0, 40)))
              for _ in nodes]  # fmt: skip
    price = [PRICES[int(k)] for k in rng.integers(0, 2, size=count)]
    carbon = [CARBON[int(k)] for k in rng.integers(0, 2, size=count)]
    performance = np.array([node.performance for node in nodes])
    model = energy_model(powers, performance, price, carbon)
    n = int(rng.integers(1, 4))
    volume = float(rng.uniform(5, 60))
    budget = math.inf
    if rng.random() < 0.5:  # a budget that often binds
        budget = n * float(
            np.median([volume / p * node.price for p, node in zip(performance, nodes, strict=True)])
        )
        budget *= float(rng.uniform(0.7, 1.5))
    request = Request(n, volume, budget, earliest_start=float(rng.uniform(0, 5)))
    return profile, request, model, (powers, price, carbon)


def brute_force(profile, request, rule, weights, signals):
    """(best value, its cost) over every affordable subset and scan start."""
    powers, price, carbon = signals
    slots = [s for s in profile.slots() if s.end > request.earliest_start]
    best = (-math.inf, math.nan)
    for combo in itertools.combinations(slots, request.n):
        if len({s.node for s in combo}) < request.n:
            continue
        slowest = min(profile.nodes[s.node].performance for s in combo)
        runtime = request.volume / slowest
        cost = sum(runtime * profile.nodes[s.node].price for s in combo)
        if cost > request.budget:
            continue
        starts = {max(s.start, request.earliest_start) for s in slots
                  if profile.nodes[s.node].performance >= slowest}  # fmt: skip
        for t in sorted(starts):
            if not all(max(s.start, request.earliest_start) <= t and t + runtime <= s.end
                       for s in combo):  # fmt: skip
                continue
            z = 0.0
            for s in combo:
                node = profile.nodes[s.node]
                z += rules_z(rule, s, t, runtime, node.performance)
                z -= cost_term(weights, node, powers[s.node], price[s.node], carbon[s.node],
                               t, runtime)  # fmt: skip
            if z > best[0]:
                best = (z, cost)
    return best


@pytest.mark.parametrize("term", [*WEIGHTS, "all"])
def test_cop_and_past_with_a_cost_term_equal_brute_force(term):
    rng = np.random.default_rng(sorted(WEIGHTS).index(term) if term in WEIGHTS else 7)
    checked = budgeted = 0
    for instance in range(INSTANCES):
        profile, request, model, signals = random_case(rng)
        scale = float(rng.uniform(0.2, 3.0))
        weights = {name: scale * weight for name, weight in WEIGHTS.items()
                   if term in (name, "all")}  # fmt: skip
        rule = "CoP" if instance % 2 else "PAST"
        criterion = bind_energy(build_criterion({"name": rule, **weights}), model)
        window = criterion.search(profile, request)
        best, _ = brute_force(profile, request, rule, weights, signals)
        if math.isinf(best):
            assert window is None
            continue
        assert window is not None
        assert window.criterion_value == pytest.approx(best, rel=1e-9, abs=1e-9)
        assert window.cost <= request.budget * (1 + TIE_TOLERANCE)
        assert criterion.score(window, profile.nodes) == pytest.approx(best, rel=1e-9, abs=1e-9)
        checked += 1
        budgeted += math.isfinite(request.budget)
    assert checked >= 200 and budgeted >= 60


def test_the_terms_change_the_choice_on_some_instances():
    """The term is not idle: on some instances the window differs from the paper's."""
    rng = np.random.default_rng(3)
    differs = 0
    for _ in range(30):
        profile, request, model, _ = random_case(rng)
        plain = build_criterion("CoP").search(profile, request)
        weighted = bind_energy(build_criterion({"name": "CoP", "carbon_weight": 1e5}), model)
        found = weighted.search(profile, request)
        differs += plain is not None and (plain.start, plain.nodes) != (found.start, found.nodes)
    assert differs >= 3


def test_parameters_labels_and_the_power_model():
    cop = build_criterion({"name": "CoP", "carbon_weight": 2.0})
    assert cop.label == "CoP(carbon_weight=2.0)" and needs_energy(cop)
    assert not needs_energy(build_criterion({"name": "PAST", "price_weight": 1.0}))
    assert build_criterion("CoP") == build_criterion({"name": "CoP", "energy_weight": 0})
    with pytest.raises(CriterionError, match="electricity_weight must be >= 0"):
        build_criterion({"name": "PAST", "electricity_weight": -1})
    with pytest.raises(ValueError, match="CoP needs a power model"):
        bind_energy(cop, None)


@pytest.mark.skipif(compiled_search.compiled() is None, reason="no compiled search")
def test_a_cost_term_runs_the_python_search_and_none_the_compiled_one(monkeypatch):
    rng = np.random.default_rng(5)
    profile, request, model, _ = random_case(rng)
    request = Request(request.n, request.volume, earliest_start=request.earliest_start)
    calls = []
    for name in ("find_window", "placement_rows", "placement_sigma_bounds"):
        kernel = getattr(compiled_search, name)

        def counted(*args, kernel=kernel):
            calls.append(1)
            return kernel(*args)

        monkeypatch.setattr(compiled_search, name, counted)
    build_criterion("CoP").search(profile, request)
    assert calls  # the paper's CoP without a budget runs compiled
    calls.clear()
    for weights in ({"price_weight": 1.0}, {"carbon_weight": 1e4}):
        bind_energy(build_criterion({"name": "CoP", **weights}), model).search(profile, request)
    assert not calls


@pytest.mark.parametrize("rule", ["CoP", "PAST"])
def test_a_slot_bound_with_a_cost_term_is_never_below_the_slot_s_value(rule):
    """Over every start of the range the bound covers (the search skips by it)."""
    rng = np.random.default_rng(9)
    _profile, _request, model, _ = random_case(rng)
    criterion = bind_energy(build_criterion({"name": rule, **WEIGHTS}), model)
    for _ in range(300):
        node = int(rng.integers(0, len(model)))
        slot_start = float(rng.uniform(0, 50))
        slot_end = np.inf if rng.random() < 0.2 else slot_start + float(rng.uniform(1, 80))
        runtime = float(rng.uniform(0.5, 40))
        if slot_end - slot_start < runtime:
            continue
        room = slot_end - runtime - slot_start if np.isfinite(slot_end) else 30.0
        lo = slot_start + float(rng.uniform(0, 1)) * room
        hi = lo + float(rng.uniform(0, 1)) * (slot_start + room - lo)
        starts = np.concatenate([np.linspace(lo, hi, 200), [lo, hi]])
        cost, p = runtime * float(rng.uniform(0.2, 2)), float(rng.uniform(1, 5))
        values = criterion.slot_values(slot_start, slot_end, 0, cost, starts, runtime, p,
                                       node=np.full(len(starts), node))  # fmt: skip
        bound = criterion.slot_value_bound(slot_start, slot_end, 0, cost, runtime, lo, hi, p,
                                           node=node)  # fmt: skip
        assert values.max() <= bound + 1e-9
