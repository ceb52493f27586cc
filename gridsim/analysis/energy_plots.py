"""Figures of energy: the busy power drawn over time, and electricity cost and carbon over
time with the signal behind them.

Consumes jobs tables with the energy columns (docs/energy.md) of one run per policy and the
scenario's signals (:class:`~gridsim.energy.signals.Signal`); produces matplotlib Figures. A
job draws ``energy_kwh / run_time`` while it runs (its nodes' busy power); the cost and carbon
per hour of a bin are exact: each job's power times the integral of the signal over the part
of its run inside the bin, divided by the bin's length.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gridsim.analysis.jobflow_metrics import ran
from gridsim.analysis.palette import policy_styles
from gridsim.analysis.timelines import bin_edges
from gridsim.energy.signals import Signal

__all__ = ["busy_power_kw", "plot_busy_power", "plot_signal_rates"]

HOUR_S = 3600.0


def _running(jobs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start, end and busy power (kW) of every job that ran for a positive time."""
    done = jobs[ran(jobs) & (jobs["run_time"] > 0)]
    start, end = done["start_time"].to_numpy(float), done["finish_time"].to_numpy(float)
    return start, end, done["energy_kwh"].to_numpy(float) * HOUR_S / (end - start)


def _binned(jobs: pd.DataFrame, edges: np.ndarray, signal: Signal | None) -> np.ndarray:
    """Per bin, the mean of busy kW (x the signal, when given) over the bin."""
    start, end, kw = _running(jobs)
    low = np.maximum(start[:, None], edges[None, :-1])
    high = np.minimum(end[:, None], edges[None, 1:])
    high = np.maximum(high, low)
    if signal is None:
        inside = high - low
    else:
        inside = signal.integral(low.ravel(), high.ravel()).reshape(low.shape)
    if not len(kw):
        return np.zeros(len(edges) - 1)
    # Jobs added one after another (np.add.accumulate): the same bits on every machine.
    return np.add.accumulate(kw[:, None] * inside, axis=0)[-1] / np.diff(edges)


def busy_power_kw(jobs: pd.DataFrame, edges: np.ndarray) -> np.ndarray:
    """Mean busy power (kW) of the jobs over each bin."""
    return _binned(jobs, edges, None)


def plot_busy_power(runs: Mapping[str, pd.DataFrame], time_unit: str, bins: int = 200,
                    cap: Signal | None = None) -> Figure:  # fmt: skip
    """Busy power drawn over time, one line per policy, and the cap (watts) when one is
    given: its mean over each bin, so a schedule within the cap stays under the line."""
    figure = Figure(figsize=(10, 3.6), layout="constrained")
    axes = figure.add_subplot()
    styles = policy_styles(list(runs))
    edges = bin_edges(pd.concat(list(runs.values()), ignore_index=True), bins)
    middles = (edges[:-1] + edges[1:]) / 2
    for policy, jobs in runs.items():
        style = styles[policy]
        axes.plot(middles, busy_power_kw(jobs, edges), label=policy, color=style.colour,
                  linestyle=style.line_style, linewidth=1.1)  # fmt: skip
    if cap is not None:
        mean_cap_kw = cap.integral(edges[:-1], edges[1:]) / np.diff(edges) / 1000
        axes.step(middles, mean_cap_kw, where="mid", color="black", linewidth=1.0,
                  linestyle=":", label="cap")  # fmt: skip
    axes.set_xlabel(f"time ({time_unit})")
    axes.set_ylabel("busy power (kW)")
    axes.set_title("power drawn by running jobs")
    axes.legend(fontsize="small", ncols=2)
    return figure


def plot_signal_rates(runs: Mapping[str, pd.DataFrame], price: Signal, carbon: Signal,
                      time_unit: str, bins: int = 200) -> Figure:  # fmt: skip
    """Electricity cost and carbon per hour of the running jobs over time, one line per
    policy, each panel with its signal (grey, right axis) behind it."""
    figure = Figure(figsize=(10, 6.4), layout="constrained")
    styles = policy_styles(list(runs))
    edges = bin_edges(pd.concat(list(runs.values()), ignore_index=True), bins)
    middles = (edges[:-1] + edges[1:]) / 2
    panels = (
        (price, "electricity cost per hour (money/h)", "price (money/kWh)", 1.0),
        (carbon, "carbon per hour (kg/h)", "intensity (g/kWh)", 1000.0),
    )
    for row, (signal, ylabel, signal_label, per_kg) in enumerate(panels):
        axes = figure.add_subplot(2, 1, row + 1)
        behind = axes.twinx()
        behind.fill_between(middles, signal.at(middles), step="mid", color="0.85", zorder=0)
        behind.set_ylabel(signal_label, color="0.4")
        axes.set_zorder(behind.get_zorder() + 1)
        axes.patch.set_visible(False)
        for policy, jobs in runs.items():
            style = styles[policy]
            # kW x signal-seconds per second of bin = kWh-rate x value; per hour: x 3600 / 3600
            rate = _binned(jobs, edges, signal) / per_kg
            axes.plot(middles, rate, label=policy, color=style.colour,
                      linestyle=style.line_style, linewidth=1.1)  # fmt: skip
        axes.set_ylabel(ylabel)
        axes.set_xlabel(f"time ({time_unit})")
    figure.axes[0].legend(fontsize="small", ncols=2)
    return figure


def scenario_cap(scenario: Mapping) -> Signal | None:
    """The power cap of a resolved scenario (a replay's platform or a job flow's
    environment; watts), None without one."""
    from gridsim.energy.config import SignalConfig

    section = scenario.get("environment") or scenario.get("platform") or {}
    config = section.get("power_cap")
    return SignalConfig(**config).signal() if config else None


def scenario_signals(scenario: Mapping) -> tuple[Signal, Signal] | None:
    """The price and carbon signals of a resolved scenario (environment or platform), None
    when it has no power model or its node classes have signals of their own."""
    from gridsim.energy.config import SignalConfig

    section = scenario.get("environment") or scenario.get("platform") or {}
    classes = section.get("node_classes") or ()
    powered = section.get("power") or any(c.get("power") for c in classes)
    own = any(c.get(name) for c in classes for name in ("electricity_price", "carbon_intensity"))
    if not powered or own:
        return None
    signals = []
    for name in ("electricity_price", "carbon_intensity"):
        config = section.get(name)
        signals.append(SignalConfig(**config).signal() if config else Signal.constant(0.0))
    return signals[0], signals[1]
