"""MinCostOverTime, MinEnergy and MinCarbon against brute force on small random instances:
every subset of free slots on distinct nodes, at every whole-number start allowed (a slot start,
or any time within the slack of the request's earliest start), within the budget.

Times, runtimes and signal breakpoints are whole numbers, so the best window over continuous
starts is at a whole-number start (its value is piecewise linear between those): brute force
over whole numbers is exact. Under a budget, MinCarbon's best start may lie where the money
spent reaches the budget, between breakpoints; the search considers the breakpoints only
(docs/model.md, "Windows over time"), so budgeted carbon instances are checked against brute
force over those starts. Budgets are drawn around the cheapest window's cost so that many
instances are decided by them.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from gridsim.energy.model import EnergyModel
from gridsim.energy.signals import Signal
from gridsim.model import Request
from gridsim.profile import SlotTable
from gridsim.selection.candidates import Candidates
from gridsim.selection.energy_criteria import bind_energy
from gridsim.selection.registry import build_criterion
from gridsim.selection.signal_search import find_signal_window
from gridsim.selection.ties import TIE_TOLERANCE

INSTANCES = 240


def random_instance(rng: np.random.Generator):
    nodes = int(rng.integers(2, 6))
    node, start, end = [], [], []
    for i in range(nodes):
        t = int(rng.integers(0, 10))
        for _ in range(int(rng.integers(1, 3))):
            length = int(rng.integers(4, 30))
            node.append(i)
            start.append(t)
            end.append(t + length)
            t += length + int(rng.integers(1, 8))
    performance = rng.choice([1.0, 2.0, 4.0], size=nodes)
    price = rng.integers(0, 4, size=nodes).astype(float)
    order = np.lexsort((node, start))
    node = np.array(node)[order]
    table = SlotTable(
        node=node, start=np.array(start, float)[order], end=np.array(end, float)[order],
        performance=performance[node], price=price[node], q=np.zeros(len(node)),
    )  # fmt: skip
    times = np.cumsum(rng.integers(1, 7, size=int(rng.integers(2, 5)) + 1)).astype(float)
    price_signal = Signal(times, rng.integers(0, 5, size=len(times) - 1).astype(float) * 1e5,
                          repeat=True)  # fmt: skip
    carbon_signal = Signal(times, rng.integers(1, 9, size=len(times) - 1).astype(float) * 1e5,
                           repeat=bool(rng.integers(2)))  # fmt: skip
    model = EnergyModel(
        idle_watts=np.zeros(nodes), busy_watts=rng.integers(1, 6, size=nodes) * 100.0,
        price_signals=(price_signal,), price_of_node=np.zeros(nodes, dtype=np.int64),
        carbon_signals=(carbon_signal,), carbon_of_node=np.zeros(nodes, dtype=np.int64),
    )  # fmt: skip
    n = int(rng.integers(1, min(nodes, 3) + 1))
    request = Request(n=n, volume=4.0 * int(rng.integers(1, 4)),
                      earliest_start=float(rng.integers(0, 6)))  # fmt: skip
    return table, model, request, float(rng.integers(0, 25))


def breakpoint_starts(table, model, request, slack, runtime):
    """Slot starts, and in the slack interval its ends, slot ends - runtime and every signal
    breakpoint b and b - runtime (written out from the breakpoints, cycle by cycle)."""
    first, last = request.earliest_start, request.earliest_start + slack
    inside = {first, last, *(table.end - runtime).tolist()}
    for signal in (model.price_signals[0], model.carbon_signals[0]):
        cycles = range(-3, 12) if signal.repeat else range(1)
        for cycle in cycles:
            for b in signal.times.tolist():
                inside |= {b + cycle * signal.period, b + cycle * signal.period - runtime}
    return set(table.start.tolist()) | {s for s in inside if first <= s <= last}


def brute_force(table, model, request, slack, quantity, only_breakpoints=False):
    """(value, money) of every feasible window: subsets x whole-number starts (or x the
    breakpoint starts)."""
    windows = []
    last = int(table.end[np.isfinite(table.end)].max())
    for subset in combinations(range(len(table)), request.n):
        nodes = table.node[list(subset)]
        if len(set(nodes.tolist())) < request.n:
            continue
        runtime = float(request.runtime_on(table.performance[list(subset)].min()))
        starts = range(int(request.earliest_start), last + 1)
        if only_breakpoints:
            starts = sorted(breakpoint_starts(table, model, request, slack, runtime))
        for s in starts:
            if s < request.earliest_start:
                continue
            at_slot_start = s in table.start[list(range(len(table)))].tolist()
            if not (at_slot_start or s <= request.earliest_start + slack):
                continue
            if any(table.start[i] > s or table.end[i] < s + runtime for i in subset):
                continue
            watts = model.busy_watts[nodes]
            money = sum(runtime * table.price[i] for i in subset) + sum(
                watts * model.price_signals[0].integral(s, s + runtime) / 3.6e6
            )
            value = {
                "cost": money,
                "energy": float(sum(watts * runtime / 3.6e6)),
                "carbon": float(
                    sum(watts * model.carbon_signals[0].integral(s, s + runtime) / 3.6e9)
                ),
            }[quantity]
            windows.append((value, money))
    return windows


@pytest.mark.parametrize("quantity", ["cost", "energy", "carbon"])
def test_signal_criteria_equal_brute_force(quantity):
    rng = np.random.default_rng({"cost": 11, "energy": 12, "carbon": 13}[quantity])
    checked = budgeted = 0
    for _ in range(INSTANCES):
        table, model, request, slack = random_instance(rng)
        unlimited = brute_force(table, model, request, slack, quantity)
        if unlimited and rng.random() < 0.5:  # a budget near the cheapest window's cost
            cheapest = min(money for _, money in unlimited)
            request = Request(request.n, request.volume, cheapest * float(rng.uniform(0.9, 2)),
                              earliest_start=request.earliest_start)  # fmt: skip
            budgeted += 1
        only_breakpoints = quantity == "carbon" and math.isfinite(request.budget)
        windows = [w for w in brute_force(table, model, request, slack, quantity, only_breakpoints)
                   if w[1] <= request.budget]  # fmt: skip
        found = find_signal_window(Candidates.from_table(table, request), request, model,
                                   quantity, slack)  # fmt: skip
        if not windows:
            assert found is None
            continue
        best = min(value for value, _ in windows)
        assert found is not None
        assert -found.criterion_value == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert found.cost <= request.budget * (1 + TIE_TOLERANCE)
        assert found.start >= request.earliest_start
        checked += 1
    assert checked >= 200 and budgeted >= 60


def test_no_electricity_price_no_slack_is_the_static_cheapest_window():
    """With the electricity price 0 and no slack, the cheapest window at a slot start."""
    rng = np.random.default_rng(5)
    for _ in range(60):
        table, model, request, _slack = random_instance(rng)
        zero = EnergyModel(
            model.idle_watts,
            model.busy_watts,
            (Signal.constant(0.0),),
            model.price_of_node,
            model.carbon_signals,
            model.carbon_of_node,
        )
        found = find_signal_window(Candidates.from_table(table, request), request, zero, "cost")
        reference = brute_force(table, zero, request, 0.0, "cost")
        if not reference:
            assert found is None
            continue
        assert found.cost == pytest.approx(min(v for v, _ in reference), rel=1e-12)


def test_bind_energy_turns_min_cost_into_the_time_varying_one():
    rng = np.random.default_rng(1)
    _table, model, _request, _slack = random_instance(rng)
    assert bind_energy(build_criterion("MinCost"), None) == build_criterion("MinCost")
    bound = bind_energy(build_criterion("MinCost"), model)
    assert bound.label == "MinCost" and bound.energy is model
    with pytest.raises(ValueError, match="MinCarbon needs a power model"):
        bind_energy(build_criterion("MinCarbon"), None)
    assert build_criterion({"name": "MinEnergy", "slack": 60}).label == "MinEnergy(slack=60)"
    assert math.isinf(Request(1, 1.0).budget)


@pytest.mark.parametrize("name", ["MinEnergy", "MinCarbon", "MinCostOverTime"])
def test_the_score_of_a_found_window_is_its_criterion_value(name):
    """On the profiles of the other criteria's contract tests, with a power model bound."""
    from random_instances import random_instance as random_profile

    from gridsim.energy.config import PowerConfig, SignalConfig
    from gridsim.energy.model import energy_model

    found = 0
    for seed in range(8):
        profile, request = random_profile(seed)
        count = len(profile.nodes)
        performance = np.array([node.performance for node in profile.nodes])
        price = SignalConfig(profile="daily", steps=((0, 0.1), (0.02, 0.4)))
        carbon = SignalConfig(profile="daily", steps=((0, 300), (0.05, 120)))
        model = energy_model([PowerConfig(idle_watts=50, busy_watts=100,
                                          busy_watts_per_performance=30)] * count,
                             performance, [price] * count, [carbon] * count)  # fmt: skip
        criterion = bind_energy(build_criterion({"name": name, "slack": 50.0}), model)
        window = criterion.search(profile, request)
        if window is None:
            continue
        found += 1
        assert criterion.score(window, profile.nodes) == window.criterion_value
        assert window.cost <= request.budget * (1 + TIE_TOLERANCE)
    assert found >= 4


