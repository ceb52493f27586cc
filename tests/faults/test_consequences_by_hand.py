"""One hand-made case per consequence of a fault, with the schedule written out."""

import numpy as np
import pytest

from gridsim.faults.config import FaultsConfig
from gridsim.faults.draws import InstanceFaults
from gridsim.model import Job, Node
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Instance
from gridsim.sim.fault_engine import simulate_with_faults


def run(nodes, busy, jobs, extra=None, outages=None, unannounced=None, **consequences):
    """Simulate BFfinish with these faults: ``extra`` per node per local task, ``outages`` and
    ``unannounced`` per node."""
    config = FaultsConfig.model_validate({"consequences": consequences})
    extra = extra or tuple(tuple(0.0 for _ in intervals) for intervals in busy)
    faults = InstanceFaults(config, nodes, extra, np.random.SeedSequence(0),
                            outages or {}, unannounced or {})  # fmt: skip
    return simulate_with_faults(Instance(nodes, busy, jobs), build_criterion("BFfinish"), faults)


def schedule(trace):
    """(kind, job, node, start, end) of every task, in time order."""
    return sorted((t["kind"], t["job_id"], t["node"], t["start"], t["end"])
                  for t in trace.task_records())  # fmt: skip


def test_a_failure_during_a_task_kills_the_job_and_it_runs_again_after_the_repair():
    # Job 0 (volume 20) takes the fast node 0 over [0, 10). Node 0 fails at 4, back at 6:
    # the run is lost (4 node-time units), and the job, submitted again at 4, finishes
    # soonest on node 0 after its repair, [6, 16), not on the slow node 1 [4, 24).
    nodes = (Node(0, 2.0, 1.0), Node(1, 1.0, 0.5))
    trace = run(nodes, ((), ()), (Job(0, 0.0, 1, 20.0),), outages={0: [(4.0, 6.0)]})
    assert schedule(trace) == [("down", -1, 0, 4.0, 6.0), ("job", 0, 0, 6.0, 16.0),
                               ("lost", 0, 0, 0.0, 4.0)]  # fmt: skip
    job = trace.job_records()[0]
    assert (job["retries"], job["lost_work"], job["lost_cost"]) == (1, 4.0, 4.0)
    assert (job["cost"], job["cost_with_losses"]) == (10.0, 14.0)
    assert job["final_state"] == "finished" and job["disturbed"]


def test_a_local_overrun_moves_the_reservation_it_runs_into():
    # Job 0 is promised node 0 after its local task, [5, 15) (node 1 is busy until 12). The
    # local task ends 3 late: at 5 the scheduler learns node 0 is busy until 8 and moves the
    # job to [8, 18), still sooner than node 1's [12, 32).
    nodes = (Node(0, 2.0, 1.0), Node(1, 1.0, 0.5))
    busy = (((0.0, 5.0),), ((0.0, 12.0),))
    trace = run(nodes, busy, (Job(0, 0.0, 1, 20.0),), extra=((3.0,), (0.0,)))
    assert schedule(trace) == [("job", 0, 0, 8.0, 18.0), ("local_load", -1, 0, 0.0, 5.0),
                               ("local_load", -1, 1, 0.0, 12.0),
                               ("local_overrun", -1, 0, 5.0, 8.0)]  # fmt: skip
    job = trace.job_records()[0]
    assert (job["first_promised_start"], job["start"], job["delay"]) == (5.0, 8.0, 3.0)
    assert job["disturbed"] and job["retries"] == 0
    [move] = trace.moves
    assert (move.cause, move.job_id, move.old.start, move.new.start) == ("local_overrun", 0, 5, 8)
    assert (move.blocked_nodes, move.blocked_from, move.blocked_until) == ((0,), 5.0, 8.0)


# Two equal nodes; jobs 0 and 1 run over [0, 10), job 2 (both nodes) is promised [10, 20).
# Node 0 fails at 5 and is back at 7, killing job 0.
TWO_NODES = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0))
THREE_JOBS = (Job(0, 0.0, 1, 10.0), Job(1, 0.0, 1, 10.0), Job(2, 0.0, 2, 10.0))


