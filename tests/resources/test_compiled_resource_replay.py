"""The compiled multi-resource replay (gridsim/core/_resource_*.c) against the Python planners.

Built-in scheduler names replay through the C core; ``GRIDSIM_PURE_PYTHON=1`` runs
gridsim.scheduling.resource_schedulers in the Python loop. Both must give the same start
times, first reservations, allocations (node for node, unit for unit), counters, peak and
instants: on random multi-resource flows of shared and exclusive nodes here, on KTH-SP2 with
memory per node in the slow test. Without the compiled core these tests skip; the rest of
tests/resources then checks the Python planners.
"""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from resource_flows import NODE_CLASSES, flow_table, random_log, random_platform, random_request

from gridsim.core import replay as core
from gridsim.core.optional import PURE_PYTHON_ENV
from gridsim.experiments.runner import replication_seed
from gridsim.experiments.swf_replay import SwfReplayScenario, run_replication
from gridsim.resources import ResourceRequest, capacity_matrix, never_fits
from gridsim.sim.log_replay import replay_resources
from gridsim.workloads.jobs_table import write_jobs_table
from gridsim.workloads.swf import read_swf

needs_compiled = pytest.mark.skipif(
    core.compiled() is None, reason="the compiled core is not built or is switched off"
)
ALGORITHMS = ("fcfs", "easy", "conservative")
KTH = Path(os.environ.get("GRIDSIM_SWF_DIR", "/work/shared/data/swf")) / (
    "KTH-SP2-1996-2.1-cln.swf.gz"
)


def both_paths(jobs, requests, capacity, mode, algorithm):
    """The compiled replay and the Python one, after checking they agree in everything."""
    compiled = replay_resources(jobs, requests, capacity, mode, algorithm)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(PURE_PYTHON_ENV, "1")
        python = replay_resources(jobs, requests, capacity, mode, algorithm)
    np.testing.assert_array_equal(compiled.replay.start_time, python.replay.start_time)
    np.testing.assert_array_equal(
        compiled.replay.first_reservation, python.replay.first_reservation
    )
    assert compiled.allocation == python.allocation
    assert compiled.replay.counters == python.replay.counters
    assert compiled.replay.peak_processors == python.replay.peak_processors
    assert compiled.replay.events == python.replay.events
    return compiled


def busy_flow(rng: np.random.Generator, capacity: np.ndarray, count: int):
    """Bursts of arrivals (shared instants), estimates on a coarse grid, run times at, below
    or far below the estimate: queues that compression reshuffles."""
    gaps = rng.choice([0, 0, 1, 2, 5], size=count)
    flow = []
    for submit in np.cumsum(gaps).tolist():
        estimate = int(rng.choice([2, 4, 4, 8, 15]))
        duration = max(1, int(estimate * rng.choice([1.0, 1.0, 0.5, 0.1])))
        flow.append((submit, random_request(rng, capacity), estimate, duration))
    return flow


@needs_compiled
@pytest.mark.parametrize("mode", ["shared", "exclusive"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_random_flows_replay_identically_compiled_and_in_python(algorithm, mode):
    rng = np.random.default_rng([29, 32, len(algorithm), len(mode)])
    moved = 0
    for nodes in (2, 3, 5, 8):
        capacity = random_platform(rng, nodes)
        flow = busy_flow(rng, capacity, 60)
        replay = both_paths(flow_table(flow), [job[1] for job in flow], capacity,
                            mode, algorithm)  # fmt: skip
        moved += replay.replay.counters.get("compression_moves", 0)
    if algorithm == "conservative":
        assert moved > 10  # the flows do exercise compression


jobs_rows = st.lists(
    st.tuples(
        st.integers(0, 30),  # submit
        st.integers(1, 3),  # units
        st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 1)),  # unit
        st.booleans(),  # one per node
        st.integers(1, 12),  # estimate
        st.floats(0.05, 1.0),  # run time over estimate
    ),
    min_size=1,
    max_size=25,
)


