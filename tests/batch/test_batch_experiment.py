"""The batch scenario: schema, one cycle with common random numbers, the summary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from pydantic import ValidationError

from gridsim.experiments.batch import BatchScenario, run_replication, summarise

SCENARIO = Path(__file__).parents[2] / "scenarios" / "batch-alp-amp.yaml"


def document() -> dict:
    return yaml.safe_load(SCENARIO.read_text())


def scenario(**changes) -> BatchScenario:
    return BatchScenario.model_validate({**document(), **changes})


def test_the_published_scenario_loads_with_the_papers_generator_ranges():
    loaded = scenario()
    assert loaded.kind == "batch"
    assert [policy.name for policy in loaded.policies] == ["ALP", "AMP"]
    assert loaded.goals == ("time", "cost")
    assert loaded.slots.count == (120, 150)
    assert loaded.slots.price_base == 1.7
    assert loaded.jobs.nodes == (1, 6)


def test_a_misspelt_key_is_an_error_naming_it():
    with pytest.raises(ValidationError, match="replicatons"):
        scenario(replicatons=3)


def test_an_unknown_policy_suggests_the_closest_name():
    with pytest.raises(ValidationError, match="did you mean 'AMP'"):
        scenario(policies=[{"name": "amp"}])


def test_a_reversed_range_is_an_error_naming_the_field():
    slots = {**document()["slots"], "length": [300, 50]}
    with pytest.raises(ValidationError, match="length: expected \\[low, high\\]"):
        scenario(slots=slots)


def test_the_kind_must_be_batch():
    with pytest.raises(ValidationError, match="kind"):
        scenario(kind="flow")


def cycle(replication=3, entropy=12345):
    seed = np.random.SeedSequence(entropy).spawn(replication + 1)[replication]
    return run_replication(scenario(), replication, seed)


def test_a_cycle_has_one_run_row_per_policy_and_goal_and_one_job_row_per_job():
    tables = cycle()
    runs, jobs = tables["runs"], tables["jobs"]
    assert list(zip(runs["policy"], runs["goal"], strict=True)) == [
        ("ALP", "time"),
        ("ALP", "cost"),
        ("AMP", "time"),
        ("AMP", "cost"),
    ]
    for table in (runs, jobs):
        assert {"scenario", "replication", "policy"} <= set(table.columns)
        assert (table["replication"] == 3).all()
    assert len(jobs) == 4 * runs["jobs"].iloc[0]
    # Common random numbers: every policy saw the same slot list and batch.
    assert runs["slots"].nunique() == 1 and runs["jobs"].nunique() == 1


def test_the_same_seed_gives_the_same_numbers_bit_for_bit():
    first, second = cycle(), cycle()
    for key in ("runs", "jobs"):
        pd.testing.assert_frame_equal(first[key], second[key], check_exact=True)


def test_chosen_alternatives_add_up_to_the_totals_and_respect_the_limits():
    for replication in range(6):
        tables = cycle(replication)
        runs, jobs = tables["runs"], tables["jobs"]
        for row in runs[runs["feasible"]].itertuples():
            chosen = jobs[(jobs["policy"] == row.policy) & (jobs["goal"] == row.goal)]
            assert chosen["run_time"].sum() == pytest.approx(row.total_time)
            assert chosen["cost"].sum() == pytest.approx(row.total_cost)
            if row.goal == "time":
                assert row.total_cost <= row.budget_limit
            else:
                assert row.total_time <= row.time_limit


def test_the_readings_of_length_and_totals():
    seed = np.random.SeedSequence(12345).spawn(4)[3]
    jobs = {**document()["jobs"], "length": "work"}
    per_job = run_replication(scenario(jobs=jobs, totals="per_job"), 3, seed)
    batch = run_replication(scenario(jobs=jobs), 3, seed)
    # The same choice, reported per job of the batch instead of summed over it.
    for column in ("total_time", "total_cost"):
        ratio = batch["runs"][column] / per_job["runs"][column]
        assert np.allclose(ratio.dropna(), batch["runs"]["jobs"][ratio.notna()])


def test_the_summary_counts_only_cycles_where_every_job_is_served_by_both():
    runs = pd.concat([cycle(r)["runs"] for r in range(8)])
    summary = summarise(runs)
    served = runs.groupby("replication")["all_jobs_served"].all()
    assert set(summary["cycles"]) == {served.sum()}
    amp_time = summary[(summary["policy"] == "AMP") & (summary["goal"] == "time")].iloc[0]
    counted = runs[runs["replication"].isin(served[served].index)]
    expected = counted[(counted["policy"] == "AMP") & (counted["goal"] == "time")]
    assert amp_time["total_time_mean"] == pytest.approx(expected["total_time"].mean())
    assert amp_time["alternatives_per_job_pooled"] == pytest.approx(
        expected["alternatives"].sum() / expected["jobs"].sum()
    )


def test_the_paired_table_compares_total_times_goal_by_goal_on_comparable_cycles():
    import gridsim
    from gridsim.experiments.batch import comparable_cycles

    results = gridsim.run(SCENARIO, replications=6, jobs=1)
    paired = results.paired.set_index("goal")
    assert sorted(paired.index) == ["cost", "time"] and set(paired["metric"]) == {"total_time"}
    runs = comparable_cycles(results.runs)
    runs = runs[runs["comparable"] & (runs["goal"] == "time")]
    by_policy = runs.pivot_table(index="replication", columns="policy", values="total_time")
    expected = (by_policy["AMP"] - by_policy["ALP"]).mean()
    assert paired.loc["time", "difference_mean"] == pytest.approx(expected, rel=1e-12)
    assert paired.loc["time", "pairs"] == len(by_policy.dropna())
