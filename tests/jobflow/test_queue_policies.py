"""Node-level FCFS and EASY (gridsim.scheduling.queue_policies): invariants and examples."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from test_invariants import POLICIES, SETTINGS, TOL, check_common, instances

from gridsim.model import Job, Node
from gridsim.scheduling.queue_policies import EasyBackfilling, build_planner
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Engine, Instance, simulate

SCHEDULERS = st.sampled_from(["fcfs", "easy"])
FEWER = settings(SETTINGS, max_examples=examples(40))


@FEWER
@given(instances(deviations=True), POLICIES, SCHEDULERS)
def test_no_overlap_and_no_start_before_arrival(instance, policy, scheduler):
    # check_common: no two tasks on a node overlap, start >= arrival, every job accounted for
    check_common(instance, simulate(instance, build_criterion(policy), scheduler=scheduler))


@FEWER
@given(instances(deviations=True), POLICIES)
def test_fcfs_starts_jobs_in_priority_order(instance, policy):
    jobs = check_common(instance, simulate(instance, build_criterion(policy), scheduler="fcfs"))
    ran = jobs[jobs.final_state != "rejected"].sort_values(["arrival", "job_id"])
    assert (ran.start.diff().dropna() >= -TOL).all()


class RecordingEasy(EasyBackfilling):
    """EASY that remembers every reservation each head was given."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.head_starts: dict[int, list[float]] = {}

    def _plan_queue(self, now, old):
        changes = super()._plan_queue(now, old)
        if self.head is not None:
            starts = self.head_starts.setdefault(self.head, [])
            starts.append(self.reservations[self.head].start)
        return changes


@FEWER
@given(instances(deviations=True, early_only=True), POLICIES)
def test_easy_never_moves_the_head_later_without_overruns(instance, policy):
    planner = RecordingEasy(instance.nodes, instance.busy, build_criterion(policy))
    jobs = check_common(instance, Engine(instance, planner).run()).set_index("job_id")
    for job_id, starts in planner.head_starts.items():
        assert max(starts) <= starts[0] + TOL
        assert jobs.start[job_id] <= starts[0] + TOL


def test_easy_backfills_on_the_heads_spare_nodes():
    # 4 identical nodes. Job 0 holds nodes until 10; job 1 (3 nodes) must wait for it, so it
    # is the head, reserved at 10, and leaves one node spare then. Job 2 (1 node, long) runs
    # past 10 but on that spare node: classical EASY starts it at once, whichever nodes
    # BFstart first chose for the head.
    nodes = tuple(Node(i, 1.0, 1.0) for i in range(4))
    jobs = (Job(0, 0.0, 2, 10.0), Job(1, 1.0, 3, 5.0), Job(2, 2.0, 1, 100.0))
    instance = Instance(nodes, ((),) * 4, jobs)
    planner = RecordingEasy(nodes, instance.busy, build_criterion("BFstart"))
    trace = Engine(instance, planner).run()
    starts = [record["start"] for record in trace.job_records()]
    assert starts == [0.0, 10.0, 2.0]
    assert planner.head_starts == {1: [10.0, 10.0]}  # reserved at its arrival, kept at job 2's
    fcfs = simulate(Instance(nodes, ((),) * 4, jobs), build_criterion("BFstart"), "fcfs", "fcfs")
    assert [record["start"] for record in fcfs.job_records()] == [0.0, 10.0, 10.0]


def test_easy_withdraws_a_window_when_a_second_completion_lets_the_head_start():
    # 2 nodes, jobs 0 and 1 both end early at 5 (two events at one instant). After the
    # first, the head (job 2, 2 nodes) is reserved at 10 and job 4 backfills on the free node
    # until 8. After the second, the head starts at once on both nodes: job 4's window is
    # withdrawn (its start cancelled) and it waits behind the new head, job 3.
    nodes = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0))
    jobs = (Job(0, 0.0, 1, 10.0, runtime_factor=0.5), Job(1, 0.0, 1, 10.0, runtime_factor=0.5),
            Job(2, 1.0, 2, 5.0), Job(3, 1.5, 2, 5.0), Job(4, 2.0, 1, 3.0))  # fmt: skip
    trace = simulate(Instance(nodes, ((), ()), jobs), build_criterion("BFstart"), "fcfs", "easy")
    records = trace.job_records()
    assert [record["start"] for record in records] == [0.0, 0.0, 5.0, 10.0, 15.0]
    assert records[4]["first_promised_start"] == 5.0


