"""Small real runs shared by the analysis tests (a plain module with a unique name).

Each helper runs a scenario of the repository with few replications in this process and
writes it to a results folder, once per test process.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import yaml
from cloud_scenarios import small_scenario_document

from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
_BASE = Path(tempfile.mkdtemp(prefix="gridsim-analysis-tests-"))


def _run(source, name: str, replications: int, **update) -> Path:
    scenario, text = load_scenario(source)
    if update:
        scenario = scenario.model_copy(update=update)
    out = _BASE / name
    run_experiment(scenario, text, replications=replications, jobs=1, out_dir=out,
                   progress=False)  # fmt: skip
    return out


@functools.cache
def jobflow_run() -> Path:
    """Paper 002's static queue with queues of 8 and 16 jobs, 4 replications."""
    return _run(SCENARIOS / "coordinated-placement-static.yaml", "jobflow", 4,
                queue_sizes=[8, 16])  # fmt: skip


@functools.cache
def arrivals_run() -> Path:
    """Paper 002's arrivals scenario, queue of 8 jobs, 3 replications."""
    return _run(SCENARIOS / "coordinated-placement-arrivals.yaml", "arrivals", 3,
                queue_sizes=[8])  # fmt: skip


@functools.cache
def window_search_run() -> Path:
    return _run(SCENARIOS / "window-search.yaml", "window-search", 3)


@functools.cache
def batch_run() -> Path:
    return _run(SCENARIOS / "batch-alp-amp.yaml", "batch", 30)


@functools.cache
def cloud_run() -> Path:
    return _run(yaml.safe_dump(small_scenario_document()), "cloud", 2)


@functools.cache
def replay_run() -> Path:
    """The first 150 jobs of the bundled KTH-SP2 log on its own machine, EASY and
    conservative backfilling."""
    scenario, _ = load_scenario(SCENARIOS / "swf-replay.yaml")
    workload = scenario.workload.model_copy(update={"max_jobs": 150})
    return _run(SCENARIOS / "swf-replay.yaml", "replay", 1, workload=workload,
                schedulers=["easy", "conservative"], progress=False)  # fmt: skip


@functools.cache
def heterogeneous_replay_run() -> Path:
    """The first 60 jobs of KTH-SP2 on two node classes (fractional run times), EASY."""
    source = SCENARIOS / "swf-replay-heterogeneous.yaml"
    scenario, _ = load_scenario(source)
    workload = scenario.workload.model_copy(update={"max_jobs": 60})
    return _run(source, "replay-heterogeneous", 1, workload=workload, schedulers=["easy"],
                progress=False)  # fmt: skip


@functools.cache
def gpu_replay_run() -> Path:
    """The GPU-cluster scenario's first 120 jobs (cores, memory and GPUs), FCFS and EASY."""
    source = SCENARIOS / "gpu-cluster.yaml"
    scenario, _ = load_scenario(source)
    workload = scenario.workload.model_copy(update={"jobs": 120})
    return _run(source, "replay-gpu", 1, workload=workload, schedulers=["fcfs", "easy"],
                progress=False)  # fmt: skip


@functools.cache
def memory_replay_run() -> Path:
    """The memory-bound scenario on the bundled log's first 80 jobs (400 MiB per core on
    nodes of 768 MiB and 2 GiB), conservative."""
    source = SCENARIOS / "memory-bound.yaml"
    scenario, _ = load_scenario(source)
    workload = scenario.workload.model_copy(update={"max_jobs": 80})
    return _run(source, "replay-memory", 1, workload=workload, schedulers=["conservative"],
                progress=False)  # fmt: skip
