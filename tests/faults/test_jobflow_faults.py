"""Job-flow scenarios with faults: reproducible, the same faults for every policy, metrics,
clear errors, Gantt charts that mark faults."""

import pandas as pd
import pytest

from gridsim.analysis.plots import plot_gantt
from gridsim.config import ScenarioError, validate
from gridsim.experiments.jobflow import JobFlowScenario, run_replication
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import replication_seed

FAULTY = dict(
    name="faulty", kind="jobflow", seed=3, queue_sizes=[25],
    environment=dict(nodes=8, performance=dict(low=2, high=10), horizon=600,
                     local_load=dict(max_utilisation=0.3)),
    jobs=dict(n=[1, 4], volume=dict(low=60, high=600), runtime_factor=dict(low=0.8, high=1.2)),
    arrivals=dict(model="uniform", span=300),
    policies=["BFfinish", "CoP", "FirstFit"],
    faults=dict(local_overruns=dict(probability=0.5, mean=0.5),
                unannounced_local=dict(rate=0.002),
                failures=dict(rate=0.002, repair_mean=30)),
)  # fmt: skip


def scenario(**faults):
    document = dict(FAULTY)
    if faults:
        document["faults"] = faults
    return validate(JobFlowScenario, document)


def tables(faulty, replication=0):
    return run_replication(faulty, replication, replication_seed(faulty.seed, replication))


def test_a_faulty_job_flow_is_reproducible_to_the_last_bit():
    first, second = tables(scenario()), tables(scenario())
    for name in ("jobs", "tasks"):
        pd.testing.assert_frame_equal(first[name], second[name], check_exact=True)
    runs = [t["runs"].drop(columns="sim_time_s") for t in (first, second)]
    pd.testing.assert_frame_equal(*runs, check_exact=True)


def test_every_policy_meets_the_same_faults_while_it_runs():
    tasks = tables(scenario())["tasks"]
    assert (tasks["kind"] == "down").any() and (tasks["kind"] == "local_overrun").any()
    # (Unannounced local tasks are left out: they wait for whichever grid task runs.)
    for kind in ("down", "local_overrun"):
        part = tasks[tasks["kind"] == kind]
        # A run reads a stream until its last job ends: node by node, the shorter run's
        # faults are the first ones of the longer run's.
        for node, on_node in part.groupby("node"):
            per_policy = [sorted(zip(p["start"], p["end"], strict=True))
                          for _, p in on_node.groupby("policy")]  # fmt: skip
            longest = max(per_policy, key=len)
            for faults in per_policy:
                assert faults == longest[: len(faults)], (kind, node)


def test_fault_levels_leave_the_instance_unchanged():
    calm = tables(scenario(failures=dict(rate=0.0)))
    stormy = tables(scenario(failures=dict(rate=0.01)))
    columns = ["policy", "job_id", "submit_time", "processors", "volume"]
    pd.testing.assert_frame_equal(calm["jobs"][columns], stormy["jobs"][columns])
    local = [t["tasks"].query("kind == 'local_load'").reset_index(drop=True) for t in
             (calm, stormy)]  # fmt: skip
    pd.testing.assert_frame_equal(*local)
    assert stormy["runs"]["retries"].sum() > calm["runs"]["retries"].sum() == 0


def test_the_runs_table_reports_what_faults_did():
    runs = tables(scenario(failures=dict(rate=0.01, repair_mean=30)))["runs"]
    assert (runs["retries"] > 0).all() and (runs["lost_work"] > 0).all()
    assert runs["disturbed_share"].between(0, 1).all()
    assert (runs["total_cost_with_losses"] > runs["total_cost"]).all()
    assert (runs["mean_start_delay"] >= 0).all()


def test_bad_fault_settings_fail_with_one_line_naming_the_field(tmp_path):
    with pytest.raises(ScenarioError, match=r"^faults\.failures\.rate: .*greater than or equal"):
        load_scenario("name: x\nkind: jobflow\nqueue_sizes: [3]\npolicies: [BFfinish]\n"
                      "faults: {failures: {rate: -1}}\n")  # fmt: skip
    trace = tmp_path / "outages.csv"
    trace.write_text("node,down_from,down_until\n40,1,2\n")
    with pytest.raises(ScenarioError, match=r"names node 40, but environment\.nodes is 32"):
        load_scenario("name: x\nkind: jobflow\nqueue_sizes: [3]\npolicies: [BFfinish]\n"
                      f"faults: {{failures: {{trace: {trace}}}}}\n")  # fmt: skip


def test_a_replayed_trace_takes_its_nodes_down(tmp_path):
    trace = tmp_path / "outages.csv"
    trace.write_text("node,down_from,down_until\n0,10,200\n3,50,60\n")
    tasks = tables(scenario(failures=dict(trace=str(trace))))["tasks"]
    down = tasks[tasks["kind"] == "down"]
    assert set(zip(down["node"], down["start"], down["end"], strict=True)) == {
        (0, 10.0, 200.0), (3, 50.0, 60.0)}  # fmt: skip


def test_the_gantt_chart_marks_outages_and_lost_runs():
    tasks = tables(scenario(failures=dict(rate=0.01, repair_mean=30)))["tasks"]
    one = tasks[(tasks["policy"] == "BFfinish")]
    assert {"lost", "down"} <= set(one["kind"])
    figure = plot_gantt(one)
    labels = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert {"node down", "run killed by a failure"} <= set(labels)
