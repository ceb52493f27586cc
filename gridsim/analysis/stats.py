"""Means with 95% confidence intervals, per group, from result tables.

Consumes a DataFrame of per-run values; produces a tidy summary (mean, half-width of the 95%
interval, count). Intervals use Student's t with ``count - 1`` degrees of freedom.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import pandas as pd

# Two-sided 95% Student-t quantiles for 1..30 degrees of freedom.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_quantile_975(degrees_of_freedom: int) -> float:
    """The 97.5% quantile of Student's t (table to 30, Cornish-Fisher expansion beyond)."""
    if degrees_of_freedom < 1:
        return math.nan
    if degrees_of_freedom <= len(_T975):
        return _T975[degrees_of_freedom - 1]
    z = NormalDist().inv_cdf(0.975)
    nu = degrees_of_freedom
    return z + (z**3 + z) / (4 * nu) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * nu**2)


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
    half = t_quantile_975(count - 1) * float(data.std(ddof=1)) / math.sqrt(count)
    return mean, half, count


def summarise_by(
    table: pd.DataFrame, by: str | list[str], metrics: Sequence[str]
) -> pd.DataFrame:
    """Per group: ``<metric>_mean``, ``<metric>_ci95`` for each metric, and ``runs``.

    Groups keep their order of first appearance (the scenario's policy order).
    """
    keys = [by] if isinstance(by, str) else list(by)
    rows = []
    for group, part in table.groupby(keys, sort=False):
        row = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
        row["runs"] = len(part)
        for metric in metrics:
            mean, half, _count = mean_interval(part[metric].to_numpy(dtype=float))
            row[f"{metric}_mean"] = mean
            row[f"{metric}_ci95"] = half
        rows.append(row)
    return pd.DataFrame(rows)


def format_summary(summary: pd.DataFrame, keys: Sequence[str], metrics: Sequence[str]) -> str:
    """A plain-text table: one row per group, ``mean ± half-width`` per metric."""
    counts = [c for c in ("runs", "cycles") if c in summary.columns][:1]
    header = [*keys, *counts, *metrics]
    lines = []
    for _, row in summary.iterrows():
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
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    render = [
        "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
        for cells in [header, *lines]
    ]
    return "\n".join(render)
