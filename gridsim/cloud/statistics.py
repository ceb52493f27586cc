"""Replication statistics: consumes per-replication numbers, produces means, 95% confidence
half-widths (Student t) and paired comparisons between two policies.

The t quantiles come from a table for small samples and the Cornish-Fisher expansion beyond,
so the runtime needs no SciPy (the tests check both against ``scipy.stats.t``).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

__all__ = ["confidence_half_width", "student_t_quantile_975"]

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
    """The 0.975 quantile of Student's t with ``degrees_of_freedom`` (>= 1)."""
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


def confidence_half_width(values: np.ndarray) -> float:
    """Half-width of the 95% confidence interval of the mean (NaN for fewer than 2 values)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if len(values) < 2:
        return math.nan
    return student_t_quantile_975(len(values) - 1) * float(np.std(values, ddof=1)) / math.sqrt(
        len(values)
    )
