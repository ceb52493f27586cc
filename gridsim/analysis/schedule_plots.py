"""Figures of schedules: utilisation and queue over time, distributions, breakdowns of wait.

Consumes jobs tables (:data:`gridsim.sim.trace.JOB_COLUMNS`) of one run per policy -- a
mapping from policy label to that run's jobs -- and produces matplotlib Figures, never shown
or saved here (:mod:`gridsim.analysis.plots` draws the runs tables and the Gantt chart). A
policy has the same colour and line style as in every other figure
(:mod:`gridsim.analysis.palette`). Times are in the kind's ``time_unit``; with ``origin``
(the Unix time of time 0, a log's UnixStartTime) the time axis shows dates (UTC).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gridsim.analysis.jobflow_metrics import ran
from gridsim.analysis.palette import policy_styles
from gridsim.analysis.resource_metrics import RESOURCE_CLASSES
from gridsim.analysis.timelines import bin_edges, processors_in_use, queue_length

__all__ = [
    "plot_cdf",
    "plot_queue_length",
    "plot_utilisation",
    "plot_wait_by_resource_class",
    "plot_wait_by_size",
    "plot_wait_by_user",
    "size_class",
]

#: Users shown in the per-user breakdown: those with the most jobs.
TOP_USERS = 10


def time_axis(values: np.ndarray, origin: float | None) -> np.ndarray:
    """Times as dates when the log gives its start, else as they are."""
    if origin is None:
        return values
    return pd.to_datetime(origin + values, unit="s").to_numpy()


def time_label(time_unit: str, origin: float | None) -> str:
    return "date (UTC)" if origin is not None else f"time ({time_unit})"


def _over_time(
    runs: Mapping[str, pd.DataFrame], series, ylabel: str, title: str, time_unit: str,
    origin: float | None, bins: int, scale: float = 1.0,
) -> Figure:  # fmt: skip
    figure = Figure(figsize=(10, 3.6), layout="constrained")
    axes = figure.add_subplot()
    styles = policy_styles(list(runs))
    edges = bin_edges(pd.concat(list(runs.values()), ignore_index=True), bins)
    middles = time_axis((edges[:-1] + edges[1:]) / 2, origin)
    for policy, jobs in runs.items():
        means = series(jobs).binned_means(edges) / scale
        style = styles[policy]
        axes.plot(middles, means, label=policy, color=style.colour,
                  linestyle=style.line_style, linewidth=1.1)  # fmt: skip
    axes.set_xlabel(time_label(time_unit, origin))
    axes.set_ylabel(ylabel)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="policy")
    axes.set_title(title, fontsize=10)
    return figure


def plot_utilisation(
    runs: Mapping[str, pd.DataFrame],
    machine_processors: int | None,
    time_unit: str = "time units",
    origin: float | None = None,
    bins: int = 400,
) -> Figure:
    """Share of the machine's processors in use over time, one line per policy: the exact
    time-weighted mean over each of ``bins`` equal bins (processors in use without a
    machine size)."""
    scale = float(machine_processors or 1)
    label = "utilisation (share of processors)" if machine_processors else "processors in use"
    width = _bin_width(runs, bins, time_unit)
    return _over_time(runs, processors_in_use, label,
                      f"processors in use, mean over bins of {width}", time_unit, origin,
                      bins, scale)  # fmt: skip


def plot_queue_length(
    runs: Mapping[str, pd.DataFrame],
    time_unit: str = "time units",
    origin: float | None = None,
    bins: int = 400,
) -> Figure:
    """Jobs waiting (submitted, not started) over time, one line per policy: the mean over
    each of ``bins`` equal bins."""
    width = _bin_width(runs, bins, time_unit)
    return _over_time(runs, queue_length, "jobs waiting",
                      f"queue length, mean over bins of {width}", time_unit, origin,
                      bins)  # fmt: skip


def _bin_width(runs: Mapping[str, pd.DataFrame], bins: int, time_unit: str) -> str:
    return bin_width_text(bin_edges(pd.concat(list(runs.values()), ignore_index=True), bins),
                          time_unit)  # fmt: skip


def bin_width_text(edges: np.ndarray, time_unit: str) -> str:
    """The width of equal bins as a reader wants it (hours for long spans of seconds)."""
    width = float(edges[1] - edges[0])
    if time_unit == "s" and width >= 3600:
        return f"{width / 3600:.3g} h"
    return f"{width:.3g} {time_unit}"


def plot_cdf(runs: Mapping[str, pd.DataFrame], column: str, label: str, log: bool = True) -> Figure:
    """The empirical distribution (CDF) of a per-job column over the jobs that ran, one line
    per policy; a log x axis (symmetric below 1, where waits of 0 sit) when ``log``."""
    figure = Figure(figsize=(6.4, 4.0), layout="constrained")
    axes = figure.add_subplot()
    styles = policy_styles(list(runs))
    for policy, jobs in runs.items():
        values = np.sort(jobs.loc[ran(jobs), column].dropna().to_numpy(dtype=float))
        if len(values) == 0:
            continue
        share = np.arange(1, len(values) + 1) / len(values)
        style = styles[policy]
        axes.step(values, share, where="post", label=policy, color=style.colour,
                  linestyle=style.line_style, linewidth=1.2)  # fmt: skip
    if log:
        axes.set_xscale("symlog", linthresh=1.0)
    axes.set_xlabel(label)
    axes.set_ylabel("share of jobs at or below")
    axes.set_ylim(0, 1.01)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, title="policy")
    return figure


def size_class(processors: pd.Series) -> pd.Series:
    """Jobs by size in powers of two: ``1``, ``2``, ``3-4``, ``5-8``, ..."""
    upper = 2 ** np.ceil(np.log2(processors.clip(lower=1).to_numpy(dtype=float)))
    lower = upper // 2 + 1
    labels = [f"{int(u)}" if low >= u else f"{int(low)}-{int(u)}"
              for low, u in zip(lower, upper, strict=True)]  # fmt: skip
    return pd.Series(pd.Categorical(labels, categories=_ordered(labels)), index=processors.index)


def _ordered(labels: list[str]) -> list[str]:
    return sorted(set(labels), key=lambda text: int(text.split("-")[-1]))


def _grouped_bars(
    means: pd.DataFrame, counts: pd.Series, xlabel: str, ylabel: str, title: str
) -> Figure:
    """Bars of ``means`` (groups x policies), the jobs per group written under each group."""
    policies = list(means.columns)
    styles = policy_styles(policies)
    groups = list(means.index)
    figure = Figure(figsize=(min(11.0, 3.5 + 0.5 * len(groups) * max(1, len(policies)) / 2), 4),
                    layout="constrained")  # fmt: skip
    axes = figure.add_subplot()
    width = 0.8 / max(1, len(policies))
    for index, policy in enumerate(policies):
        offset = (index - (len(policies) - 1) / 2) * width
        style = styles[policy]
        axes.bar(np.arange(len(groups)) + offset, means[policy].to_numpy(), width * 0.95,
                 label=policy, color=style.colour, hatch=style.hatch, edgecolor=style.edge,
                 linewidth=0.4)  # fmt: skip
    axes.set_xticks(range(len(groups)))
    axes.set_xticklabels([f"{g}\n({int(counts[g])} jobs)" for g in groups], fontsize=7)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize=8, title="policy", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes.set_title(title, fontsize=10)
    return figure


def plot_wait_by_size(runs: Mapping[str, pd.DataFrame], time_unit: str = "time units") -> Figure:
    """Mean wait per job size (processors, in powers of two), one bar per policy."""
    means, counts = {}, None
    for policy, jobs in runs.items():
        done = jobs[ran(jobs)]
        classes = size_class(done["processors"])
        means[policy] = done["wait_time"].groupby(classes, observed=True).mean()
        counts = classes.value_counts() if counts is None else counts
    table = pd.DataFrame(means)
    return _grouped_bars(table, counts, "job size (processors)", f"mean wait ({time_unit})",
                         "mean wait by job size")  # fmt: skip


def plot_wait_by_resource_class(
    runs: Mapping[str, pd.DataFrame], time_unit: str = "time units"
) -> Figure:
    """Mean wait per resource class (``gpu``, ``memory``, ``cpu``: the jobs table's
    ``resource_class``), one bar per policy."""
    means, counts = {}, None
    for policy, jobs in runs.items():
        done = jobs[ran(jobs)]
        classes = pd.Categorical(done["resource_class"], categories=RESOURCE_CLASSES)
        means[policy] = done["wait_time"].groupby(classes, observed=True).mean()
        counts = pd.Series(classes).value_counts() if counts is None else counts
    return _grouped_bars(pd.DataFrame(means), counts, "resource class",
                         f"mean wait ({time_unit})", "mean wait by resource class")  # fmt: skip


def plot_wait_by_user(
    runs: Mapping[str, pd.DataFrame], time_unit: str = "time units", users: int = TOP_USERS
) -> Figure:
    """Mean wait of the ``users`` users with the most jobs, one bar per policy."""
    first = next(iter(runs.values()))
    known = first[first["user_id"] >= 0]
    counts = known["user_id"].value_counts().head(users)
    means = {}
    for policy, jobs in runs.items():
        done = jobs[ran(jobs) & jobs["user_id"].isin(counts.index)]
        means[policy] = done.groupby("user_id")["wait_time"].mean().reindex(counts.index)
    return _grouped_bars(pd.DataFrame(means), counts, "user (by number of jobs)",
                         f"mean wait ({time_unit})",
                         f"mean wait of the {len(counts)} users with the most jobs")  # fmt: skip
