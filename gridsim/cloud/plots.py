"""Figures like those of [RRM, Fig. 1-3]: consume the turnaround model or the ``progress`` and
``tasks`` tables of :func:`gridsim.experiments.cloud.run_replication`; produce matplotlib
Figures (never shown, so callers decide to save or display them).

Colours come from the Okabe-Ito palette, which stays distinguishable with the common forms of
colour blindness; a policy has the same colour as in every other figure
(:mod:`gridsim.analysis.palette`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gridsim.analysis.palette import COLOURS, OKABE_ITO, policy_styles
from gridsim.analysis.plots import plot_samples_over_time
from gridsim.cloud.turnaround import (
    NAGANO,
    ApplicationProfile,
    MiddlewareIntervals,
    overhead_fraction,
)

__all__ = ["OKABE_ITO", "plot_overhead", "plot_production", "plot_task_sizes"]


PAPER_INTERVALS = MiddlewareIntervals(scheduling_interval_s=10.0, pilot_interval_s=30.0)
"""``t_si/2 = 5 s`` and ``t_pi = 30 s`` as configured in [RRM, Sec. 5.1]."""


def plot_overhead(
    samples_per_task: Sequence[int] = (1500, 3000, 6000, 18000),
    performance_w: tuple[float, float] = (1000.0, 2000.0),
    application: ApplicationProfile = NAGANO,
    intervals: MiddlewareIntervals = PAPER_INTERVALS,
    bandwidth_mb_s: float = 0.25,
) -> Figure:
    """Overhead share of the expected turnaround against pilot performance (cf. Fig. 1).

    Needs no simulation: it evaluates :func:`overhead_fraction` of eq. 2-3 on a grid.
    """
    figure = Figure(figsize=(6.0, 4.0), layout="constrained")
    axes = figure.add_subplot()
    performance = np.linspace(*performance_w, 101)
    for colour, samples in zip(COLOURS, samples_per_task, strict=False):
        share = overhead_fraction(samples, performance, bandwidth_mb_s, application, intervals)
        axes.plot(performance, 100.0 * share, color=colour, label=f"{samples} samples/task")
    axes.set_xlabel("pilot performance P (whetstones)")
    axes.set_ylabel("overhead of expected turnaround (%)")
    axes.set_title("Task overhead, eq. 2-3")
    axes.legend()
    axes.grid(alpha=0.3)
    return figure


def plot_production(progress: pd.DataFrame) -> Figure:
    """Samples completed and pilots enrolled over time (cf. Fig. 2-3): the same figure as
    :func:`gridsim.analysis.plots.plot_samples_over_time`, kept under its cloud name."""
    return plot_samples_over_time(progress)


def plot_task_sizes(tasks: pd.DataFrame) -> Figure:
    """Chunk size of every task against its submission time, one colour per policy
    (shows DyTSS starting near ``M`` and ending near ``L``)."""
    figure = Figure(figsize=(7.0, 3.5), layout="constrained")
    axes = figure.add_subplot()
    for policy, look in policy_styles(tasks["policy"]).items():
        chosen = tasks[tasks["policy"] == policy]
        axes.scatter(chosen["submit_s"] / 3600.0, chosen["samples"], s=6, color=look.colour,
                     marker=look.marker, label=policy)  # fmt: skip
    axes.set_xlabel("submission time (h)")
    axes.set_ylabel("samples per task")
    axes.legend()
    axes.grid(alpha=0.3)
    return figure
