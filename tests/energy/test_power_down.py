"""Idle nodes powered down: every node's idle, switching and off energy (and their cost and
carbon) on random job flows and a replay on node classes, confirmed by the independent
checker (tests/energy_checker.py: the tasks or jobs table, the power model and the signals
only); a case worked by hand; without the block the accounts are those of idle nodes."""

from __future__ import annotations

import numpy as np
import pytest
from energy_checker import expected_task, node_state_accounts, node_states
from resource_checker import node_ids

import gridsim
from gridsim.energy.config import PowerConfig, SignalConfig

DOWN = {"idle_timeout": 15, "off_watts": 4, "switch_off_seconds": 5, "switch_off_watts": 70,
        "switch_on_seconds": 8, "switch_on_watts": 110}  # fmt: skip
POWER = {"idle_watts": 40.0, "busy_watts": 90.0, "busy_watts_per_performance": 15.0,
         "power_down": DOWN}  # fmt: skip
PRICE = {"profile": "daily", "steps": [[0, 0.1], [0.004, 0.35], [0.01, 0.2]]}
CARBON = {"profile": "daily", "steps": [[0, 400], [0.007, 120]], "offset": 5.0}
STATE_COLUMNS = ("idle_energy_kwh", "switching_energy_kwh", "off_energy_kwh", "off_time")


def flow(seed: int, faults: bool) -> dict:
    scenario = {
        "name": "power-down", "kind": "jobflow", "seed": seed, "replications": 2,
        "environment": {"nodes": 6, "performance": {"low": 1, "high": 5},
                        "local_load": {"max_utilisation": 0.2},
                        "power": POWER, "electricity_price": PRICE, "carbon_intensity": CARBON},
        "jobs": {"n": [1, 4], "volume": {"low": 20, "high": 120}},
        "arrivals": {"model": "uniform", "span": 600},
        "queue_sizes": [12],
        "policies": ["BFstart", "MinCost", {"name": "MinCarbon", "slack": 50}],
    }  # fmt: skip
    if faults:
        scenario["faults"] = {"failures": {"rate": 0.004, "repair_mean": 10}}
    return scenario


@pytest.mark.parametrize(("seed", "faults"), [(1, False), (2, False), (3, True)])
def test_every_node_s_states_on_random_flows_match_the_checker(seed, faults):
    results = gridsim.run(flow(seed, faults), progress=False)
    power, price, carbon = PowerConfig(**POWER), SignalConfig(**PRICE), SignalConfig(**CARBON)
    nodes = results.extra["node_energy"].set_index(["replication", "policy", "node"])
    runs = results.runs.set_index(["replication", "policy"])
    switched = 0
    for (replication, policy), tasks in results.tasks.groupby(["replication", "policy"]):
        jobs = results.jobs[(results.jobs.replication == replication)
                            & (results.jobs.policy == policy)]  # fmt: skip
        mine = tasks.kind.isin(["job", "lost"])
        span = (float(jobs.submit_time.min()), float(tasks.end[mine].max()))
        totals = dict.fromkeys(["energy_kwh", "electricity_cost", "carbon_kg",
                                "switching_energy_kwh", "off_energy_kwh"], 0.0)  # fmt: skip
        offs = 0
        for node, on_node in tasks.groupby("node"):
            states, node_offs = node_states(list(zip(on_node.start, on_node.end, strict=True)),
                                            span, power.power_down)  # fmt: skip
            expected = node_state_accounts(power, states, price, carbon)
            busy = [expected_task(power, row.performance, row.start, row.end, price, carbon)
                    for row in on_node[mine[on_node.index]].itertuples()]  # fmt: skip
            row = nodes.loc[(replication, policy, node)]
            for column in STATE_COLUMNS:
                assert row[column] == pytest.approx(expected[column], rel=1e-9, abs=1e-12)
            busy_kwh = sum(task["energy_kwh"] for task in busy)
            assert row.busy_energy_kwh == pytest.approx(busy_kwh, rel=1e-9, abs=1e-15)
            for column in ("electricity_cost", "carbon_kg"):
                spent = expected[column] + sum(task[column] for task in busy)
                assert row[column] == pytest.approx(spent, rel=1e-9, abs=1e-15)
                totals[column] += spent
            assert row.switch_offs == node_offs
            offs += node_offs
            totals["energy_kwh"] += busy_kwh + sum(expected[c] for c in STATE_COLUMNS[:3])
            totals["switching_energy_kwh"] += expected["switching_energy_kwh"]
            totals["off_energy_kwh"] += expected["off_energy_kwh"]
        run = runs.loc[(replication, policy)]
        for column, value in totals.items():
            assert run[column] == pytest.approx(value, rel=1e-9)
        assert run.switch_offs == offs
        switched += offs
    assert switched > 10  # the flows leave gaps long enough to switch off


