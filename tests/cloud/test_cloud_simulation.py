"""The pilot federation: exactness against the model, conservation, determinism, CRN."""

import math

import numpy as np
import pandas as pd
import pytest
from cloud_scenarios import small_scenario, small_scenario_document
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.cloud.simulation import simulate
from gridsim.cloud.turnaround import turnaround
from gridsim.experiments.cloud import CloudScenario, run_replication


def test_tasks_without_noise_or_failures_last_exactly_what_the_model_predicts():
    scenario = small_scenario()
    instance, noise = np.random.SeedSequence(3).spawn(2)
    application = scenario.application.profile()
    intervals = scenario.framework.intervals()
    bandwidth = {p.name: p.bandwidth_mb_s for p in scenario.providers}
    for policy in scenario.policies:
        record = simulate(scenario, policy, instance, noise)
        assert record.finished
        tasks = pd.DataFrame(record.tasks)
        assert (tasks["outcome"] == "ok").all()
        effort = application.constant_effort_w + tasks["samples"] * (application.sample_effort_w)
        real_performance = effort / tasks["execution_s"]
        realised = tasks["end_s"] - tasks["submit_s"]
        model = turnaround(
            tasks["samples"],
            real_performance,
            tasks["provider"].map(bandwidth),
            application,
            intervals,
        )
        np.testing.assert_allclose(realised, model, rtol=1e-12)
        # Benchmarks are exact here, so the server's prediction is the realisation too.
        np.testing.assert_allclose(realised, tasks["predicted_turnaround_s"], rtol=1e-12)


def _with_failures(vm_rate: float, task_rate: float, start_failure: float) -> CloudScenario:
    document = small_scenario_document(
        noise={"execution_cv": 0.1, "benchmark_cv": 0.1, "random_scheduling_phase": True}
    )
    for provider in document["providers"]:
        provider["vm_failure_rate_per_h"] = vm_rate
        provider["task_failure_rate_per_h"] = task_rate
        provider["vm_start_failure_probability"] = start_failure
    document["providers"][1]["capacity"] = [
        {"time_s": 0, "vms": 8},
        {"time_s": 1200, "vms": 2},
        {"time_s": 2400, "vms": 6},
    ]
    return CloudScenario.model_validate(document)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    vm_rate=st.floats(0.0, 3.0),
    task_rate=st.floats(0.0, 3.0),
    start_failure=st.floats(0.0, 0.5),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_requested_sample_is_completed_exactly_once_under_failures(
    vm_rate, task_rate, start_failure, seed
):
    scenario = _with_failures(vm_rate, task_rate, start_failure)
    tables = run_replication(scenario, 0, np.random.SeedSequence(seed))
    runs, tasks = tables["runs"], tables["tasks"]
    assert runs["finished"].all()
    assert (runs["samples_completed"] == runs["samples_requested"]).all()
    ok = tasks[tasks["outcome"] == "ok"]
    assert (ok.groupby("policy")["samples"].sum() == 300_000).all()
    failed = tasks[tasks["outcome"] != "ok"].groupby("policy").size()
    assert (
        runs.set_index("policy")["failed_tasks"]
        == failed.reindex(runs["policy"]).fillna(0).to_numpy()
    ).all()
    # Samples in flight never exceed what is left: at every instant, completed samples plus
    # samples of running tasks stay within the request.
    for _, trace in tasks.groupby("policy"):
        # At equal times a failure is returned before its samples are handed out again.
        events = pd.concat(
            [
                pd.DataFrame(
                    {
                        "time": trace["end_s"],
                        "delta": -trace["samples"].where(trace["outcome"] != "ok", 0),
                    }
                ),
                pd.DataFrame({"time": trace["submit_s"], "delta": trace["samples"]}),
            ]
        ).sort_values("time", kind="stable")
        assert events["delta"].cumsum().max() <= 300_000


def test_same_seed_gives_the_same_tables_bit_for_bit():
    seed = np.random.SeedSequence(11)
    first = run_replication(_with_failures(1.0, 1.0, 0.1), 0, seed)
    second = run_replication(_with_failures(1.0, 1.0, 0.1), 0, seed)
    for name in ("runs", "tasks", "progress"):
        pd.testing.assert_frame_equal(first[name], second[name])
    other = run_replication(_with_failures(1.0, 1.0, 0.1), 0, np.random.SeedSequence(12))
    assert not first["runs"]["makespan_s"].equals(other["runs"]["makespan_s"])


def test_every_policy_sees_the_same_pilots_over_time():
    tables = run_replication(_with_failures(0.5, 0.5, 0.1), 0, np.random.SeedSequence(5))
    progress = tables["progress"]
    horizon = tables["runs"]["makespan_s"].min()
    pilots = [
        run.loc[run["time_s"] < horizon, ["time_s", "pilots"]]
        .drop_duplicates()
        .reset_index(drop=True)
        for _, run in progress.groupby("policy")
    ]
    # Pilot counts differ only by rows recorded at sample completions.
    first, second = (p.drop_duplicates("time_s", keep="last") for p in pilots)
    merged = first.merge(second, on="time_s", suffixes=("_a", "_b"))
    assert (merged["pilots_a"] == merged["pilots_b"]).all()


def test_every_row_carries_scenario_replication_and_policy():
    tables = run_replication(small_scenario(), 4, np.random.SeedSequence(1))
    for table in tables.values():
        assert list(table.columns[:3]) == ["scenario", "replication", "policy"]
        assert (table["replication"] == 4).all()
        assert (table["scenario"] == "small-cloud").all()
    assert set(tables["runs"]["policy"]) == {"EqualChunks(E=6000)", "DyTSS(L=1500,M=18000)"}


def test_a_federation_without_capacity_stops_at_the_horizon_unfinished():
    document = small_scenario_document(framework={"max_pilots": 4, "horizon_s": 3600})
    for provider in document["providers"]:
        provider["capacity"] = [{"time_s": 0, "vms": 0}]
    tables = run_replication(CloudScenario.model_validate(document), 0, np.random.SeedSequence(0))
    runs = tables["runs"]
    assert not runs["finished"].any()
    assert (runs["samples_completed"] == 0).all()
    assert runs["makespan_s"].tolist() == pytest.approx([3600.0, 3600.0])
    assert math.isclose(runs["mean_pilots"].iloc[0], 0.0)
