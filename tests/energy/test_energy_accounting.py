"""Energy per task and per job on random job flows and a replay on node classes, confirmed by
the independent checker (tests/energy_checker.py); without a power model, no energy column."""

from __future__ import annotations

import pandas as pd
import pytest
from energy_checker import expected_task

import gridsim
from gridsim.energy.config import PowerConfig, SignalConfig
from gridsim.sim.trace import node_runs

COLUMNS = ("energy_kwh", "electricity_cost", "carbon_kg")
POWER = {"idle_watts": 40.0, "busy_watts": 90.0, "busy_watts_per_performance": 15.0}
# Steps a few time units long, so that a flow's tasks cross many of them.
PRICE = {"profile": "daily", "steps": [[0, 0.1], [0.004, 0.35], [0.01, 0.2]]}
CARBON = {"profile": "daily", "steps": [[0, 400], [0.007, 120]], "offset": 5.0}


def flow(seed: int, faults: bool) -> dict:
    scenario = {
        "name": "energy-flow", "kind": "jobflow", "seed": seed, "replications": 2,
        "environment": {"nodes": 6, "performance": {"low": 1, "high": 5},
                        "local_load": {"max_utilisation": 0.2},
                        "power": POWER, "electricity_price": PRICE, "carbon_intensity": CARBON},
        "jobs": {"n": [1, 4], "volume": {"low": 20, "high": 120}},
        "arrivals": {"model": "uniform", "span": 200},
        "queue_sizes": [12],
        "policies": ["BFstart", "MinCost", {"name": "MinCarbon", "slack": 50}, "MinEnergy"],
    }  # fmt: skip
    if faults:
        scenario["faults"] = {"failures": {"rate": 0.004, "repair_mean": 10}}
    return scenario


@pytest.mark.parametrize(("seed", "faults"), [(1, False), (2, False), (3, True)])
def test_energy_per_task_and_job_on_random_flows(seed, faults):
    scenario = flow(seed, faults)
    results = gridsim.run(scenario, progress=False)
    power = PowerConfig(**POWER)
    price, carbon = SignalConfig(**PRICE), SignalConfig(**CARBON)
    tasks = results.tasks
    for row in tasks.itertuples():
        expected = (expected_task(power, row.performance, row.start, row.end, price, carbon)
                    if row.kind in ("job", "lost") else dict.fromkeys(COLUMNS, 0.0))  # fmt: skip
        for name in COLUMNS:
            assert getattr(row, name) == pytest.approx(expected[name], rel=1e-9, abs=1e-15)
    keys = ["replication", "queue_size", "policy", "job_id"]
    per_job = tasks[tasks.job_id >= 0].groupby(keys)[list(COLUMNS)].sum()
    jobs = results.jobs.set_index(keys)
    ran = jobs.loc[per_job.index]
    for name in COLUMNS:
        assert ran[name].to_numpy() == pytest.approx(per_job[name].to_numpy(), rel=1e-9)
    assert (jobs.drop(per_job.index)[list(COLUMNS)] == 0).all().all()
    runs = results.runs
    assert (runs.energy_kwh >= runs.busy_energy_kwh).all()
    busy = (
        tasks[tasks.kind.isin(["job", "lost"])].groupby(["replication", "policy"]).energy_kwh.sum()
    )
    assert runs.set_index(["replication", "policy"]).busy_energy_kwh.to_numpy() == pytest.approx(
        busy.reindex(runs.set_index(["replication", "policy"]).index).to_numpy(), rel=1e-9
    )


def test_idle_energy_of_an_idle_flow_span():
    """One job on one of two nodes: the other node idles over the whole span, the first only
    before the job starts (it arrives at 0, starts at once)."""
    scenario = {
        "name": "idle", "kind": "jobflow", "seed": 4, "replications": 1,
        "environment": {"nodes": 2, "performance": {"low": 2, "high": 2},
                        "local_load": {"max_utilisation": 0},
                        "power": {"idle_watts": 10.0, "busy_watts": 50.0}},
        "jobs": {"n": [1, 1], "volume": {"low": 100, "high": 100},
                 "runtime_factor": {"low": 1, "high": 1}},
        "queue_sizes": [1],
        "policies": ["BFstart"],
    }  # fmt: skip
    runs = gridsim.run(scenario, progress=False).runs
    assert runs.busy_energy_kwh.iloc[0] == pytest.approx(50 * 50 / 3.6e6)
    assert runs.idle_energy_kwh.iloc[0] == pytest.approx(10 * 50 / 3.6e6)


