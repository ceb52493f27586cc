"""Means with 95% confidence intervals, per group, from result tables.

Consumes a DataFrame of per-run values; produces a tidy summary (mean, half-width of the 95%
interval, count). Intervals use Student's t with ``count - 1`` degrees of freedom.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from gridsim.analysis.tables import (
    Table,
    column,
    column_names,
    first_appearance,
    group_key,
    groups,
    key_values,
    rows,
    table_like,
)

if TYPE_CHECKING:
    import pandas as pd

# Two-sided 95% quantiles t_{0.975, df} for df = 1..30.
_T975 = (
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836,
    2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852,
    2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546,
    2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447,
    2.079613845, 2.073873068, 2.068657610, 2.063898562, 2.059538553,
    2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
)  # fmt: skip


def student_t_quantile_975(degrees_of_freedom: int) -> float:
    """The 0.975 quantile of Student's t: a table to 30 degrees, Cornish-Fisher beyond.

    No SciPy at run time; the tests check it against ``scipy.stats.t``.
    """
    if degrees_of_freedom < 1:
        raise ValueError(f"expected at least 1 degree of freedom, got {degrees_of_freedom}")
    if degrees_of_freedom <= len(_T975):
        return _T975[degrees_of_freedom - 1]
    z = NormalDist().inv_cdf(0.975)
    v = float(degrees_of_freedom)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


def confidence_half_width(values: Sequence[float] | np.ndarray) -> float:
    """Half-width of the 95% interval of the mean of the finite values (NaN below two)."""
    return mean_interval(values)[1]


def mean_interval(values: Sequence[float] | np.ndarray) -> tuple[float, float, int]:
    """(mean, 95% half-width, count) of the finite values; half-width NaN below two."""
    data = np.asarray(values, dtype=float)
    data = data[np.isfinite(data)]
    count = len(data)
    if count == 0:
        return math.nan, math.nan, 0
    mean = float(data.mean())
    if count < 2:
        return mean, math.nan, count
    half = student_t_quantile_975(count - 1) * float(data.std(ddof=1)) / math.sqrt(count)
    return mean, half, count


def summarise_by(table: Table, by: str | list[str], metrics: Sequence[str]) -> Table:
    """Per group: ``<metric>_mean``, ``<metric>_ci95`` for each metric, and ``runs``.

    Groups keep their order of first appearance (the scenario's policy order). A DataFrame
    gives a DataFrame, an Arrow table an Arrow table (:mod:`gridsim.analysis.tables`).
    """
    keys = [by] if isinstance(by, str) else list(by)
    values = {metric: column(table, metric).astype(float) for metric in metrics}
    rows = []
    for group, positions in groups(table, keys):
        row = dict(zip(keys, group, strict=True))
        row["runs"] = len(positions)
        for metric in metrics:
            mean, half, _count = mean_interval(values[metric][positions])
            row[f"{metric}_mean"] = mean
            row[f"{metric}_ci95"] = half
        rows.append(row)
    return table_like(rows, table)


def baseline_policy(baseline: str | None, policies: Sequence[str]) -> str | None:
    """The policy every comparison is made against -- in the console, ``paired`` tables,
    reports and figures alike: the scenario's ``baseline`` when it is one of ``policies``,
    else the first policy listed (None without policies)."""
    if baseline is not None and baseline in policies:
        return baseline
    return str(policies[0]) if len(policies) else None


def paired_comparison(runs: Table, metric: str, baseline: str, keys: Sequence[str] = ()) -> Table:
    """Each policy against ``baseline`` on the same replications (common random numbers).

    Per policy (and per ``keys`` group): the mean difference ``policy - baseline`` of
    ``metric`` over the replications both completed, its 95% interval, the number of pairs,
    and the mean relative difference ``policy / baseline - 1``.

    Groups and replications are taken as a pivot table of replications x ``keys`` by policy
    makes them (``pivot_table(sort=False, dropna=False)``): every combination of the keys'
    values in order of first appearance, replications in order of first appearance within
    each, policies in order of first appearance. A DataFrame gives a DataFrame, an Arrow
    table an Arrow table.
    """
    policies = first_appearance(key_values(runs, "policy"))
    if baseline not in policies:
        raise ValueError(f"baseline policy {baseline!r} is not in the results")
    index = ["replication", *keys]
    cells: dict[tuple, dict[Any, list[float]]] = {}
    values = column(runs, metric).astype(float)
    for group, positions in groups(runs, [*index, "policy"]):
        *at, policy = map(group_key, group)
        for position in positions:
            cells.setdefault(tuple(at), {}).setdefault(policy, []).append(values[position])
    levels = [first_appearance(key_values(runs, name)) for name in index]
    rows = []
    for group in itertools.product(*levels[1:]):
        at = [tuple(map(group_key, (replication, *group))) for replication in levels[0]]
        base = np.array([_cell(cells, where, baseline) for where in at])
        for policy in policies:
            if policy == baseline:
                continue
            other = np.array([_cell(cells, where, policy) for where in at])
            both = ~np.isnan(base) & ~np.isnan(other)
            mean, half, count = mean_interval(other[both] - base[both])
            with np.errstate(divide="ignore", invalid="ignore"):  # as pandas divides
                relative = other[both] / base[both] - 1.0
            rel_mean, rel_half, _ = mean_interval(relative)
            rows.append({
                **dict(zip(keys, group, strict=True)),
                "policy": policy,
                "baseline": baseline,
                "metric": metric,
                "pairs": count,
                "difference_mean": mean,
                "difference_ci95": half,
                "relative_mean": rel_mean,
                "relative_ci95": rel_half,
            })  # fmt: skip
    return table_like(rows, runs)


def _cell(cells: dict[tuple, dict[Any, list[float]]], where: tuple, policy: Any) -> float:
    """A pivot table's cell: the mean of the runs there (NaN ones left out), NaN if none."""
    found = [v for v in cells.get(where, {}).get(policy, []) if not math.isnan(v)]
    return float(np.mean(found)) if found else math.nan


#: Columns that split a comparison into separate groups when a runs table has them: the
#: results folder (when several are combined), a swept parameter, an optimisation goal.
GROUP_COLUMNS = ("run", "queue_size", "goal")


def swept_columns(runs: Table) -> list[str]:
    """Columns of a sweep's point values: those named by a dotted field path
    (``environment.local_load.max_utilisation``), as a grid names them."""
    return [c for c in column_names(runs) if "." in c]


def comparison_keys(runs: Table, axes: Sequence[str] | None = None) -> list[str]:
    """The columns of ``runs`` that, with ``replication``, identify one instance.

    The swept fields (``axes``, default :func:`swept_columns`; ``Results.axes`` names them
    all), then ``queue_size`` and ``goal`` when present. ``run`` (several results folders
    combined) only when some policy appears in more than one folder; folders with disjoint
    policies (say one folder per policy, same seed) are paired on ``replication`` across
    folders.
    """
    swept = swept_columns(runs) if axes is None else list(axes)
    names = column_names(runs)
    keys = [c for c in swept if c in names]
    keys += [c for c in GROUP_COLUMNS[1:] if c in names and c not in keys]
    if "run" in names:
        folders = column(runs, "run").tolist()
        per_policy = groups(runs, ["policy"])
        if any(len(first_appearance(folders[p] for p in rows)) > 1 for _, rows in per_policy):
            keys.insert(0, "run")
    return keys


def policy_means(
    runs: pd.DataFrame, metrics: Sequence[str], keys: Sequence[str] | None = None
) -> pd.DataFrame:  # keys: default comparison_keys(runs)
    """Per group and policy: ``runs``, ``<metric>_mean`` and ``<metric>_ci95``.

    ``keys`` defaults to :func:`comparison_keys`; metrics absent from ``runs`` are skipped.
    """
    keys = comparison_keys(runs) if keys is None else list(keys)
    present = [m for m in metrics if m in runs.columns]
    return summarise_by(runs, [*keys, "policy"], present)


def paired_against_baseline(
    runs: pd.DataFrame,
    metrics: Sequence[str],
    baseline: str | None = None,
    keys: Sequence[str] | None = None,
) -> pd.DataFrame:
    """:func:`paired_comparison` of every policy against ``baseline`` for several metrics.

    ``baseline`` defaults to the first policy of ``runs`` (the scenario's first), ``keys`` to
    :func:`comparison_keys`. One row per metric, group and policy.
    """
    import pandas as pd

    baseline = str(runs["policy"].iloc[0]) if baseline is None else baseline
    keys = comparison_keys(runs) if keys is None else list(keys)
    tables = [
        paired_comparison(runs, metric, baseline, keys)
        for metric in metrics
        if metric in runs.columns
    ]
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


def format_summary(summary: Table, keys: Sequence[str], metrics: Sequence[str]) -> str:
    """A plain-text table: one row per group, ``mean ± half-width`` per metric."""
    counts = [c for c in ("runs", "cycles") if c in column_names(summary)][:1]
    header = [*keys, *counts, *metrics]
    lines = []
    for row in rows(summary):
        cells = [str(row[k]) for k in keys] + [str(int(row[c])) for c in counts]
        for metric in metrics:
            mean, half = row[f"{metric}_mean"], row[f"{metric}_ci95"]
            if math.isnan(mean):
                cells.append("-")
            elif math.isnan(half):
                cells.append(f"{mean:.4g}")
            else:
                cells.append(f"{mean:.4g} ± {half:.2g}")
        lines.append(cells)
    widths = [max([len(h), *(len(line[i]) for line in lines)]) for i, h in enumerate(header)]
    render = [
        "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
        for cells in [header, *lines]
    ]
    return "\n".join(render)
