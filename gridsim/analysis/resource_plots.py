"""Figures of a schedule on nodes with cores, memory and GPUs: the share of every resource in
use and the stranded cores over time.

Consumes jobs tables with the per-resource columns (docs/resources.md) of one run per policy
-- a mapping from policy label to that run's jobs -- and the nodes' capacities (nodes x kinds);
produces matplotlib Figures, never shown or saved here. The series are the step functions of
:func:`gridsim.analysis.resource_metrics.resource_timeline`, drawn as their exact
time-weighted means over equal bins, as the processors in use of
:func:`gridsim.analysis.schedule_plots.plot_utilisation`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gridsim.analysis.palette import policy_styles
from gridsim.analysis.resource_metrics import resource_timeline
from gridsim.analysis.schedule_plots import bin_width_text, time_axis, time_label
from gridsim.analysis.timelines import Steps, bin_edges
from gridsim.resources import RESOURCE_KINDS

__all__ = ["plot_resource_utilisation", "plot_stranded_cores", "tracked_kinds"]

KIND_NAMES = {"cores": "cores", "memory_mb": "memory", "gpus": "GPUs"}


def tracked_kinds(capacity: np.ndarray, memory_tracked: bool) -> list[str]:
    """The kinds the platform has (memory only when tracked)."""
    has = capacity.sum(axis=0) > 0
    return [kind for column, kind in enumerate(RESOURCE_KINDS)
            if has[column] and (kind != "memory_mb" or memory_tracked)]  # fmt: skip


def plot_resource_utilisation(
    runs: Mapping[str, pd.DataFrame], capacity: np.ndarray, memory_tracked: bool,
    time_unit: str = "time units", origin: float | None = None, bins: int = 400,
) -> Figure:  # fmt: skip
    """The share of the platform's cores, memory and GPUs in use over time: one panel per
    kind the platform has, one line per policy."""
    kinds = tracked_kinds(capacity, memory_tracked)
    figure = Figure(figsize=(10, 1.2 + 2.2 * len(kinds)), layout="constrained")
    panels = figure.subplots(len(kinds), 1, sharex=True, squeeze=False)[:, 0]
    edges, middles = _bins(runs, bins, origin)
    timelines = {policy: resource_timeline(jobs, capacity, memory_tracked)
                 for policy, jobs in runs.items()}  # fmt: skip
    styles = policy_styles(list(runs))
    for axes, kind in zip(panels, kinds, strict=True):
        for policy, timeline in timelines.items():
            means = _binned(timeline, f"utilisation_{kind}", edges)
            style = styles[policy]
            axes.plot(middles, means, label=policy, color=style.colour,
                      linestyle=style.line_style, linewidth=1.1)  # fmt: skip
        axes.set_ylabel(f"share of {KIND_NAMES[kind]}")
        axes.set_ylim(0, 1.02)
        axes.grid(alpha=0.3)
    panels[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="policy")
    panels[0].set_title(f"resources in use, mean over bins of "
                        f"{bin_width_text(edges, time_unit)}", fontsize=10)  # fmt: skip
    panels[-1].set_xlabel(time_label(time_unit, origin))
    return figure


def plot_stranded_cores(
    runs: Mapping[str, pd.DataFrame], capacity: np.ndarray, memory_tracked: bool,
    time_unit: str = "time units", origin: float | None = None, bins: int = 400,
) -> Figure:  # fmt: skip
    """Free cores on nodes whose memory or GPUs are gone, over time, one line per policy."""
    figure = Figure(figsize=(10, 3.6), layout="constrained")
    axes = figure.add_subplot()
    edges, middles = _bins(runs, bins, origin)
    styles = policy_styles(list(runs))
    for policy, jobs in runs.items():
        timeline = resource_timeline(jobs, capacity, memory_tracked)
        style = styles[policy]
        axes.plot(middles, _binned(timeline, "stranded_cores", edges), label=policy,
                  color=style.colour, linestyle=style.line_style, linewidth=1.1)  # fmt: skip
    axes.set_xlabel(time_label(time_unit, origin))
    axes.set_ylabel(f"stranded cores (of {int(capacity[:, 0].sum())})")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="policy")
    axes.set_title("free cores on nodes whose memory or GPUs are gone, mean over bins of "
                   f"{bin_width_text(edges, time_unit)}", fontsize=10)  # fmt: skip
    return figure


def _bins(runs: Mapping[str, pd.DataFrame], bins: int, origin: float | None):
    edges = bin_edges(pd.concat(list(runs.values()), ignore_index=True), bins)
    return edges, time_axis((edges[:-1] + edges[1:]) / 2, origin)


def _binned(timeline: pd.DataFrame, column: str, edges: np.ndarray) -> np.ndarray:
    steps = Steps(timeline.time.to_numpy(dtype=float), timeline[column].to_numpy(dtype=float))
    return steps.binned_means(edges)
