"""Scenario validation, the shipped scenario, statistics and figures."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cloud_scenarios import small_scenario, small_scenario_document
from matplotlib.figure import Figure
from pydantic import ValidationError

from gridsim.analysis.stats import confidence_half_width, student_t_quantile_975
from gridsim.cloud.plots import plot_overhead, plot_production, plot_task_sizes
from gridsim.experiments.cloud import (
    CloudScenario,
    paired_makespan_ratio,
    run_replication,
    summarise,
)
from gridsim.experiments.kinds import load_scenario

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "cloud-federation-dytss.yaml"


def test_the_shipped_scenario_loads_with_seven_providers_and_200_pilots():
    scenario, _text = load_scenario(SCENARIO)
    assert scenario.kind == "cloud"
    assert len(scenario.providers) == 7
    assert scenario.framework.max_pilots == 200
    assert scenario.framework.scheduling_interval_s / 2 == 5
    assert scenario.framework.pilot_interval_s == 30
    assert scenario.application.data_size_mb / scenario.providers[0].bandwidth_mb_s == 2
    assert [p.name for p in scenario.policies] == ["EqualChunks", "DyTSS"]
    assert any(p.execution_slowdown > 1 for p in scenario.providers)
    assert any(p.advertised.performance_w > p.performance_w.high for p in scenario.providers)
    assert scenario.replications >= 50


def test_a_misspelt_key_is_an_error():
    with pytest.raises(ValidationError, match="max_pilot"):
        CloudScenario.model_validate(small_scenario_document(framework={"max_pilot": 3}))


def test_a_negative_number_of_pilots_names_the_field():
    with pytest.raises(ValidationError, match=r"framework\.max_pilots"):
        CloudScenario.model_validate(small_scenario_document(framework={"max_pilots": -3}))


def test_dytss_limits_must_be_ordered():
    policies = [{"name": "DyTSS", "L": 5000, "M": 1000}]
    with pytest.raises(ValidationError, match="L <= M"):
        CloudScenario.model_validate(small_scenario_document(policies=policies))


def test_an_unknown_policy_is_an_error():
    with pytest.raises(ValidationError, match="FixedChunks"):
        CloudScenario.model_validate(small_scenario_document(policies=[{"name": "FixedChunks"}]))


def test_capacity_must_start_at_time_zero():
    document = small_scenario_document()
    document["providers"][0]["capacity"] = [{"time_s": 10, "vms": 3}]
    with pytest.raises(ValidationError, match="time_s 0"):
        CloudScenario.model_validate(document)


def test_t_quantiles_match_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 5, 29, 30, 31, 49, 200):
        assert student_t_quantile_975(df) == pytest.approx(stats.t.ppf(0.975, df), rel=1e-6)


def test_summary_gives_mean_and_ci_per_policy():
    runs = pd.DataFrame(
        {
            "scenario": "s",
            "replication": [0, 1, 2, 0, 1, 2],
            "policy": ["a", "a", "a", "b", "b", "b"],
            "makespan_s": [10.0, 12.0, 14.0, 9.0, 10.0, 11.0],
        }
    )
    summary = summarise(runs).set_index("policy")
    assert summary.loc["a", "makespan_s_mean"] == 12.0
    assert summary.loc["a", "makespan_s_ci95"] == pytest.approx(
        confidence_half_width(np.array([10.0, 12.0, 14.0]))
    )
    paired = paired_makespan_ratio(runs, baseline="a", policy="b")
    assert paired["baseline_longer_mean"] == pytest.approx(np.mean([10 / 9, 1.2, 14 / 11]) - 1)


def test_figures_have_labelled_axes():
    tables = run_replication(small_scenario(), 0, np.random.SeedSequence(2))
    figures = [
        plot_overhead(),
        plot_production(tables["progress"]),
        plot_task_sizes(tables["tasks"]),
    ]
    for figure in figures:
        assert isinstance(figure, Figure)
        for axes in figure.axes:
            assert axes.get_ylabel()
        assert figure.axes[-1].get_xlabel()
