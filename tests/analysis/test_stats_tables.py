"""The summary tables of gridsim.analysis.stats, each against a hand computation or scipy.

Means and intervals per group (``summarise_by``, ``policy_means``), which columns identify an
instance (``swept_columns``, ``comparison_keys``), every policy against the baseline for
several metrics (``paired_against_baseline``), and the console table (``format_summary``).
Groups and policies keep the order in which the scenario lists them, never alphabetical.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from gridsim.analysis.stats import (
    comparison_keys,
    confidence_half_width,
    format_summary,
    mean_interval,
    paired_against_baseline,
    paired_comparison,
    policy_means,
    summarise_by,
    swept_columns,
)

#: gridsim's t quantiles are tabled to 9 decimals: relative 2.5e-10 on a half-width.
QUANTILE = 2.5e-10


def scipy_half_width(values) -> float:
    values = np.asarray(values, dtype=float)
    return stats.t.ppf(0.975, len(values) - 1) * stats.sem(values)


def test_two_values_give_an_interval_one_gives_none_and_none_give_nothing():
    mean, half, count = mean_interval([1.0, 3.0])
    assert (mean, count) == (2.0, 2)
    assert half == pytest.approx(scipy_half_width([1.0, 3.0]), rel=QUANTILE)
    mean, half, count = mean_interval([4.0])
    assert (mean, count) == (4.0, 1) and math.isnan(half)
    mean, half, count = mean_interval([])
    assert count == 0 and math.isnan(mean) and math.isnan(half)


def test_values_that_are_not_finite_are_left_out_of_the_interval():
    mean, half, count = mean_interval([1.0, np.nan, 3.0, np.inf, -np.inf, 8.0])
    assert (mean, count) == (4.0, 3)
    assert half == pytest.approx(scipy_half_width([1.0, 3.0, 8.0]), rel=QUANTILE)
    mean, half, count = mean_interval([np.nan, np.inf])
    assert count == 0 and math.isnan(mean) and math.isnan(half)


def test_missing_values_held_as_python_objects_are_left_out_like_nan():
    """An object column (None where a run has no value) is read as floats, not refused."""
    column = pd.Series([1.0, None, 3.0], dtype=object)
    assert mean_interval(column)[::2] == (2.0, 2)
    assert mean_interval([1, None, 3])[::2] == (2.0, 2)


@pytest.mark.parametrize("count", [2, 3, 10, 31, 32, 45])
def test_the_interval_is_student_s_t_on_either_side_of_the_table(count):
    values = np.random.default_rng(count).gamma(2.0, 50.0, size=count)
    mean, half, n = mean_interval(values)
    assert n == count
    assert mean == pytest.approx(values.mean(), rel=1e-12)
    # beyond 30 degrees of freedom the expansion is off by at most 0.4 / df**5 (relative)
    assert half == pytest.approx(scipy_half_width(values), rel=QUANTILE + 0.4 / (count - 1) ** 5)
    assert confidence_half_width(values) == half


def runs_table() -> pd.DataFrame:
    """Three policies listed C, A, B (not alphabetical) over three replications; policy A did
    not finish replication 2 (NaN), and one row of C has no queue size."""
    return pd.DataFrame({
        "replication": [0, 0, 0, 1, 1, 1, 2, 2, 2],
        "policy": ["C", "A", "B"] * 3,
        "queue_size": [5.0, 5.0, 5.0, 5.0, 5.0, 5.0, np.nan, 5.0, 5.0],
        "wait": [10.0, 12.0, 11.0, 20.0, 25.0, 21.0, 30.0, np.nan, 33.0],
        "cost": [1, 2, 3, 4, 5, 6, 7, 8, 9],  # integers: averaged as floats
    })  # fmt: skip


def test_summaries_keep_the_policies_in_the_order_they_are_listed():
    summary = summarise_by(runs_table(), "policy", ["wait", "cost"])
    assert summary["policy"].tolist() == ["C", "A", "B"]
    assert summary["runs"].tolist() == [3, 3, 3]  # a run without a value still counts
    a = summary.iloc[1]
    assert a["wait_mean"] == 18.5
    assert a["wait_ci95"] == pytest.approx(scipy_half_width([12.0, 25.0]), rel=QUANTILE)
    assert a["cost_mean"] == 5.0
    assert a["cost_ci95"] == pytest.approx(scipy_half_width([2, 5, 8]), rel=QUANTILE)
    assert list(summary.columns) == ["policy", "runs", "wait_mean", "wait_ci95", "cost_mean",
                                     "cost_ci95"]  # fmt: skip


def test_a_run_whose_group_key_is_missing_forms_its_own_group_and_is_not_dropped():
    summary = summarise_by(runs_table(), ["queue_size", "policy"], ["wait"])
    assert summary["runs"].sum() == 9
    assert summary["policy"].tolist() == ["C", "A", "B", "C"]
    assert summary["queue_size"].tolist()[:3] == [5.0, 5.0, 5.0]
    assert math.isnan(summary["queue_size"].iloc[3])
    assert summary["runs"].tolist() == [2, 3, 3, 1]
    assert summary["wait_mean"].iloc[3] == 30.0 and math.isnan(summary["wait_ci95"].iloc[3])


def test_policy_means_group_by_the_comparison_keys_and_skip_absent_metrics():
    table = runs_table().dropna(subset=["queue_size"])
    means = policy_means(table, ["wait", "absent"])
    assert list(means.columns) == ["queue_size", "policy", "runs", "wait_mean", "wait_ci95"]
    assert means["policy"].tolist() == ["C", "A", "B"]
    assert means["wait_mean"].tolist() == [15.0, 18.5, 21.666666666666668]
    by_policy = policy_means(table, ["wait"], keys=[])
    assert list(by_policy.columns) == ["policy", "runs", "wait_mean", "wait_ci95"]


def test_swept_columns_are_the_dotted_field_paths_in_table_order():
    runs = pd.DataFrame(columns=["replication", "workload.jobs", "policy", "goal",
                                 "environment.local_load.max_utilisation", 7])  # fmt: skip
    assert swept_columns(runs) == ["workload.jobs", "environment.local_load.max_utilisation"]


def test_comparison_keys_are_the_axes_present_then_queue_size_and_goal():
    runs = pd.DataFrame(columns=["replication", "policy", "goal", "queue_size", "a.b", "c.d"])
    assert comparison_keys(runs) == ["a.b", "c.d", "queue_size", "goal"]
    # given axes replace the dotted columns; those absent from the table are left out
    assert comparison_keys(runs, axes=["c.d", "x.y"]) == ["c.d", "queue_size", "goal"]
    assert comparison_keys(runs, axes=["goal"]) == ["goal", "queue_size"]
    assert comparison_keys(pd.DataFrame(columns=["replication", "policy"])) == []


def test_the_results_folder_is_a_key_only_when_a_policy_is_in_several_folders():
    runs = pd.DataFrame({"run": ["a", "a", "b", "b"], "replication": [0, 0, 0, 0],
                         "policy": ["X", "Y", "X", "Z"], "queue_size": [1, 1, 1, 1]})  # fmt: skip
    assert comparison_keys(runs) == ["run", "queue_size"]
    disjoint = runs.assign(policy=["X", "Y", "Z", "W"])
    assert comparison_keys(disjoint) == ["queue_size"]


def test_paired_comparisons_list_the_policies_in_their_order_and_keep_those_without_pairs():
    runs = pd.DataFrame({"replication": [0, 1] * 3, "policy": ["Z"] * 2 + ["base"] * 2 + ["A"] * 2,
                         "m": [1.0, 2.0, 3.0, 5.0, np.nan, np.nan]})  # fmt: skip
    table = paired_comparison(runs, "m", "base")
    assert table["policy"].tolist() == ["Z", "A"]
    z, a = table.to_dict("records")
    assert (z["pairs"], z["difference_mean"], a["pairs"]) == (2, -2.5, 0)
    assert z["relative_mean"] == pytest.approx(((1 / 3 - 1) + (2 / 5 - 1)) / 2, rel=1e-12)
    assert math.isnan(a["difference_mean"]) and math.isnan(a["relative_mean"])


def test_paired_groups_keep_the_order_of_the_runs_and_a_group_without_a_key_value():
    """A sweep listed 0.9 before 0.5 is compared in that order; runs of a folder without the
    swept column (NaN there once folders are combined) are compared as their own group."""
    rows = []
    for load, offset in ((0.9, 0.0), (0.5, 1.0), (np.nan, 2.0)):
        for r in range(3):
            rows.append({"replication": r, "load": load, "policy": "A", "m": 10.0 * r})
            rows.append({"replication": r, "load": load, "policy": "B", "m": 10.0 * r + offset})
    table = paired_comparison(pd.DataFrame(rows), "m", "A", ["load"])
    assert table["load"].tolist()[:2] == [0.9, 0.5] and math.isnan(table["load"].iloc[2])
    assert table["difference_mean"].tolist() == [0.0, 1.0, 2.0]
    assert table["pairs"].tolist() == [3, 3, 3]


def test_a_baseline_that_is_not_in_the_results_is_named():
    with pytest.raises(ValueError, match="baseline policy 'absent' is not in the results"):
        paired_comparison(runs_table(), "wait", "absent")


def test_paired_comparisons_of_several_metrics_default_to_the_first_policy_listed():
    table = runs_table().dropna(subset=["queue_size"])
    paired = paired_against_baseline(table, ["wait", "absent", "cost"])
    assert paired["baseline"].unique().tolist() == ["C"]
    assert paired["metric"].tolist() == ["wait", "wait", "cost", "cost"]
    assert paired["policy"].tolist() == ["A", "B", "A", "B"]
    assert paired["queue_size"].tolist() == [5.0] * 4  # the default keys: comparison_keys
    assert paired.index.tolist() == [0, 1, 2, 3]  # one table, not the metrics' tables stacked
    for row in paired.to_dict("records"):
        alone = paired_comparison(table, row["metric"], "C", ["queue_size"])
        (same,) = alone[alone["policy"] == row["policy"]].to_dict("records")
        assert row == same
    against_b = paired_against_baseline(table, ["wait"], baseline="B", keys=[])
    assert against_b["policy"].tolist() == ["C", "A"] and "queue_size" not in against_b
    assert against_b["difference_mean"].tolist() == [-1.0, 2.5]  # pairs of replications 0 and 1
    assert paired_against_baseline(table, ["absent"]).empty


def test_the_console_table_aligns_mean_and_half_width_per_metric():
    summary = pd.DataFrame({
        "policy": ["BFstart", "CoP"], "runs": [3.0, 1.0],
        "wait_mean": [12.3456, np.nan], "wait_ci95": [1.234, np.nan],
        "cost_mean": [5.0, 7.25], "cost_ci95": [np.nan, 0.5],
    })  # fmt: skip
    assert format_summary(summary, ["policy"], ["wait", "cost"]).split("\n") == [
        "policy   runs  wait         cost      ",
        "BFstart  3     12.35 ± 1.2  5         ",
        "CoP      1     -            7.25 ± 0.5",
    ]


def test_the_console_table_counts_runs_rather_than_cycles_when_it_has_both():
    summary = pd.DataFrame({"goal": ["cost"], "runs": [3], "cycles": [12], "x_mean": [0.5],
                            "x_ci95": [np.nan]})  # fmt: skip
    assert format_summary(summary, ["goal"], ["x"]).split("\n") == [
        "goal  runs  x  ",
        "cost  3     0.5",
    ]


def test_the_console_table_counts_cycles_when_there_are_no_runs():
    summary = pd.DataFrame({"goal": ["cost"], "cycles": [12], "x_mean": [0.125],
                            "x_ci95": [0.0125]})  # fmt: skip
    assert format_summary(summary, ["goal"], ["x"]).split("\n") == [
        "goal  cycles  x            ",
        "cost  12      0.125 ± 0.013",
    ]
