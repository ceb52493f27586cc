"""Scenarios that cannot give a result are refused before running, naming the field; what a
run could not do by chance is counted per policy under the summary and in the metadata."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from gridsim.analysis.results import load_table
from gridsim.cli import main
from gridsim.config import ScenarioError
from gridsim.experiments.grid import load_experiment

REPOSITORY = Path(__file__).resolve().parents[1]
WINDOW_SEARCH = """\
name: tiny
kind: window_search
environment: {nodes: 10, horizon: 300}
request: {n: 2, volume: 100, budget: 500}
policies: [FirstFit]
"""
JOB_FLOW = """\
name: flow
kind: jobflow
environment: {nodes: 8, performance: {low: 2, high: 4}, local_load: {max_utilisation: 0}}
jobs: {n: [1, 4]}
queue_sizes: [10]
policies: [BFstart, BFfinish]
"""
BATCH = """\
name: cycles
kind: batch
seed: 1
replications: 2
policies: [{name: ALP}, {name: AMP}]
"""
CLOUD = (REPOSITORY / "scenarios" / "cloud-federation-dytss.yaml").read_text()


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def changed(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


REFUSED = {
    "minimum performance above every node": (
        changed(WINDOW_SEARCH, "budget: 500}", "budget: 500, min_performance: 11}"),
        "request.min_performance: 11 is above the fastest node the environment can have (10, "
        "environment.performance)",
    ),
    "minimum performance above the top level": (
        changed(WINDOW_SEARCH, "horizon: 300}", "horizon: 300, performance_step: 3}").replace(
            "budget: 500}", "budget: 500, min_performance: 9}"
        ),
        "request.min_performance: 9 is above the fastest node the environment can have (8, ",
    ),
    "budget below the cheapest window": (
        changed(WINDOW_SEARCH, "budget: 500", "budget: 10"),
        "request.budget: 10 is below the cheapest window the environment can offer, 14.3 ",
    ),
    "a task longer than the horizon": (
        changed(WINDOW_SEARCH, "volume: 100, budget: 500", "volume: 1e4, budget: 1e6"),
        "request.volume: a task lasts at least 1000 time units on the fastest node, longer "
        "than environment.horizon (300)",
    ),
    "more nodes than memory": (
        changed(WINDOW_SEARCH, "nodes: 10,", "nodes: 1e8,"),
        "environment.nodes: 100000000 nodes would need about 1.5e+06 TB of memory",
    ),
    "jobs all wider than the machine": (
        changed(JOB_FLOW, "n: [1, 4]", "n: [9, 12]"),
        "jobs.n: every job asks for at least 9 nodes, but environment.nodes is 8",
    ),
    "jobs all too demanding": (
        changed(JOB_FLOW, "n: [1, 4]}", "n: [1, 4], min_performance: 5}"),
        "jobs.min_performance: 5 is above the fastest node the environment can have (4, ",
    ),
    "job budget below the cheapest job": (
        changed(JOB_FLOW, "n: [1, 4]}", "n: [1, 4], budget: 1}"),
        "jobs.budget: 1 is below the cheapest window of the smallest job, ",
    ),
    "price cap below every slot price (ALP)": (
        BATCH + "jobs: {price_markup: [0.5, 0.6]}\n",
        "policies.0: ALP can find no slot: every eligible slot costs at least",
    ),
    "batch jobs wider than every slot list": (
        BATCH + "jobs: {nodes: [200, 300]}\n",
        "jobs.nodes: every job asks for at least 200 slots, but a slot list has at most 150",
    ),
    "batch jobs faster than every slot": (
        BATCH + "jobs: {min_performance: [4.0, 5.0]}\n",
        "jobs.min_performance: every job needs performance 4 or more, above every slot's",
    ),
    "cloud providers without VMs": (
        re.sub(r"vms: \d+\}", "vms: 0}", CLOUD),
        "providers: no provider ever accepts a VM (every capacity step has vms: 0)",
    ),
    "one point of a sweep": (
        WINDOW_SEARCH + "sweep: {request.n: [2, 12]}\n",
        "sweep point request.n=12: request.n: 12 nodes requested, but environment.nodes is 10",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_scenario_that_cannot_give_a_result_is_refused_naming_the_field(case, tmp_path):
    text, message = REFUSED[case]
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    for command in (["validate", path], ["run", path, "-q", "-j", 1, "-o", tmp_path / "out"]):
        result = invoke(*command)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"gridsim: error: {path}: {message}"), result.stderr
        assert len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_machine_larger_than_memory_is_refused_with_the_estimate():
    text = changed(WINDOW_SEARCH, "nodes: 10,", "nodes: 100000000,")
    with pytest.raises(ScenarioError, match=r"^environment\.nodes: 100000000 nodes would need "
                       r"about 1\.5e\+06 TB of memory per replication \(estimated\), more than "
                       r"this computer's [\d.]+ [kMGT]?B$"):  # fmt: skip
        load_experiment(text)


def test_a_log_whose_machine_is_larger_than_memory_is_refused_before_running(tmp_path):
    log = tmp_path / "huge.swf"
    log.write_text("; MaxProcs: 1000000000\n1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n")
    result = invoke("run", REPOSITORY / "scenarios" / "swf-replay.yaml", "--log", log, "-q",
                    "-o", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 2
    assert re.search(r": workload\.path: the machine size of huge\.swf: 1000000000 nodes would "
                     r"need about 1 TB of memory per replication \(estimated\), more than this "
                     r"computer's [\d.]+ [kMGT]?B$", result.stderr.strip())  # fmt: skip
    assert not (tmp_path / "out").exists()


def test_a_log_with_no_job_left_is_refused_naming_why(tmp_path):
    log = tmp_path / "wide.swf"
    log.write_text("; MaxProcs: 4\n" + "1 0 -1 100 8 -1 -1 8 200 -1 1 1 1 -1 -1 -1 -1 -1\n")
    result = invoke("validate", REPOSITORY / "scenarios" / "swf-replay.yaml")
    assert result.exit_code == 0
    result = invoke("run", REPOSITORY / "scenarios" / "swf-replay.yaml", "--log", log, "-q",
                    "-o", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.endswith(
        f"{log}: no job to replay (1 job lines, 1 dropped: 1 larger_than_machine)\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_run_with_jobs_wider_than_the_machine_prints_the_rejection_counts(tmp_path):
    path = tmp_path / "wide.yaml"
    path.write_text(changed(JOB_FLOW, "n: [1, 4]", "n: [4, 12]"))
    out = tmp_path / "out"
    result = invoke("run", path, "-r", 3, "-q", "-j", 1, "-o", out)
    assert result.exit_code == 0, result.output
    jobs = load_table(out, "jobs")
    rejected = jobs[(jobs["final_state"] == "rejected") & (jobs["processors"] > 8)]
    assert len(rejected) > 0  # n ~ U{4..12}: some jobs ask for more than 8 nodes
    metadata = json.loads((out / "metadata.json").read_text())
    for policy in ("BFstart", "BFfinish"):
        count = int((rejected["policy"] == policy).sum())
        line = f"  {policy}, queue_size 10: {count} of 30 jobs rejected: wider than the machine"
        assert line in result.stdout.splitlines()
        row = {"policy": policy, "queue_size": 10, "count": count, "of": 30,
               "what": "jobs rejected", "why": "wider than the machine"}  # fmt: skip
        assert row in metadata["rejections"]
    not_rejected = jobs[(jobs["final_state"] != "rejected")]
    assert (not_rejected["processors"] <= 8).all()


def test_jobs_dropped_from_a_log_are_counted_once_for_every_scheduler(tmp_path):
    log = tmp_path / "log.swf"
    lines = ["; MaxProcs: 4"] + [
        f"{i} {10 * i} -1 {run} {procs} -1 -1 {procs} 200 -1 1 1 1 -1 -1 -1 -1 -1"
        for i, (run, procs) in enumerate([(100, 2), (-5, 2), (50, 8), (80, 1)], start=1)
    ]
    log.write_text("\n".join(lines) + "\n")
    result = invoke("run", REPOSITORY / "scenarios" / "swf-replay.yaml", "--log", log, "-q",
                    "-r", 1, "-j", 1, "-o", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (
        "  every policy: 1 of 4 jobs dropped from the log: run time zero, negative or unknown"
        in (result.stdout)
    )
    assert "  every policy: 1 of 4 jobs dropped from the log: wider than the machine\n" in (
        result.stdout
    )


def test_a_batch_whose_price_cap_admits_little_counts_jobs_without_alternative(tmp_path):
    path = tmp_path / "cycles.yaml"
    path.write_text(BATCH + "jobs: {price_markup: [0.75, 0.8]}\n")
    out = tmp_path / "out"
    result = invoke("run", path, "-q", "-j", 1, "-o", out)
    assert result.exit_code == 0, result.output
    runs = load_table(out, "runs")
    alp = runs[(runs["policy"] == "ALP") & (runs["goal"] == "time")]
    unserved, jobs = int(alp["jobs_without_alternative"].sum()), int(alp["jobs"].sum())
    assert unserved > 0
    assert (f"  ALP, goal time: {unserved} of {jobs} jobs without an alternative: no slots meet "
            "the job's size, minimum performance and price cap") in result.stdout  # fmt: skip


def test_a_queue_larger_than_memory_is_refused_with_the_estimate():
    text = changed(JOB_FLOW, "queue_sizes: [10]", "queue_sizes: [10, 100000000]")
    with pytest.raises(ScenarioError, match=r"queue_sizes: 100000000 jobs would need about "
                       r"1\.2 TB of memory per replication \(estimated\)"):  # fmt: skip
        load_experiment(text)


def test_a_run_whose_every_job_is_rejected_ends_with_the_counts(tmp_path):
    # One job per run, n ~ U{8..12} on 8 nodes: most runs reject their only job (no task).
    path = tmp_path / "wide.yaml"
    path.write_text(changed(JOB_FLOW, "n: [1, 4]", "n: [8, 12]").replace(
        "queue_sizes: [10]", "queue_sizes: [1]"))  # fmt: skip
    out = tmp_path / "out"
    result = invoke("run", path, "-r", 4, "-q", "-j", 1, "-o", out)
    assert result.exit_code == 0, result.output
    jobs = load_table(out, "jobs")
    for policy in ("BFstart", "BFfinish"):
        wide = int((jobs[jobs["policy"] == policy]["processors"] > 8).sum())
        assert wide > 0
        assert (f"  {policy}, queue_size 1: {wide} of 4 jobs rejected: wider than the machine"
                in result.stdout.splitlines())  # fmt: skip
    empty = int(jobs.loc[jobs["processors"] > 8, "replication"].iloc[0])
    chart = invoke("gantt", out, "--policy", "BFstart", "--replication", empty, "-o",
                   tmp_path / "c.png")  # fmt: skip
    assert chart.exit_code == 2, chart.output
    assert chart.stderr.startswith(f"gridsim: error: {out}: no tasks with ")
