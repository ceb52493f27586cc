"""Replays on nodes with cores, memory and GPUs pass the independent schedule checker.

Random multi-resource logs (Parquet jobs tables with nodes x per-node amounts, processors with
memory per processor, and plain processor counts; early finishes) replayed by the swf_replay
kind on two node classes, shared and exclusive, under FCFS, EASY and conservative; the jobs
table and the platform go to tests/resource_checker.py. The checker itself is shown to catch
an over-committed node, a shared exclusive node and a broken promise.
"""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from resource_checker import schedule_problems
from resource_flows import NODE_CLASSES, random_log

from gridsim.bundled_scenarios import FOLDER
from gridsim.experiments.runner import replication_seed
from gridsim.experiments.swf_replay import SwfReplayScenario, run_replication
from gridsim.workloads.jobs_table import write_jobs_table
from gridsim.workloads.platform import log_platform


@pytest.mark.parametrize("mode", ["shared", "exclusive"])
def test_random_multi_resource_replays_pass_the_checker(tmp_path, mode):
    rng = np.random.default_rng([29, len(mode)])
    platform_section = {"node_classes": NODE_CLASSES, "node_mode": mode}
    checked = 0
    for flow in range(3):
        path = tmp_path / f"flow{flow}.parquet"
        write_jobs_table(random_log(rng), path)
        scenario = SwfReplayScenario.model_validate(
            {"name": "check", "kind": "swf_replay", "seed": 1, "progress": False,
             "workload": {"path": str(path)}, "platform": platform_section})  # fmt: skip
        tables = run_replication(scenario, 0, replication_seed(1, 0))
        nodes = log_platform(None, scenario.platform).to_frame()
        for scheduler, jobs in tables["jobs"].groupby("scheduler"):
            assert schedule_problems(jobs, nodes, mode, scheduler == "conservative") == []
            assert (jobs.gpus > 0).any() and (jobs.memory_mb > 0).any()
            checked += len(jobs)
        assert (tables["runs"].dropped_never_fits > 0).all()  # no node has 3 GPUs
    assert checked > 3 * 3 * 60


def test_the_checker_catches_over_commitment_sharing_and_broken_promises():
    nodes = pd.DataFrame({"node_id": [0], "cores": [4], "memory_mb": [100], "gpus": [1]})
    job = dict(processors=1, cores=2, memory_mb=60, gpus=0, allocation="0:2/60/0",
               allocated_resources="0", first_reservation=0.0)  # fmt: skip
    jobs = pd.DataFrame([{**job, "job_id": 1, "start_time": 0.0, "finish_time": 10.0},
                         {**job, "job_id": 2, "start_time": 5.0, "finish_time": 15.0}])  # fmt: skip
    found = schedule_problems(jobs, nodes, "shared", conservative=True)
    assert found == ["job 2: starts at 5.0, promised 0.0",
                     "node 0 over-committed in ['memory_mb'] at 5.0 (job 2)"]  # fmt: skip
    back_to_back = jobs.assign(start_time=[0.0, 10.0], finish_time=[10.0, 20.0],
                               first_reservation=[0.0, 10.0])  # fmt: skip
    assert schedule_problems(back_to_back, nodes, "shared", conservative=True) == []
    assert "exclusive node 0 shared at 5.0 (job 2)" in schedule_problems(
        jobs.assign(memory_mb=0, allocation="0:2/0/0"), nodes, "exclusive", conservative=False
    )


FULL_LOG = Path(os.environ.get("GRIDSIM_SWF_DIR", "/work/shared/data/swf")) / (
    "HPC2N-2002-2.1-cln.swf.gz"
)


@pytest.mark.slow
@pytest.mark.skipif(not FULL_LOG.is_file(), reason="HPC2N log not available")
def test_the_memory_bound_scenario_on_hpc2n_passes_the_checker():
    """HPC2N's requested memory (SWF field 10) on the memory-bound scenario's nodes: its
    first 3,000 jobs under FCFS, EASY and conservative (``GRIDSIM_SWF_JOBS`` for more)."""
    document = yaml.safe_load((FOLDER / "memory-bound.yaml").read_text())
    document["workload"].update(path=str(FULL_LOG),
                                max_jobs=int(os.environ.get("GRIDSIM_SWF_JOBS", 3000)))  # fmt: skip
    document["progress"] = False
    scenario = SwfReplayScenario.model_validate(document)
    tables = run_replication(scenario, 0, replication_seed(scenario.seed, 0))
    nodes = log_platform(None, scenario.platform).to_frame()
    for scheduler, jobs in tables["jobs"].groupby("scheduler"):
        assert (jobs.memory_mb >= 400 * jobs.cores).all()
        assert schedule_problems(jobs, nodes, "shared", scheduler == "conservative") == []