def test_a_resubmitted_job_keeping_its_priority_moves_no_reservation():
    # Planned again at 5 in the profile as it stands: the only 10-unit gap left is after
    # job 2, from 20.
    trace = run(TWO_NODES, ((), ()), THREE_JOBS, outages={0: [(5.0, 7.0)]})
    assert schedule(trace) == [
        ("down", -1, 0, 5.0, 7.0), ("job", 0, 0, 20.0, 30.0), ("job", 1, 1, 0.0, 10.0),
        ("job", 2, 0, 10.0, 20.0), ("job", 2, 1, 10.0, 20.0), ("lost", 0, 0, 0.0, 5.0),
    ]  # fmt: skip
    assert trace.moves == []
    assert [job["disturbed"] for job in trace.job_records()] == [True, False, False]


def test_a_resubmitted_job_at_the_head_goes_first_and_moves_what_it_collides_with():
    # Planned first: node 0 after its repair, [7, 17). Job 2's window [10, 20) is no longer
    # free on node 0, so it is planned again after job 0: [17, 27), 7 later than promised.
    trace = run(TWO_NODES, ((), ()), THREE_JOBS, outages={0: [(5.0, 7.0)]}, resubmit="head")
    assert schedule(trace) == [
        ("down", -1, 0, 5.0, 7.0), ("job", 0, 0, 7.0, 17.0), ("job", 1, 1, 0.0, 10.0),
        ("job", 2, 0, 17.0, 27.0), ("job", 2, 1, 17.0, 27.0), ("lost", 0, 0, 0.0, 5.0),
    ]  # fmt: skip
    [move] = trace.moves
    assert (move.cause, move.job_id, move.old.start, move.new.start) == ("resubmission", 2, 10, 17)
    assert move.blocked_nodes == (0,) and (move.blocked_from, move.blocked_until) == (7, 17)
    assert trace.job_records()[2]["delay"] == 7.0


def test_a_job_killed_more_often_than_its_retries_allow_fails():
    nodes = (Node(0, 1.0, 1.0),)
    trace = run(nodes, ((),), (Job(0, 0.0, 1, 10.0),), outages={0: [(2.0, 3.0), (5.0, 6.0)]},
                max_retries=1)  # fmt: skip
    assert schedule(trace) == [("down", -1, 0, 2.0, 3.0), ("down", -1, 0, 5.0, 6.0),
                               ("lost", 0, 0, 0.0, 2.0), ("lost", 0, 0, 3.0, 5.0)]  # fmt: skip
    job = trace.job_records()[0]
    assert job["final_state"] == "failed" and job["reason"] == "killed by node failures 2 times"
    assert (job["retries"], job["lost_work"]) == (2, 4.0)


def test_an_unannounced_local_task_waits_for_the_grid_task_and_moves_the_next_one():
    # One node: job 0 over [0, 10), job 1 promised [10, 20). A local task nobody announced
    # arrives at 3 for 4 units; it waits for job 0 and takes [10, 14), so job 1 runs [14, 24).
    nodes = (Node(0, 1.0, 1.0),)
    trace = run(nodes, ((),), (Job(0, 0.0, 1, 10.0), Job(1, 0.0, 1, 10.0)),
                unannounced={0: [(3.0, 4.0)]})  # fmt: skip
    assert schedule(trace) == [("job", 0, 0, 0.0, 10.0), ("job", 1, 0, 14.0, 24.0),
                               ("local_unannounced", -1, 0, 10.0, 14.0)]  # fmt: skip
    assert [m.cause for m in trace.moves] == ["local_unannounced"]


def test_a_failure_of_a_reserved_node_moves_the_reservation_off_it():
    # Job 0 runs on node 0 over [0, 10); job 1 (2 nodes) is promised [10, 20). Node 1 is down
    # over [2, 12): at 2 job 1 moves to [12, 22).
    trace = run(TWO_NODES, ((), ()), (Job(0, 0.0, 1, 10.0), Job(1, 0.0, 2, 10.0)),
                outages={1: [(2.0, 12.0)]})  # fmt: skip
    assert schedule(trace) == [("down", -1, 1, 2.0, 12.0), ("job", 0, 0, 0.0, 10.0),
                               ("job", 1, 0, 12.0, 22.0), ("job", 1, 1, 12.0, 22.0)]  # fmt: skip
    assert [(m.cause, m.old.start, m.new.start) for m in trace.moves] == [("failure", 10, 12)]


@pytest.mark.parametrize("resubmit", ["keep_priority", "head"])
def test_outages_after_the_last_job_are_not_recorded(resubmit):
    nodes = (Node(0, 1.0, 1.0),)
    trace = run(nodes, ((),), (Job(0, 0.0, 1, 10.0),), outages={0: [(50.0, 60.0)]},
                resubmit=resubmit)  # fmt: skip
    assert schedule(trace) == [("job", 0, 0, 0.0, 10.0)]
