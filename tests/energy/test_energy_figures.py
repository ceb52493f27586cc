"""The energy figures: busy power and cost/carbon rates binned exactly, drawn per policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gridsim.analysis import energy_plots
from gridsim.energy.signals import Signal


def jobs() -> pd.DataFrame:
    """Two jobs: 2 kW over [0, 3600], 1 kW over [1800, 5400]."""
    return pd.DataFrame({
        "submit_time": [0.0, 0.0], "start_time": [0.0, 1800.0],
        "finish_time": [3600.0, 5400.0], "run_time": [3600.0, 3600.0],
        "final_state": ["finished", "finished"], "energy_kwh": [2.0, 1.0],
    })  # fmt: skip


def test_busy_power_is_the_exact_mean_over_each_bin():
    edges = np.array([0.0, 1800.0, 3600.0, 5400.0])
    assert energy_plots.busy_power_kw(jobs(), edges).tolist() == pytest.approx([2.0, 3.0, 1.0])


def test_rates_weigh_power_by_the_signal_inside_each_bin():
    price = Signal(np.array([0.0, 2700.0, 7200.0]), np.array([0.1, 0.5]), repeat=True)
    edges = np.array([0.0, 3600.0])
    # 2 kW x (0.1 x 2700 + 0.5 x 900) s + 1 kW x (0.1 x 900 + 0.5 x 900) s, per 3600 s.
    expected = (2 * (0.1 * 2700 + 0.5 * 900) + 1 * (0.1 * 900 + 0.5 * 900)) / 3600
    assert energy_plots._binned(jobs(), edges, price).tolist() == pytest.approx([expected])


def test_the_figures_draw_one_line_per_policy_and_the_signals():
    runs = {"BFfinish": jobs(), "MinCarbon": jobs()}
    power = energy_plots.plot_busy_power(runs, "s", bins=10, cap=Signal.constant(4000.0))
    assert len(power.axes[0].lines) == 3  # two policies and the cap
    assert power.axes[0].lines[2].get_ydata().tolist() == [4.0] * 10  # kW
    price = Signal.constant(0.2)
    rates = energy_plots.plot_signal_rates(runs, price, Signal.constant(300.0), "s", bins=10)
    assert [len(axes.lines) for axes in rates.axes[::2]] == [2, 2]


def test_a_time_varying_cap_is_drawn_as_its_mean_over_each_bin():
    cap = Signal(np.array([0.0, 2700.0, 7200.0]), np.array([1000.0, 3000.0]), repeat=True)
    figure = energy_plots.plot_busy_power({"EASY": jobs()}, "s", bins=2, cap=cap)
    edges = energy_plots.bin_edges(jobs(), 2)
    expected = cap.integral(edges[:-1], edges[1:]) / np.diff(edges) / 1000
    assert figure.axes[0].lines[1].get_ydata().tolist() == pytest.approx(expected.tolist())
    platform = {"platform": {"power_cap": {"value": 16000}}}
    assert energy_plots.scenario_cap(platform).values.tolist() == [16000.0]
    assert energy_plots.scenario_cap({"platform": {}}) is None


def test_signals_come_from_the_scenario_unless_classes_have_their_own():
    environment = {"power": {"idle_watts": 1, "busy_watts": 2},
                   "electricity_price": {"value": 0.3}}  # fmt: skip
    price, carbon = energy_plots.scenario_signals({"environment": environment})
    assert price.at(10.0) == 0.3 and carbon.at(10.0) == 0.0
    classes = {"node_classes": [{"count": 2, "power": {"idle_watts": 1, "busy_watts": 2},
                                 "carbon_intensity": {"value": 100}}]}  # fmt: skip
    assert energy_plots.scenario_signals({"platform": classes}) is None
    assert energy_plots.scenario_signals({"environment": {"nodes": 3}}) is None