def test_a_job_that_fits_nowhere_is_rejected():
    nodes = (Node(0, 1.0, 1.0), Node(1, 4.0, 1.0))
    jobs = (Job(0, 0.0, 1, 8.0), Job(1, 0.0, 2, 8.0, min_performance=2.0))
    for scheduler in ("fcfs", "easy"):
        trace = simulate(Instance(nodes, ((), ()), jobs), build_criterion("BFfinish"),
                         scheduler=scheduler)  # fmt: skip
        states = [record["final_state"] for record in trace.job_records()]
        assert states == ["finished", "rejected"]


def test_unknown_scheduler_names_are_refused():
    with pytest.raises(
        ValueError, match=r"unknown scheduler 'sjf'.*expected one of fcfs, easy, conservative"
    ):
        build_planner("sjf", (), (), build_criterion("BFstart"))  # type: ignore[arg-type]


def test_fcfs_under_sjf_re_plans_the_queue_when_a_shorter_job_overtakes_it():
    # One node busy with job 0 until 10. Job 1 (8 units) queues at 10; job 2 (2 units)
    # arrives later but is shorter: it goes first at 10, and job 1 moves to 12 (delay 2).
    nodes = (Node(0, 1.0, 1.0),)
    jobs = (Job(0, 0.0, 1, 10.0), Job(1, 1.0, 1, 8.0), Job(2, 2.0, 1, 2.0))
    trace = simulate(Instance(nodes, ((),), jobs), build_criterion("BFfinish"), "sjf", "fcfs")
    records = {record["job_id"]: record for record in trace.job_records()}
    got = {i: (r["first_promised_start"], r["start"], r["delay"]) for i, r in records.items()}
    assert got == {0: (0.0, 0.0, 0.0), 1: (10.0, 12.0, 2.0), 2: (10.0, 10.0, 0.0)}


def small_heterogeneous_flow(seed: int) -> Instance:
    """Eight nodes of performance 0.5 and 2 (a window's runtime is not its volume), twenty
    jobs arriving faster than they are served, most ending early, some overrunning."""
    rng = np.random.default_rng(seed)
    nodes = tuple(Node(i, 0.5 if i < 4 else 2.0, 1.0 if i < 4 else 3.0) for i in range(8))
    jobs, arrival = [], 0.0
    for i in range(20):
        arrival += float(rng.exponential(3.0))
        factor = float(rng.choice([0.3, 0.6, 1.0, 1.3]))
        jobs.append(Job(i, round(arrival, 1), int(rng.integers(1, 5)),
                        round(float(rng.uniform(5, 40)), 1), runtime_factor=factor))  # fmt: skip
    return Instance(nodes, ((),) * 8, tuple(jobs))


@pytest.mark.parametrize("scheduler", ["easy", "fcfs"])
@pytest.mark.parametrize("seed", range(2))
def test_small_flows_on_nodes_of_other_speeds_are_scheduled_as_by_the_reference(seed, scheduler):
    """The planners' shortcuts (the volume a criterion searched with, tests standing in for
    searches) change no schedule: the frozen reference searches every time."""
    from node_replay_cases import schedule

    instance = small_heterogeneous_flow(seed)
    for name in ("BFfinish", "CoP"):
        fast = schedule(instance, build_criterion(name), scheduler)
        reference = schedule(instance, build_criterion(name), scheduler, reference=True)
        pd.testing.assert_frame_equal(fast, reference, check_exact=True)