def test_multiple_best_hands_the_power_model_to_an_energy_target():
    """MultipleBest(target=MinCarbon) takes the alternative of least carbon: it needs a power
    model (refused without one) and passes the one bound to it on to its target."""
    from random_instances import random_instance as random_profile

    from gridsim.energy.config import PowerConfig, SignalConfig
    from gridsim.energy.model import energy_model
    from gridsim.selection.energy_criteria import needs_energy

    chosen = 0
    for seed in range(6):
        profile, request = random_profile(seed)
        count = len(profile.nodes)
        performance = np.array([node.performance for node in profile.nodes])
        carbon = SignalConfig(profile="daily", steps=((0, 300), (0.05, 120)))
        model = energy_model([PowerConfig(idle_watts=50, busy_watts=100,
                                          busy_watts_per_performance=30)] * count,
                             performance, [None] * count, [carbon] * count)  # fmt: skip
        best = build_criterion({"name": "MultipleBest", "target": "MinCarbon"})
        assert needs_energy(best)
        with pytest.raises(ValueError, match="needs a power model"):
            bind_energy(best, None)
        best = bind_energy(best, model)
        window = best.search(profile, request)
        alternatives = [profile.with_enclosing_slots(w)
                        for w in best.alternatives(profile, request)]  # fmt: skip
        if window is None:
            assert not alternatives
            continue
        target = bind_energy(build_criterion("MinCarbon"), model)
        scores = [target.score(w, profile.nodes) for w in alternatives]
        assert window.criterion_value == pytest.approx(max(scores), rel=1e-12)
        chosen += 1
    assert chosen >= 3