@needs_compiled
@settings(max_examples=examples(40), deadline=None)
@given(jobs_rows, st.sampled_from(ALGORITHMS), st.sampled_from(["shared", "exclusive"]))
def test_small_random_workloads_replay_identically(rows, algorithm, mode):
    capacity = capacity_matrix([2, 3, 1], [3, 2, 4], [1, 0, 1])
    requests = [ResourceRequest(units, unit, one) if max(unit) > 0 else None
                for _, units, unit, one, _, _ in rows]  # fmt: skip
    kept = [i for i, r in enumerate(requests) if r is not None and never_fits(capacity, r) is None]
    if not kept:
        return
    jobs = pd.DataFrame(
        [(i, float(rows[k][0]), float(rows[k][4]), rows[k][4] * rows[k][5])
         for i, k in enumerate(kept)],
        columns=["job_id", "submit_time", "estimate", "duration"],
    )  # fmt: skip
    both_paths(jobs, [requests[k] for k in kept], capacity, mode, algorithm)


@needs_compiled
def test_a_job_that_never_fits_is_named_as_the_python_planners_name_it(monkeypatch):
    capacity = capacity_matrix([2, 2], [1024, 1024], [0, 0])
    requests = [ResourceRequest(2, (1, 512, 0)), ResourceRequest(1, (1, 2048, 0))]
    jobs = flow_table([(0, requests[0], 5, 5), (1, requests[1], 5, 5)])
    messages = []
    for pure in ("0", "1"):
        monkeypatch.setenv(PURE_PYTHON_ENV, pure)
        with pytest.raises(ValueError) as error:
            replay_resources(jobs, requests, capacity, "shared", "easy")
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("job at position 1 never fits: 1 units of 1 cores x 2048")


@needs_compiled
def test_progress_is_reported_at_the_same_instants_on_both_paths(monkeypatch):
    rng = np.random.default_rng(5)
    capacity = random_platform(rng, 4)
    flow = busy_flow(rng, capacity, 80)
    seen = []
    for pure in ("0", "1"):
        monkeypatch.setenv(PURE_PYTHON_ENV, pure)
        calls: list[float] = []
        replay_resources(flow_table(flow), [job[1] for job in flow], capacity, "shared",
                         "conservative", on_progress=calls.append, progress_every=5)  # fmt: skip
        seen.append(calls)
    assert seen[0] == seen[1] and len(seen[0]) > 5


@needs_compiled
@pytest.mark.parametrize("mode", ["shared", "exclusive"])
def test_the_swf_replay_kind_writes_the_same_tables_on_both_paths(tmp_path, monkeypatch, mode):
    """The whole kind: jobs tables (allocations, costs, resource classes) and runs tables
    (waits, utilisations, dropped_never_fits) of FCFS, EASY and conservative."""
    path = tmp_path / "flow.parquet"
    write_jobs_table(random_log(np.random.default_rng([29, 32, len(mode)])), path)
    scenario = SwfReplayScenario.model_validate(
        {"name": "paths", "kind": "swf_replay", "seed": 1, "progress": False,
         "workload": {"path": str(path)},
         "platform": {"node_classes": NODE_CLASSES, "node_mode": mode}})  # fmt: skip
    tables = []
    for pure in ("0", "1"):
        monkeypatch.setenv(PURE_PYTHON_ENV, pure)
        tables.append(run_replication(scenario, 0, replication_seed(1, 0)))
    timings = ["replay_time_s", "replay_cpu_s", "jobs_per_second"]
    for name in ("jobs", "runs", "users"):
        a, b = (table[name].drop(columns=timings, errors="ignore") for table in tables)
        pd.testing.assert_frame_equal(a, b)
    assert (tables[0]["runs"].dropped_never_fits > 0).all()  # no node has 3 GPUs


@pytest.mark.slow
@needs_compiled
@pytest.mark.skipif(not KTH.is_file(), reason="KTH-SP2 not available")
@pytest.mark.parametrize(
    ("mode", "algorithm"),
    [("shared", "fcfs"), ("shared", "easy"), ("shared", "conservative"),
     ("exclusive", "conservative")],
)  # fmt: skip
def test_kth_sp2_with_memory_per_node_replays_identically(mode, algorithm):
    """The benchmark's platform: 100 one-core nodes of 128 or 256 MiB, 100 MiB per core."""
    jobs = read_swf(KTH).jobs
    capacity = capacity_matrix([1] * 100, [128] * 50 + [256] * 50, [0] * 100)
    requests = [ResourceRequest(int(p), (1, 100, 0)) for p in jobs.processors]
    both_paths(jobs, requests, capacity, mode, algorithm)
