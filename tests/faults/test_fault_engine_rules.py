"""The fault engine's own rules (gridsim.sim.fault_engine), one hand-worked flow each: what
happens to local tasks nobody announced around a failure, where a local overrun stops, and
what the consequences settings change."""

import numpy as np
from test_consequences_by_hand import TWO_NODES, run, schedule

from gridsim.faults.config import FaultsConfig
from gridsim.faults.draws import InstanceFaults
from gridsim.model import Job, Node
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Instance
from gridsim.sim.fault_engine import simulate_with_faults

ONE_NODE = (Node(0, 1.0, 1.0),)


def test_an_unannounced_task_arriving_while_its_node_is_down_is_lost_and_one_at_the_repair_runs():
    # Job 0 runs [0, 10) and is killed by the outage [2, 4); planned again, it is promised
    # [4, 14). The local task arriving at 3 (node down) is lost; the one arriving at 4, the
    # repair time, finds the node up and idle: it takes [4, 9) and the job moves to [9, 19).
    trace = run(ONE_NODE, ((),), (Job(0, 0.0, 1, 10.0),), outages={0: [(2.0, 4.0)]},
                unannounced={0: [(3.0, 5.0), (4.0, 5.0)]})  # fmt: skip
    assert schedule(trace) == [("down", -1, 0, 2.0, 4.0), ("job", 0, 0, 9.0, 19.0),
                               ("local_unannounced", -1, 0, 4.0, 9.0),
                               ("lost", 0, 0, 0.0, 2.0)]  # fmt: skip


def test_a_failure_drops_the_local_tasks_waiting_on_its_node():
    # The local task arriving at 1 waits for job 0 ([0, 10)); the node fails at 5, so it is
    # gone: nothing local runs when the job, planned again, ends at 16.
    trace = run(ONE_NODE, ((),), (Job(0, 0.0, 1, 10.0),), outages={0: [(5.0, 6.0)]},
                unannounced={0: [(1.0, 3.0)]})  # fmt: skip
    assert schedule(trace) == [("down", -1, 0, 5.0, 6.0), ("job", 0, 0, 6.0, 16.0),
                               ("lost", 0, 0, 0.0, 5.0)]  # fmt: skip


def test_a_kill_lets_the_local_tasks_waiting_on_the_job_s_other_nodes_begin():
    # Job 0 holds both nodes over [0, 10); a local task arrives on node 1 at 1 and waits. Node
    # 0 fails at 5: the job's run ends on both nodes, node 1's local task takes [5, 8), and
    # the job, planned again, starts when both nodes are free: [8, 18).
    trace = run(TWO_NODES, ((), ()), (Job(0, 0.0, 2, 10.0),), outages={0: [(5.0, 6.0)]},
                unannounced={1: [(1.0, 3.0)]})  # fmt: skip
    assert schedule(trace) == [
        ("down", -1, 0, 5.0, 6.0), ("job", 0, 0, 8.0, 18.0), ("job", 0, 1, 8.0, 18.0),
        ("local_unannounced", -1, 1, 5.0, 8.0), ("lost", 0, 0, 0.0, 5.0),
        ("lost", 0, 1, 0.0, 5.0),
    ]  # fmt: skip


def test_a_local_overrun_stops_where_the_node_s_next_announced_task_begins():
    # Local tasks [0, 5) and [6, 8); the first runs 3 over, but the second begins at 6: the
    # overrun is [5, 6). Job 0 (2 units) fits nowhere before 8.
    trace = run(ONE_NODE, (((0.0, 5.0), (6.0, 8.0)),), (Job(0, 0.0, 1, 2.0),),
                extra=((3.0, 0.0),))  # fmt: skip
    assert schedule(trace) == [("job", 0, 0, 8.0, 10.0), ("local_load", -1, 0, 0.0, 5.0),
                               ("local_load", -1, 0, 6.0, 8.0),
                               ("local_overrun", -1, 0, 5.0, 6.0)]  # fmt: skip


def test_an_overrun_into_the_next_announced_task_leaves_no_trace():
    # The next local task begins where the first ends: nothing is left of its overrun.
    trace = run(ONE_NODE, (((0.0, 5.0), (5.0, 8.0)),), (Job(0, 0.0, 1, 2.0),),
                extra=((3.0, 0.0),))  # fmt: skip
    assert schedule(trace) == [("job", 0, 0, 8.0, 10.0), ("local_load", -1, 0, 0.0, 5.0),
                               ("local_load", -1, 0, 5.0, 8.0)]  # fmt: skip
    assert trace.moves == []


def test_an_overrun_shorter_than_a_time_unit_moves_the_job_behind_it():
    trace = run(ONE_NODE, (((0.0, 5.0),),), (Job(0, 0.0, 1, 2.0),), extra=((0.5,),))
    assert schedule(trace) == [("job", 0, 0, 5.5, 7.5), ("local_load", -1, 0, 0.0, 5.0),
                               ("local_overrun", -1, 0, 5.0, 5.5)]  # fmt: skip


# Job 0 holds both nodes over [0, 10), job 1 (one node) is promised [10, 20). Node 0 fails
# over [2, 3): job 0 is killed and, planned again, gets both nodes only from 20.
KILL_THEN_GAP = dict(nodes=TWO_NODES, busy=((), ()),
                     jobs=(Job(0, 0.0, 2, 10.0), Job(1, 0.0, 1, 10.0)),
                     outages={0: [(2.0, 3.0)]})  # fmt: skip


def test_without_compression_a_kill_moves_no_reservation_earlier():
    trace = run(**KILL_THEN_GAP)
    assert ("job", 1, 0, 10.0, 20.0) in schedule(trace)
    assert trace.moves == []


def test_compression_after_a_kill_moves_a_reservation_into_the_space_the_run_left():
    # Compressed at 2, job 1 takes node 1 (up) over [2, 12).
    trace = run(**KILL_THEN_GAP, compress=True)
    assert schedule(trace) == [
        ("down", -1, 0, 2.0, 3.0), ("job", 0, 0, 20.0, 30.0), ("job", 0, 1, 20.0, 30.0),
        ("job", 1, 1, 2.0, 12.0), ("lost", 0, 0, 0.0, 2.0), ("lost", 0, 1, 0.0, 2.0),
    ]  # fmt: skip
    assert [(m.time, m.job_id, m.cause, m.old.start, m.new.start) for m in trace.moves] == [
        (2.0, 1, "compression", 10.0, 2.0)
    ]


def test_the_queue_priority_reaches_the_fault_aware_planner():
    # Job 0 runs [0, 10); jobs 1 (10 units) and 2 (2 units) arrive together at 1: shortest
    # first, job 2 is planned before job 1.
    jobs = (Job(0, 0.0, 1, 10.0), Job(1, 1.0, 1, 10.0), Job(2, 1.0, 1, 2.0))
    faults = InstanceFaults(FaultsConfig(), ONE_NODE, ((),), np.random.SeedSequence(0), {}, {})
    trace = simulate_with_faults(Instance(ONE_NODE, ((),), jobs), build_criterion("BFfinish"),
                                 faults, priority="sjf")  # fmt: skip
    starts = [(r["job_id"], r["start"]) for r in trace.job_records()]
    assert starts == [(0, 0.0), (1, 12.0), (2, 10.0)]
