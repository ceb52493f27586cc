"""No instant of a capped replay draws more than the cap, on random multi-resource and
processor-only logs and on the packaged study, confirmed by the independent checker
(tests/energy_checker.py, reading only the jobs table, the power model and the cap); a planted
violation is caught."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from energy_checker import cap_problems
from resource_flows import NODE_CLASSES, random_log

from gridsim.bundled_scenarios import FOLDER
from gridsim.energy.config import SignalConfig
from gridsim.experiments.runner import replication_seed
from gridsim.experiments.swf_replay import SwfReplayScenario, run_replication
from gridsim.workloads.jobs_table import write_jobs_table

POWERS = [{"idle_watts": 50, "busy_watts": 300}, {"idle_watts": 80, "busy_watts": 500}]
# Steps a fraction of an hour long, so that a log of 3000 s crosses them.
CAPS = [{"value": 1600}, {"profile": "daily", "steps": [[0, 2200], [0.25, 1300], [0.5, 1800]]}]


def replay(tmp_path, rng, platform: dict, name: str, count: int = 80) -> dict[str, pd.DataFrame]:
    path = tmp_path / f"{name}.parquet"
    write_jobs_table(random_log(rng, count), path)
    scenario = SwfReplayScenario.model_validate(
        {"name": "cap", "kind": "swf_replay", "seed": 1, "progress": False,
         "workload": {"path": str(path)}, "platform": platform})  # fmt: skip
    return run_replication(scenario, 0, replication_seed(1, 0))


def node_watts(classes: list[dict]) -> dict[int, float]:
    watts = [c["power"]["busy_watts"] for c in classes for _ in range(c["count"])]
    return dict(enumerate(watts))


@pytest.mark.parametrize("cap", CAPS, ids=["constant", "day-night"])
@pytest.mark.parametrize("mode", ["shared", "exclusive"])
def test_random_capped_replays_never_exceed_the_cap(tmp_path, cap, mode):
    rng = np.random.default_rng([30, len(mode), len(cap)])
    classes = [{**c, "power": p} for c, p in zip(NODE_CLASSES, POWERS, strict=True)]
    platform = {"node_classes": classes, "node_mode": mode, "power_cap": cap}
    watts, config = node_watts(classes), SignalConfig(**cap)
    for flow in range(2):
        tables = replay(tmp_path, rng, platform, f"flow{flow}")
        free = None
        if flow == 0:  # the same log again (the same seed), without the cap
            again = np.random.default_rng([30, len(mode), len(cap)])
            free = replay(tmp_path, again, {**platform, "power_cap": None}, "free")
        for scheduler, jobs in tables["jobs"].groupby("scheduler"):
            assert cap_problems(jobs, watts, config) == []
            if free is not None:  # the cap binds: without it, the same log draws more
                unbound = free["jobs"][free["jobs"].scheduler == scheduler]
                assert cap_problems(unbound, watts, config) != []


def test_a_processor_only_log_under_a_cap(tmp_path):
    rng = np.random.default_rng(31)
    classes = [{"count": 6, "power": POWERS[0]}, {"count": 4, "power": POWERS[1]}]
    tables = replay(tmp_path, rng, {"node_classes": classes, "power_cap": CAPS[1]}, "procs")
    for _, jobs in tables["jobs"].groupby("scheduler"):
        assert cap_problems(jobs, node_watts(classes), SignalConfig(**CAPS[1])) == []
        assert "allocation" not in jobs  # the processor-count columns, as without a cap


@pytest.mark.parametrize("cap", CAPS, ids=["constant", "day-night"])
def test_a_node_level_replay_under_a_cap(tmp_path, cap):
    """Nodes of different performance: the window-search planners plan under the cap."""
    rng = np.random.default_rng([32, len(cap)])
    classes = [{"count": 6, "power": POWERS[0]},
               {"count": 4, "performance": 2.0, "power": POWERS[1]}]  # fmt: skip
    platform = {"node_classes": classes, "power_cap": cap}
    tables = replay(tmp_path, rng, platform, "nodes", count=40)
    free = replay(tmp_path, np.random.default_rng([32, len(cap)]),
                  {**platform, "power_cap": None}, "free", count=40)  # fmt: skip
    runs = tables["runs"].set_index("scheduler")
    for scheduler, jobs in tables["jobs"].groupby("scheduler"):
        assert runs.policy[scheduler] == f"{scheduler}/BFstart"  # the node-level replay
        assert cap_problems(jobs, node_watts(classes), SignalConfig(**cap)) == []
        unbound = free["jobs"][free["jobs"].scheduler == scheduler]
        assert cap_problems(unbound, node_watts(classes), SignalConfig(**cap)) != []
        assert len(jobs) + runs.dropped_over_power_cap[scheduler] == len(unbound)


def test_the_study_never_exceeds_its_caps():
    """The packaged study's first 400 jobs under its three caps."""
    document = yaml.safe_load((FOLDER / "energy-power-cap.yaml").read_text())
    caps = document.pop("sweep")["platform.power_cap"]
    document["workload"]["max_jobs"] = 400
    document["progress"] = False
    watts = node_watts(document["platform"]["node_classes"])
    for cap in caps:
        document["platform"]["power_cap"] = cap
        scenario = SwfReplayScenario.model_validate(document)
        tables = run_replication(scenario, 0, replication_seed(scenario.seed, 0))
        for _, jobs in tables["jobs"].groupby("scheduler"):
            assert cap_problems(jobs, watts, SignalConfig(**cap)) == []


