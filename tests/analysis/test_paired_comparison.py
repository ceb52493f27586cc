"""Paired differences (gridsim.analysis.stats.paired_comparison), against scipy.

Pairs are made by replication, never by row order; a replication one policy did not complete
drops out of that comparison; each group of ``keys`` is compared on its own. The interval is
Student's t on the paired differences, so it is far narrower than the two policies' own
spreads when they share the instance (common random numbers).
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from gridsim.analysis.stats import paired_comparison

#: The t quantiles are tabled to 9 decimals (at most 5e-10 off a quantile above 2): relative
#: 2.5e-10 on a half-width; means are exact to rounding.
TOLERANCE = {"difference_ci95": 2.5e-10, "relative_ci95": 2.5e-10}

BASELINE = [10.0, 50.0, 20.0, 80.0, 35.0]
GAIN = [1.0, 2.0, 4.0, 3.0, np.nan]  # replication 4: B did not complete


def runs(load: float = 0.5, offset: float = 0.0) -> pd.DataFrame:
    rows = [{"replication": r, "load": load, "policy": "A", "m": a + offset}
            for r, a in enumerate(BASELINE)]  # fmt: skip
    rows += [{"replication": r, "load": load, "policy": "B", "m": a + offset + g}
             for r, (a, g) in enumerate(zip(BASELINE, GAIN, strict=True))]  # fmt: skip
    return pd.DataFrame(rows).sample(frac=1.0, random_state=3)  # rows in no useful order


def expected(offset: float = 0.0) -> dict:
    differences = np.array(GAIN[:4])
    base = np.array(BASELINE[:4]) + offset
    interval = stats.t.interval(0.95, df=3, loc=differences.mean(), scale=stats.sem(differences))
    relative = differences / base
    relative_half = stats.t.ppf(0.975, 3) * stats.sem(relative)
    return {"pairs": 4, "difference_mean": 2.5, "difference_ci95": interval[1] - 2.5,
            "relative_mean": relative.mean(), "relative_ci95": relative_half}  # fmt: skip


def test_pairs_by_replication_drop_incomplete_ones_and_match_scipy():
    (row,) = paired_comparison(runs(), "m", "A").to_dict("records")
    assert (row["policy"], row["baseline"], row["metric"]) == ("B", "A", "m")
    for name, value in expected().items():
        assert row[name] == pytest.approx(value, rel=TOLERANCE.get(name, 1e-12)), name


def test_each_group_of_keys_is_paired_on_its_own():
    table = paired_comparison(pd.concat([runs(0.5), runs(0.9, offset=100.0)]), "m", "A", ["load"])
    assert table["load"].tolist() == [0.5, 0.9]
    for row, offset in zip(table.to_dict("records"), (0.0, 100.0), strict=True):
        for name, value in expected(offset).items():
            assert row[name] == pytest.approx(value, rel=TOLERANCE.get(name, 1e-12)), name


def test_the_paired_interval_is_narrower_than_either_policy_s_spread():
    (row,) = paired_comparison(runs(), "m", "A").to_dict("records")
    own = stats.t.ppf(0.975, 3) * stats.sem(BASELINE[:4])
    assert row["difference_ci95"] < own / 10