def test_a_node_switched_off_by_hand():
    """Two nodes, one job of 100 s on one of them from time 0: the other idles 15 s,
    switches off for 5 s and is off for the other 80 s (nothing follows: no switch-on)."""
    scenario = {
        "name": "by-hand", "kind": "jobflow", "seed": 4, "replications": 1,
        "environment": {"nodes": 2, "performance": {"low": 2, "high": 2},
                        "local_load": {"max_utilisation": 0},
                        "power": {"idle_watts": 10.0, "busy_watts": 50.0, "power_down": DOWN}},
        "jobs": {"n": [1, 1], "volume": {"low": 200, "high": 200},
                 "runtime_factor": {"low": 1, "high": 1}},
        "queue_sizes": [1],
        "policies": ["BFstart"],
    }  # fmt: skip
    results = gridsim.run(scenario, progress=False)
    run = results.runs.iloc[0]
    assert run.busy_energy_kwh == pytest.approx(50 * 100 / 3.6e6)
    assert run.idle_energy_kwh == pytest.approx(10 * 15 / 3.6e6)
    assert run.switching_energy_kwh == pytest.approx(70 * 5 / 3.6e6)
    assert run.off_energy_kwh == pytest.approx(4 * 80 / 3.6e6)
    assert run.switch_offs == 1
    assert results.extra["node_energy"].off_time.tolist() in ([0.0, 80.0], [80.0, 0.0])


def test_a_timeout_longer_than_the_run_accounts_as_idle_nodes():
    """A node that never waits long enough to switch off costs what it does without the
    block (to rounding: the idle time is summed per state)."""

    def with_power(power):
        scenario = flow(5, False)
        scenario["environment"] = {**scenario["environment"], "power": power}
        return gridsim.run(scenario, progress=False)

    plain = with_power({k: v for k, v in POWER.items() if k != "power_down"})
    never = with_power({**POWER, "power_down": {**DOWN, "idle_timeout": 1e9}}).runs
    for column in ("energy_kwh", "busy_energy_kwh", "idle_energy_kwh", "electricity_cost",
                   "carbon_kg"):  # fmt: skip
        assert never[column].to_numpy() == pytest.approx(plain.runs[column].to_numpy(), rel=1e-12)
    assert (never.switch_offs == 0).all() and (never.off_energy_kwh == 0).all()
    assert "node_energy" not in plain.extra and "switch_offs" not in plain.runs


REPLAY = {
    "name": "power-down-replay", "kind": "swf_replay", "replications": 1, "progress": False,
    "workload": {"max_jobs": 60},
    "schedulers": ["easy"],
    "platform": {
        "node_classes": [
            {"count": 60, "performance": 1.0,
             "power": {"idle_watts": 50, "busy_watts": 200,
                       "power_down": {**DOWN, "idle_timeout": 600}}},
            {"count": 40, "performance": 1.0, "power": {"idle_watts": 70, "busy_watts": 320}},
        ],
        "electricity_price": {"profile": "daily", "steps": [[0, 0.1], [7, 0.3], [22, 0.1]]},
    },
}  # fmt: skip


def test_a_replay_on_node_classes_where_one_class_powers_down():
    results = gridsim.run(REPLAY, progress=False)
    classes = REPLAY["platform"]["node_classes"]
    price = SignalConfig(**REPLAY["platform"]["electricity_price"])
    jobs = results.jobs
    span = (float(jobs.submit_time.min()), float(jobs.finish_time.max()))
    held: dict[int, list] = {}
    for job in jobs.itertuples():
        for node in node_ids(job.allocated_resources):
            held.setdefault(node, []).append((job.start_time, job.finish_time))
    table = results.extra["node_energy"].set_index("node")
    for node in range(100):
        power = PowerConfig(**classes[0 if node < 60 else 1]["power"])
        row = table.loc[node]
        if power.power_down is None:
            assert row.off_energy_kwh == row.switching_energy_kwh == row.switch_offs == 0
            continue
        states, offs = node_states(held.get(node, []), span, power.power_down)
        expected = node_state_accounts(power, states, price, None)
        for column in (*STATE_COLUMNS, "carbon_kg"):
            assert row[column] == pytest.approx(expected.get(column, 0.0), rel=1e-9, abs=1e-12)
        assert row.switch_offs == offs
    assert table.switch_offs.sum() > 0
    assert results.runs.off_energy_kwh.iloc[0] == pytest.approx(table.off_energy_kwh.sum())
    assert np.isclose(results.runs.energy_kwh.iloc[0], table.energy_kwh.sum(), rtol=1e-12)