def test_the_checker_catches_a_planted_violation():
    jobs = pd.DataFrame({"start_time": [0.0, 5.0, 10.0], "finish_time": [10.0, 12.0, 20.0],
                         "allocated_resources": ["0-1", "2", "2"]})  # fmt: skip
    watts = {0: 100.0, 1: 100.0, 2: 150.0}
    assert cap_problems(jobs, watts, SignalConfig(value=350)) == []  # 150 ends as 150 starts
    assert cap_problems(jobs, watts, SignalConfig(value=349)) == [
        "350 W drawn at 5 over the cap of 349 W"
    ]
    # a cap dropping at 0.003 h (10.8 s), inside the jobs rather than at their edges
    dip = {"profile": "daily", "steps": [[0, 400], [0.003, 100]]}
    assert cap_problems(jobs, watts, SignalConfig(**dip)) == [
        "300 W drawn at 10.8 over the cap of 100 W",
        "150 W drawn at 12 over the cap of 100 W",
    ]
    assert cap_problems(jobs, watts, SignalConfig(**{**dip, "steps": [[0, 400], [0.003, 300]]}
                                                  )) == []  # fmt: skip


def test_the_cap_in_whole_milliwatts_rounds_node_watts_up_and_the_cap_down():
    from gridsim.energy.cap import power_limit
    from gridsim.energy.config import PowerConfig
    from gridsim.energy.model import energy_model

    model = energy_model([PowerConfig(idle_watts=1, busy_watts=10.0004)] * 2, np.ones(2),
                         [None] * 2, [None] * 2)  # fmt: skip
    constant = power_limit(model, SignalConfig(value=50.0009).signal(), 5.0, 9.0)
    assert constant.node_mw.tolist() == [10001, 10001]
    assert (constant.times, constant.cap_mw) == ((5.0,), (50000,))
    day = SignalConfig(profile="daily", steps=[[0, 100], [8, 200], [20, 100]]).signal()
    limit = power_limit(model, day, 3600.0, 2 * 86400.0)
    assert limit.times == (3600.0, 28800.0, 72000.0, 86400.0, 115200.0, 158400.0, 172800.0)
    # the last step, after the span, holds the cap's lowest value for ever
    assert limit.cap_mw == (100000, 200000, 100000, 100000, 200000, 100000, 100000)
