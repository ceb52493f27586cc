"""What each placement rule buys and costs under faults: tables and a figure of a fault sweep.

Consumes the ``runs`` table of a job-flow experiment swept over fault levels (its point
columns, e.g. ``faults.failures.rate``, name the levels; ``scenarios/dependability.yaml``);
produces per fault level and policy the means of the dependability metrics with 95%
intervals, the paired differences against a baseline policy on the same instances (common
random numbers), Markdown renderings of both, and the disturbed share against each fault
axis. Metric definitions: :mod:`gridsim.analysis.jobflow_stats`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from matplotlib.figure import Figure

from gridsim.analysis.palette import policy_styles
from gridsim.analysis.stats import paired_comparison, summarise_by

#: Metrics of the dependability study, with their headings in tables.
METRICS = {
    "disturbed_share": "disturbed share",
    "mean_start_delay": "start delay",
    "mean_finish": "mean finish",
    "total_cost_with_losses": "cost with losses",
    "lost_work": "lost node-time",
    "jobs_failed": "failed jobs",
}


def level_means(runs: pd.DataFrame, axes: Sequence[str]) -> pd.DataFrame:
    """Per fault level (values of ``axes``) and policy: ``<metric>_mean`` and ``_ci95``."""
    return summarise_by(runs, [*axes, "policy"], list(METRICS))


def paired_table(
    runs: pd.DataFrame, baseline: str, axes: Sequence[str], metrics: Sequence[str] = tuple(METRICS)
) -> pd.DataFrame:
    """Per fault level, policy and metric: ``policy - baseline`` on the same replications
    (mean, 95% half-width, pairs) and the mean relative difference
    (:func:`gridsim.analysis.stats.paired_comparison`)."""
    tables = [paired_comparison(runs, metric, baseline, list(axes)) for metric in metrics]
    return pd.concat(tables, ignore_index=True)


def markdown_paired(
    paired: pd.DataFrame, metric: str, axes: Sequence[str], relative: bool = False
) -> str:
    """One Markdown table for ``metric``: a row per fault level, a column per policy, cells
    ``difference ± half-width`` (in % of the baseline when ``relative``)."""
    part = paired[paired["metric"] == metric]
    policies = list(dict.fromkeys(part["policy"]))
    lines = [
        "| " + " | ".join([*axes, *policies]) + " |",
        "|" + "---|" * (len(axes) + len(policies)),
    ]
    for level, rows in part.groupby(list(axes), sort=False):
        level = level if isinstance(level, tuple) else (level,)
        by_policy = rows.set_index("policy")
        cells = [_number(value) for value in level]
        for policy in policies:
            row = by_policy.loc[policy]
            if relative:
                mean, half = 100 * row["relative_mean"], 100 * row["relative_ci95"]
                cells.append(f"{mean:+.1f}% ± {half:.1f}")
            else:
                mean, half = row["difference_mean"], row["difference_ci95"]
                cells.append(f"{_signed(mean)} ± {_number(half)}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_means(means: pd.DataFrame, level: dict[str, float]) -> str:
    """The means (± 95% half-width) of every metric at one fault level, a row per policy."""
    part = means
    for path, value in level.items():
        part = part[part[path] == value]
    lines = [
        "| policy | " + " | ".join(METRICS.values()) + " |",
        "|---|" + "---|" * len(METRICS),
    ]
    for row in part.itertuples(index=False):
        row = row._asdict() if hasattr(row, "_asdict") else dict(row)
        cells = [f"{_number(row[f'{m}_mean'])} ± {_number(row[f'{m}_ci95'])}" for m in METRICS]
        lines.append(f"| {row['policy']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def load_horizon_shares(jobs: pd.DataFrame, horizon: float, axes: Sequence[str]) -> pd.DataFrame:
    """Per fault level and policy, over replications: the share of jobs that started after
    ``horizon`` (where no local load is left) and the disturbed share of those that started
    before it (``<name>_mean``, ``_ci95``).

    A policy that starts jobs after the local load ends meets neither local overruns nor
    neighbours; this separates that from placing dependably among the local load.
    """
    ran = jobs[jobs["final_state"] != "rejected"]
    late = ran["start_time"] >= horizon
    ran = ran.assign(after_load=late.astype(float), disturbed_in_load=ran["disturbed"].astype(
        float).where(~late))  # fmt: skip
    keys = [*axes, "policy", "replication"]
    per_run = ran.groupby(keys, sort=False)[["after_load", "disturbed_in_load"]].mean()
    return summarise_by(per_run.reset_index(), [*axes, "policy"],
                        ["after_load", "disturbed_in_load"])  # fmt: skip


def markdown_shares(shares: pd.DataFrame, metric: str, axes: Sequence[str]) -> str:
    """One Markdown table of ``<metric>_mean ± _ci95``: a row per fault level, a column per
    policy."""
    policies = list(dict.fromkeys(shares["policy"]))
    lines = [
        "| " + " | ".join([*axes, *policies]) + " |",
        "|" + "---|" * (len(axes) + len(policies)),
    ]
    for level, rows in shares.groupby(list(axes), sort=False):
        level = level if isinstance(level, tuple) else (level,)
        by_policy = rows.set_index("policy")
        cells = [_number(value) for value in level]
        for policy in policies:
            mean, half = (
                by_policy.loc[policy, f"{metric}_mean"],
                by_policy.loc[policy, f"{metric}_ci95"],
            )
            cells.append(f"{_number(mean)} ± {_number(half)}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot_disturbed_share(runs: pd.DataFrame, axes: Sequence[str], title: str = "") -> Figure:
    """Disturbed share (mean, 95% interval) against each fault axis, the other axes at their
    lowest level: one panel per axis, one line per policy."""
    means = summarise_by(runs, [*axes, "policy"], ["disturbed_share"])
    figure = Figure(figsize=(5.0 * len(axes), 4.0), layout="constrained")
    styles = policy_styles(dict.fromkeys(runs["policy"]))
    for index, axis in enumerate(axes):
        panel = figure.add_subplot(1, len(axes), index + 1)
        part = means
        for other in axes:
            if other != axis:
                part = part[part[other] == part[other].min()]
        for policy, curve in part.groupby("policy", sort=False):
            curve = curve.sort_values(axis)
            style = styles[policy]
            panel.errorbar(curve[axis], curve["disturbed_share_mean"],
                           yerr=curve["disturbed_share_ci95"].fillna(0), label=policy,
                           color=style.colour, marker=style.marker,
                           linestyle=style.line_style, capsize=3, linewidth=1.4,
                           markersize=5)  # fmt: skip
        fixed = ", ".join(f"{other} = {_number(part[other].min())}" for other in axes
                          if other != axis)  # fmt: skip
        panel.set_xlabel(axis + (f"\n({fixed})" if fixed else ""))
        panel.set_ylabel("share of jobs disturbed")
        panel.grid(alpha=0.3)
        if index == 0:
            panel.legend(fontsize=7)
    count = int(runs.groupby([*axes, "policy"]).size().min())
    figure.suptitle(title or f"Disturbed jobs, 95% intervals, {count} replications per point")
    return figure


def _number(value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "-"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"


def _signed(value: float) -> str:
    return ("+" if value >= 0 else "") + _number(value)