REPLAY = {
    "name": "energy-replay", "kind": "swf_replay", "replications": 1, "progress": False,
    "workload": {"max_jobs": 40},
    "schedulers": ["easy"],
    "policy": "BFfinish",
    "platform": {
        "node_classes": [
            {"count": 60, "performance": 1.0, "price": 1.0,
             "power": {"idle_watts": 50, "busy_watts": 200}, "electricity_price": {"value": 0.2}},
            {"count": 40, "performance": 1.5, "price": 2.0,
             "power": {"idle_watts": 70, "busy_watts": 320}},
        ],
        "electricity_price": {"profile": "daily", "steps": [[0, 0.1], [7, 0.3], [22, 0.1]]},
        "carbon_intensity": {"profile": "weekly", "steps": [[0, 300], [30, 150], [100, 420]]},
    },
}  # fmt: skip


def test_energy_per_job_of_a_replay_on_node_classes():
    results = gridsim.run(REPLAY, progress=False)
    classes = REPLAY["platform"]["node_classes"]
    platform_price = SignalConfig(**REPLAY["platform"]["electricity_price"])
    carbon = SignalConfig(**REPLAY["platform"]["carbon_intensity"])
    of_node = [c for c in classes for _ in range(c["count"])]
    for job in results.jobs.itertuples():
        expected = dict.fromkeys(COLUMNS, 0.0)
        for node in _node_ids(job.allocated_resources):
            node_class = of_node[node]
            price = node_class.get("electricity_price")
            task = expected_task(
                PowerConfig(**node_class["power"]),
                node_class["performance"],
                job.start_time,
                job.finish_time,
                SignalConfig(**price) if price else platform_price,
                carbon,
            )
            for name in COLUMNS:
                expected[name] += task[name]
        for name in COLUMNS:
            assert getattr(job, name) == pytest.approx(expected[name], rel=1e-9)


def _node_ids(text: str) -> list[int]:
    ids = []
    for part in text.split():
        first, _, last = part.partition("-")
        ids += range(int(first), int(last or first) + 1)
    return ids


def test_no_power_model_no_energy_columns():
    plain = {**REPLAY, "platform": {"node_classes": [
        {"count": 60, "performance": 1.0, "price": 1.0},
        {"count": 40, "performance": 1.5, "price": 2.0}]}}  # fmt: skip
    results = gridsim.run(plain, progress=False)
    assert not set(COLUMNS) & set(results.jobs.columns)
    assert not {"energy_kwh", "idle_energy_kwh"} & set(results.runs.columns)
    assert isinstance(results.jobs, pd.DataFrame)


def test_a_homogeneous_replay_accounts_as_node_by_node():
    """The replay on the log's machine accounts by processor counts; node by node (the jobs'
    node ids, idle intervals per node) gives the same numbers."""
    from gridsim.energy import accounting
    from gridsim.workloads.platform import LogPlatformConfig, log_platform

    platform = {
        "power": {"idle_watts": 90, "busy_watts": 210},
        "electricity_price": {"profile": "daily", "steps": [[0, 0.12], [7, 0.3], [23, 0.12]]},
        "carbon_intensity": {"profile": "daily", "steps": [[0, 320], [10, 180], [16, 300]]},
    }
    scenario = {"name": "uniform", "kind": "swf_replay", "progress": False,
                "schedulers": ["easy", "conservative"], "workload": {"max_jobs": 300},
                "platform": platform}  # fmt: skip
    results = gridsim.run(scenario, progress=False)
    model = log_platform(100, LogPlatformConfig(**platform)).energy
    runs = results.runs.set_index("scheduler")
    for scheduler, jobs in results.jobs.groupby("scheduler"):
        jobs = jobs.reset_index(drop=True)
        span = (float(jobs.submit_time.min()), float(jobs.finish_time.max()))
        totals, _ = accounting.run_energy(model, node_runs(jobs), span)
        for name, value in totals.items():
            assert runs.loc[scheduler, name] == pytest.approx(value, rel=1e-12)
        by_node = accounting.add_job_energy(jobs, model)
        for name in COLUMNS:
            assert jobs[name].to_numpy() == pytest.approx(by_node[name].to_numpy(), rel=1e-12)


@pytest.mark.parametrize("name", ["energy-tariff-carbon", "energy-delay-tolerant"])
def test_the_studies_tasks_pass_the_checker(name):
    """The bundled studies, cut to 40 jobs: every task's accounts as the checker's."""
    from gridsim.bundled_scenarios import bundled

    path = bundled()[name]
    results = gridsim.run(path, overrides={"queue_sizes": [40], "replications": 1},
                          progress=False)  # fmt: skip
    environment = gridsim.load_scenario(path).environment
    power, price, carbon = (environment.power, environment.electricity_price,
                            environment.carbon_intensity)  # fmt: skip
    tasks = results.tasks[results.tasks.kind == "job"]
    assert len(tasks) > 40
    for row in tasks.itertuples():
        expected = expected_task(power, row.performance, row.start, row.end, price, carbon)
        for column in COLUMNS:
            assert getattr(row, column) == pytest.approx(expected[column], rel=1e-9)
