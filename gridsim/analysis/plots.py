"""Figures of results tables: Gantt chart, comparison bars, advantage curves, samples over time.

Consumes the tables of :func:`gridsim.analysis.results.load_results` (or of one replication);
produces matplotlib Figures, never shown or saved here, so callers decide. Each function
declares the columns it needs in :data:`COLUMNS` and raises ValueError naming any that are
missing. A policy has the same colour (and hatch, line style, marker) in every figure, from
:mod:`gridsim.analysis.palette` (Okabe-Ito colours, safe with the common forms of colour
blindness); intervals are 95% Student-t intervals of the mean
(:mod:`gridsim.analysis.stats`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from gridsim.analysis.jobflow_stats import relative_advantage
from gridsim.analysis.palette import DARK_COLOURS, OKABE_ITO, job_styles, policy_styles
from gridsim.analysis.stats import comparison_keys, policy_means

__all__ = [
    "COLUMNS",
    "OKABE_ITO",
    "metric_label",
    "plot_advantage",
    "plot_comparison",
    "plot_gantt",
    "plot_samples_over_time",
]

LOCAL_LOAD_GREY = "0.75"
#: Unavailable time that is not a job's: announced local load, the unplanned kinds, outages.
UNAVAILABLE_STYLE = {
    "local_load": (LOCAL_LOAD_GREY, "//", "local load"),
    "local_overrun": (LOCAL_LOAD_GREY, "xx", "local overrun / unannounced"),
    "local_unannounced": (LOCAL_LOAD_GREY, "xx", "local overrun / unannounced"),
    "down": ("0.15", "", "node down"),
}
#: Hatch of a job's run that a failure killed (in the job's colour, red edge).
LOST_HATCH, LOST_EDGE = "xxx", "#D55E00"

#: The columns each plot needs (``<metric>`` stands for the metric argument).
COLUMNS: dict[str, tuple[str, ...]] = {
    "plot_gantt": ("job_id", "node", "performance", "start", "end", "kind"),
    "plot_comparison": ("policy", "<metric>"),
    "plot_advantage": ("policy", "replication", "<over>", "<metric>"),
    "plot_samples_over_time": ("policy", "replication", "time_s", "samples_completed",
                               "pilots"),
}  # fmt: skip

#: Axis labels of columns no kind owns; each kind's metrics are labelled in its declaration.
METRIC_LABELS = {"queue_size": "queue size (jobs)"}


def metric_label(metric: str, labels: Mapping[str, str] | None = None) -> str:
    """An axis label with its unit for a runs-table metric: from ``labels`` (a kind's
    declaration's), else from the first kind that labels it, else the name itself."""
    from gridsim.experiments.kinds import KINDS, declaration

    if labels and metric in labels:
        return labels[metric]
    for kind in KINDS:
        found = declaration(kind).labels.get(metric)
        if found:
            return found
    return METRIC_LABELS.get(metric, metric)


def _require(table: pd.DataFrame, plot: str, **names: str) -> None:
    needed = [names.get(c.strip("<>"), c) if c.startswith("<") else c for c in COLUMNS[plot]]
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise ValueError(f"{plot} needs columns {missing}, got {list(table.columns)}")


def plot_gantt(
    tasks: pd.DataFrame,
    title: str = "",
    time_unit: str = "time units",
    window: tuple[float, float] | None = None,
    label_jobs: bool = True,
    origin: float | None = None,
) -> Figure:
    """A Gantt chart of one run's tasks (or a replay's jobs, through
    :func:`~gridsim.analysis.timelines.tasks_of_jobs`).

    Nodes are on the y axis sorted by performance (fastest on top), local load is grey and
    hatched (cross-hatched where it overran or was not announced), outages are black, each job
    has one style -- colour, and a hatch beyond the first eight -- that differs from every
    neighbouring job's (:func:`gridsim.analysis.palette.job_styles`), and its id written on
    its bars; a run a failure killed is cross-hatched with a red edge.

    Args:
        tasks: the ``tasks`` table of one run (:func:`gridsim.analysis.results.select_run`).
        window: ``(start, end)`` in time units to show only that part of the schedule.
        label_jobs: write job ids on the bars (skipped when there are over 400 bars).
        origin: the Unix time of time 0 (a log's UnixStartTime): tick labels are dates (UTC).
    """
    _require(tasks, "plot_gantt")
    if window is not None:
        tasks = tasks[(tasks["end"] > window[0]) & (tasks["start"] < window[1])]
    nodes = (
        tasks[["node", "performance"]].drop_duplicates("node").sort_values(["performance", "node"])
    )
    row = {int(node): i for i, node in enumerate(nodes["node"])}
    figure = Figure(figsize=(10, min(12.0, max(3.0, 0.22 * len(row) + 1.6))), layout="constrained")
    axes = figure.add_subplot()
    # ids on the bars while they stay legible: few bars, or (a log's wide jobs) few jobs,
    # each named once on its middle node
    write_labels = label_jobs and (len(tasks) <= 400 or tasks["job_id"].nunique() <= 150)
    named = _middle_rows(tasks, row) if write_labels else {}
    styles = job_styles(tasks[~tasks["kind"].isin(UNAVAILABLE_STYLE)], row)
    for task in tasks.itertuples():
        y, width = row[int(task.node)], task.end - task.start
        if task.kind in UNAVAILABLE_STYLE:
            colour, hatch, _ = UNAVAILABLE_STYLE[task.kind]
            job, edge = None, "black"
        else:
            job = styles[int(task.job_id)]
            colour, edge, hatch = job.colour, job.edge, _gantt_hatch(job.hatch)
            if task.kind == "lost":
                edge, hatch = LOST_EDGE, LOST_HATCH
        axes.broken_barh([(task.start, width)], (y - 0.4, 0.8), facecolors=colour,
                         edgecolors=edge, linewidth=0.3, hatch=hatch)  # fmt: skip
        if job is not None and named.get(int(task.job_id)) == y:
            axes.text(task.start + width / 2, y, str(int(task.job_id)), ha="center",
                      va="center", fontsize=6,
                      color="white" if colour in DARK_COLOURS else "black",
                      clip_on=True)  # fmt: skip
    axes.set_yticks(list(row.values()))
    if nodes["performance"].nunique() > 1:
        axes.set_yticklabels([f"{node} (p={p:.3g})" for node, p in
                              zip(nodes["node"], nodes["performance"], strict=True)])  # fmt: skip
        axes.set_ylabel("node (performance p)")
    else:
        axes.set_yticklabels([str(node) for node in nodes["node"]], fontsize=6 if len(row) > 40
                             else None)  # fmt: skip
        axes.set_ylabel("node")
    axes.set_xlabel(f"time ({time_unit})")
    if origin is not None:
        axes.xaxis.set_major_formatter(FuncFormatter(lambda x, _: _date(origin + x, "\n")))
        axes.set_xlabel(f"date (UTC; time {time_unit} since {_date(origin)})")
    if window is not None:
        axes.set_xlim(*window)
    else:
        axes.set_xlim(left=0)
    kinds = set(tasks["kind"])
    handles = [Patch(facecolor=OKABE_ITO[0], edgecolor="black", label="job (id on bar)")]
    if "local_load" in kinds:
        handles.insert(0, Patch(facecolor=LOCAL_LOAD_GREY, hatch="//", edgecolor="black",
                                label="local load"))  # fmt: skip
    for kind in ("local_overrun", "local_unannounced", "down"):
        colour, hatch, label = UNAVAILABLE_STYLE[kind]
        if kind in kinds and label not in [h.get_label() for h in handles]:
            handles.append(Patch(facecolor=colour, hatch=hatch, edgecolor="black", label=label))
    if "lost" in kinds:
        handles.append(Patch(facecolor=OKABE_ITO[0], hatch=LOST_HATCH, edgecolor=LOST_EDGE,
                             label="run killed by a failure"))  # fmt: skip
    axes.legend(handles=handles, loc="upper right", fontsize=7, framealpha=0.9)
    axes.set_title(title)
    return figure


def _middle_rows(tasks: pd.DataFrame, row: dict[int, int]) -> dict[int, int]:
    """Per job, the row its id is written on: the middle one of its nodes' rows."""
    rows = tasks.assign(row=tasks["node"].astype(int).map(row))
    jobs = rows[~rows["kind"].isin(UNAVAILABLE_STYLE)]
    return {int(job): sorted(part)[len(part) // 2] for job, part in jobs.groupby("job_id")["row"]}


def _date(unix_seconds: float, between: str = " ") -> str:
    return pd.Timestamp(unix_seconds, unit="s").strftime(f"%Y-%m-%d{between}%H:%M")


def _gantt_hatch(hatch: str | None) -> str | None:
    """Job hatches in a Gantt chart: backslashes, so that none looks like local load's //."""
    return "\\\\" if hatch == "//" else hatch


def plot_comparison(
    runs: pd.DataFrame,
    metric: str,
    group: str | None = None,
    title: str = "",
    ylabel: str | None = None,
) -> Figure:
    """Bars of the per-policy mean of ``metric`` with 95% interval whiskers.

    Args:
        runs: a runs table (one row per replication and policy).
        group: a column giving one cluster of bars per value (``queue_size``, ``goal``),
            policies in the legend; default the first of
            :func:`gridsim.analysis.stats.comparison_keys`. Without one, one bar per policy
            named on the x axis.
    """
    _require(runs, "plot_comparison", metric=metric)
    if group is None:
        keys = comparison_keys(runs)
        group = keys[0] if keys else None
    summary = policy_means(runs, [metric], [group] if group else [])
    policies = list(dict.fromkeys(summary["policy"]))
    styles = policy_styles(policies)
    if group is None:  # one bar per policy, named on the x axis
        figure = Figure(figsize=(min(10.0, 2.5 + 0.55 * len(policies)), 4.2),
                        layout="constrained")  # fmt: skip
        axes = figure.add_subplot()
        bars = axes.bar(range(len(policies)), summary[f"{metric}_mean"],
                        yerr=summary[f"{metric}_ci95"].fillna(0), capsize=3,
                        edgecolor="black", linewidth=0.4)  # fmt: skip
        for bar, policy in zip(bars, policies, strict=True):
            bar.set_facecolor(styles[policy].colour)
            bar.set_edgecolor(styles[policy].edge)
            bar.set_hatch(styles[policy].hatch)
        axes.set_xticks(range(len(policies)))
        axes.set_xticklabels(policies, rotation=30 if len(policies) > 4 else 0, ha="right"
                             if len(policies) > 4 else "center", fontsize=8)  # fmt: skip
    else:
        groups = list(dict.fromkeys(summary[group]))
        width = 0.8 / len(policies)
        figure = Figure(figsize=(min(9.0, 3.5 + 0.35 * len(groups) * len(policies)), 3.8),
                        layout="constrained")  # fmt: skip
        axes = figure.add_subplot()
        for index, policy in enumerate(policies):
            part = summary[summary["policy"] == policy]
            offset = (index - (len(policies) - 1) / 2) * width
            axes.bar([groups.index(g) + offset for g in part[group]], part[f"{metric}_mean"],
                     width * 0.95, yerr=part[f"{metric}_ci95"].fillna(0), capsize=3,
                     label=policy, color=styles[policy].colour, hatch=styles[policy].hatch,
                     edgecolor=styles[policy].edge, linewidth=0.4,
                     error_kw={"linewidth": 0.9})  # fmt: skip
        axes.set_xticks(range(len(groups)))
        axes.set_xticklabels([str(g) for g in groups])
        axes.set_xlabel(metric_label(group))
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="policy")
    axes.set_ylabel(ylabel or metric_label(metric))
    axes.grid(axis="y", alpha=0.3)
    axes.set_title(title or f"mean with 95% interval, {summary['runs'].max()} replications")
    return figure


def plot_advantage(
    runs: pd.DataFrame,
    baseline: str,
    metric: str = "mean_finish",
    over: str = "queue_size",
    title: str = "",
    axes: Sequence[str] | None = None,
) -> Figure:
    """Mean paired advantage over ``baseline`` (%) against a swept field ``over``, with 95%
    interval whiskers, one line per policy (like [TY20, Fig. 3-4]); lines are dodged
    sideways a little so that the whiskers do not hide each other.

    The advantage is ``100 (baseline - policy) / baseline`` of ``metric`` on the same
    instance (:func:`gridsim.analysis.jobflow_stats.relative_advantage`): above zero is
    better than the baseline for times and costs. ``over`` may be any swept field (a numeric
    column); when the runs hold other swept fields (``axes``, default the dotted columns and
    ``queue_size``), one panel is drawn per combination of their values, sharing the y axis.
    """
    _require(runs, "plot_advantage", metric=metric, over=over)
    curves = relative_advantage(runs, baseline, metric, axes)
    others = [k for k in comparison_keys(runs, axes) if k not in (over, "run")]
    panels = list(curves.groupby(others, sort=False, dropna=False)) if others else [((), curves)]
    columns = min(len(panels), 4)
    rows = -(-len(panels) // columns)
    size = (6.0, 4.0) if len(panels) == 1 else (1.0 + 4.2 * columns, 0.6 + 3.4 * rows)
    figure = Figure(figsize=size, layout="constrained")
    grid = figure.subplots(rows, columns, sharey=True, squeeze=False)
    policies = [p for p in dict.fromkeys(curves["policy"]) if p != baseline]
    styles = policy_styles([baseline, *policies])  # as in a comparison that includes it
    steps = sorted(curves[over].dropna().unique())
    dodge = 0.012 * (steps[-1] - steps[0] if len(steps) > 1 else 1.0)
    for index, (values, part_curves) in enumerate(panels):
        axes_ = grid[index // columns][index % columns]
        axes_.axhline(0.0, color="black", linewidth=0.8)
        for number, policy in enumerate(policies):
            part = part_curves[part_curves["policy"] == policy].sort_values(over)
            offset = (number - (len(policies) - 1) / 2) * dodge
            axes_.errorbar(part[over] + offset, part["advantage_pct"],
                           yerr=part["ci95"].fillna(0), marker=styles[policy].marker,
                           linestyle=styles[policy].line_style, capsize=3, label=policy,
                           color=styles[policy].colour, linewidth=1.4, markersize=5)  # fmt: skip
        axes_.set_xlabel(metric_label(over))
        axes_.set_xticks(steps)
        axes_.grid(alpha=0.3)
        if others:
            values = values if isinstance(values, tuple) else (values,)
            axes_.set_title(", ".join(f"{_short_name(k)} {v}"
                                      for k, v in zip(others, values, strict=True)),
                            fontsize=9)  # fmt: skip
        if index % columns == 0:
            axes_.set_ylabel(f"advantage over {baseline} (%)")
    for index in range(len(panels), rows * columns):
        grid[index // columns][index % columns].set_visible(False)
    grid[0][0].legend(fontsize=8)
    runs_count = int(curves["runs"].max())
    heading = title or f"{metric}: paired advantage, 95% intervals, {runs_count} replications"
    if others:
        figure.suptitle(heading, fontsize=11)
    else:
        grid[0][0].set_title(heading)
    return figure


def _short_name(path: str) -> str:
    """The last part of a dotted field path (a panel title; the full path is in the data)."""
    return path.rsplit(".", 1)[-1]


def plot_samples_over_time(progress: pd.DataFrame, policies: Sequence[str] | None = None) -> Figure:
    """Samples completed (top) and pilots enrolled (bottom) over time, one line per policy
    and replication (like [RRM, Fig. 2-3]).

    Args:
        progress: the ``progress`` table of a cloud run.
        policies: which policies to draw, in legend order (default all).
    """
    _require(progress, "plot_samples_over_time")
    figure = Figure(figsize=(7.0, 5.0), layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True)
    policies = list(policies or dict.fromkeys(progress["policy"]))
    styles = policy_styles(policies)
    for policy in policies:
        look = {"color": styles[policy].colour, "linestyle": styles[policy].line_style}
        for index, (_, run) in enumerate(
            progress[progress["policy"] == policy].groupby("replication")
        ):
            hours = run["time_s"] / 3600.0
            label = policy if index == 0 else None
            top.step(hours, run["samples_completed"] / 1e6, where="post", label=label,
                     alpha=0.8, **look)  # fmt: skip
            bottom.step(hours, run["pilots"], where="post", alpha=0.8, **look)
    top.set_ylabel("samples completed (millions)")
    top.legend()
    top.grid(alpha=0.3)
    bottom.set_ylabel("pilots enrolled")
    bottom.set_xlabel("time (h)")
    bottom.grid(alpha=0.3)
    return figure
