"""Invariants of job flows under faults, on random small instances (hypothesis).

Under faults, the guarantee of conservative backfilling that holds is: a queued reservation
moves later only when an unavailability revealed at that moment (an outage, a local overrun,
an unannounced local task, another job's overrun) overlaps it on one of its nodes, or, with
``resubmit: head``, when a killed job is planned before it. Tested here on every move.
"""

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.faults.config import FaultsConfig
from gridsim.faults.draws import InstanceFaults
from gridsim.model import Job, Node
from gridsim.scheduling.disruptions import overlaps
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Instance, simulate
from gridsim.sim.fault_engine import simulate_with_faults

TOL = 1e-6
GRID = {"job", "lost"}
UNAVAILABLE = {"local_load", "local_overrun", "local_unannounced", "down"}
#: Backfilling criteria and single-job criteria acting as job-flow policies.
POLICIES = st.sampled_from([
    "BFstart", "BFfinish", "BFshort", "PAST", "CoP", "FirstFit", "MinFinish", "MinCost",
    "MaxQLite", "DEP", {"name": "DEP", "max_distance": 10.0}, "DEPLite", "COORD", "COORDLite",
])  # fmt: skip
SETTINGS = settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def intervals(draw, count, low, high, length):
    """Up to ``count`` disjoint sorted intervals in [low, high] with lengths up to ``length``."""
    times = sorted(draw(st.lists(st.floats(low, high), max_size=2 * count)))
    pairs = [(a, min(b, a + length)) for a, b in zip(times[::2], times[1::2], strict=False)]
    return tuple((a, b) for a, b in pairs if b - a > 0.5)


@st.composite
def faulty_instances(draw):
    n_nodes = draw(st.integers(2, 5))
    perf = draw(st.lists(st.floats(1, 8), min_size=n_nodes, max_size=n_nodes))
    nodes = tuple(Node(i, p, p / 10) for i, p in enumerate(perf))
    busy = tuple(intervals(draw, 2, 0, 60, 15) for _ in nodes)
    jobs = tuple(
        Job(i, draw(st.sampled_from([0.0, draw(st.floats(0, 40))])),
            draw(st.integers(1, n_nodes)), draw(st.floats(1, 60)),
            runtime_factor=draw(st.sampled_from([1.0, draw(st.floats(0.5, 1.6))])))
        for i in range(draw(st.integers(1, 8)))
    )  # fmt: skip
    extra = tuple(tuple(draw(st.sampled_from([0.0, draw(st.floats(0, 20))])) for _ in b)
                  for b in busy)  # fmt: skip
    outages = {i: intervals(draw, 2, 0, 80, 20) for i in range(n_nodes)}
    unannounced = {
        i: tuple(sorted((draw(st.floats(0, 80)), draw(st.floats(0.5, 10)))
                        for _ in range(draw(st.integers(0, 2)))))
        for i in range(n_nodes)
    }  # fmt: skip
    consequences = dict(
        resubmit=draw(st.sampled_from(["keep_priority", "head"])),
        max_retries=draw(st.integers(0, 2)),
        compress=draw(st.booleans()),
    )
    config = FaultsConfig.model_validate({"consequences": consequences})
    faults = InstanceFaults(config, nodes, extra, np.random.SeedSequence(0), outages, unannounced)
    return Instance(nodes, busy, jobs), faults


def tables(trace):
    return pd.DataFrame(trace.job_records()), pd.DataFrame(trace.task_records())


@SETTINGS
@given(faulty_instances(), POLICIES)
def test_no_grid_task_overlaps_another_task_or_an_outage(case, policy):
    instance, faults = case
    _, tasks = tables(simulate_with_faults(instance, build_criterion(policy), faults))
    for _, on_node in tasks.groupby("node"):
        grid = on_node[on_node["kind"].isin(GRID)].sort_values("start")
        assert (grid["start"].to_numpy()[1:] >= grid["end"].to_numpy()[:-1] - TOL).all()
        for other in on_node[on_node["kind"].isin(UNAVAILABLE)].itertuples():
            clash = (grid["start"] < other.end - TOL) & (grid["end"] > other.start + TOL)
            assert not clash.any(), (other, grid[clash])


@SETTINGS
@given(faulty_instances(), POLICIES)
def test_every_job_ends_finished_or_failed_and_lost_work_is_its_killed_task_time(case, policy):
    instance, faults = case
    jobs, tasks = tables(simulate_with_faults(instance, build_criterion(policy), faults))
    assert sorted(jobs["job_id"]) == [job.id for job in instance.jobs]
    assert set(jobs["final_state"]) <= {"finished", "killed", "failed"}
    failed = jobs[jobs["final_state"] == "failed"]
    assert (failed["retries"] == faults.consequences.max_retries + 1).all()
    assert (jobs["retries"] <= faults.consequences.max_retries + 1).all()
    lost = tasks[tasks["kind"] == "lost"]
    held = (lost["end"] - lost["start"]).groupby(lost["job_id"]).sum()
    runs = lost.groupby("job_id")["start"].nunique()
    for job in jobs.itertuples():
        assert abs(job.lost_work - held.get(job.job_id, 0.0)) <= TOL * max(1.0, job.lost_work)
        assert job.retries == runs.get(job.job_id, 0)
    # Every job that ran has one run of n tasks on distinct nodes, starting and ending together.
    done = tasks[tasks["kind"] == "job"]
    for job_id, part in done.groupby("job_id"):
        assert part["start"].nunique() == 1 and part["end"].nunique() == 1
        assert part["node"].nunique() == len(part) == instance.jobs[job_id].n
    assert set(done["job_id"]) == set(jobs.job_id[jobs["final_state"] != "failed"])


@SETTINGS
@given(faulty_instances(), POLICIES)
def test_a_reservation_moves_later_only_where_a_fault_forces_it(case, policy):
    instance, faults = case
    trace = simulate_with_faults(instance, build_criterion(policy), faults)
    for move in trace.moves:
        if move.cause == "compression":
            assert not move.later
        elif move.cause == "resubmission":
            assert faults.consequences.resubmit == "head"
        if move.later and move.cause != "resubmission":
            assert move.cause in {"failure", "local_overrun", "local_unannounced", "job_overrun"}
            assert overlaps(move.old, move.blocked_nodes, move.blocked_from, move.blocked_until)
            assert move.blocked_from >= move.time - TOL  # revealed when it began, or before
    jobs, _ = tables(trace)
    moved_later = {move.job_id for move in trace.moves if move.later}
    for job in jobs.itertuples():
        if job.retries == 0 and job.start > job.first_promised_start + TOL:
            assert job.job_id in moved_later
            assert job.start <= job.first_promised_start + job.delay + TOL
        assert job.disturbed == (job.retries > 0 or job.start > job.first_promised_start + TOL)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(faulty_instances(), POLICIES)
def test_faults_that_never_happen_change_nothing(case, policy):
    instance, faults = case
    on_time = tuple((0.0,) * len(intervals) for intervals in instance.busy)
    none = InstanceFaults(faults.config, faults.nodes, on_time, faults.seed, {}, {})
    criterion = build_criterion(policy)
    with_model = simulate_with_faults(instance, criterion, none)
    without = simulate(instance, criterion)
    assert with_model.job_records() == without.job_records()
    assert with_model.task_records() == without.task_records()
