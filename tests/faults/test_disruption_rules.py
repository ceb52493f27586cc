"""The fault-aware planner's own rules, driven by hand on two equal nodes.

What an outage overlaps, where a block is recorded as local load, the record of a
compression move, and the priority order in which blocked reservations are planned again.
"""

import math

from gridsim.model import Job, Node, Window
from gridsim.scheduling.disruptions import DisruptedBackfilling, overlaps
from gridsim.selection.registry import build_criterion

TWO_NODES = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0))


def planner(**options) -> DisruptedBackfilling:
    return DisruptedBackfilling(TWO_NODES, ((), ()), build_criterion("BFfinish"), **options)


def test_an_outage_overlaps_a_window_only_on_its_nodes_and_inside_its_time():
    window = Window(10.0, 10.0, (1,), (), 0.0)  # node 1 over [10, 20)
    assert overlaps(window, {1}, 15.0, 25.0)
    assert not overlaps(window, {0}, 15.0, 25.0)  # another node
    assert not overlaps(window, {1}, 20.0, 30.0)  # just after
    assert not overlaps(window, {1}, 0.0, 10.0)  # just before


def test_only_local_causes_are_recorded_as_local_load():
    plan = planner()
    plan.block([0], 5.0, 8.0, 0.0, "failure")
    plan.block([1], 5.0, 8.0, 0.0, "local_overrun")
    assert plan.busy == [[], [(5.0, 8.0)]]


def test_a_compression_move_is_logged_with_its_time_and_no_blocked_interval():
    plan = planner()
    jobs = [Job(0, 0.0, 2, 10.0), Job(1, 0.0, 2, 10.0)]  # [0, 10) and then [10, 20)
    plan.submit(jobs, 0.0)
    plan.start(0)
    assert plan.finish(0, 4.0) == {1: plan.reservations[1]}
    [move] = plan.moves
    assert (move.time, move.job_id, move.cause) == (4.0, 1, "compression")
    assert (move.old.start, move.new.start) == (10.0, 4.0)
    assert move.blocked_nodes == ()
    assert math.isnan(move.blocked_from) and math.isnan(move.blocked_until)


def test_defaults_and_priority_reach_the_planner():
    plan = planner()
    assert (plan.resubmit_mode, plan.key(Job(3, 2.0, 1, 9.0))) == ("keep_priority", (2.0, 3))
    shortest_first = planner(priority="sjf")
    shortest_first.submit([Job(0, 0.0, 2, 20.0), Job(1, 0.0, 2, 5.0)], 0.0)
    assert {i: w.start for i, w in shortest_first.reservations.items()} == {1: 0.0, 0: 5.0}


def test_blocked_reservations_are_planned_again_in_priority_order():
    # Job 0 holds both nodes over [0, 10). Under SJF, job 2 (volume 5) is planned before
    # job 1 (volume 10): it takes node 0 at 10, job 1 node 1. An outage of both nodes over
    # [10, 12) moves both to 12, planned again shortest first: the same nodes as before.
    plan = planner(priority="sjf")
    plan.submit([Job(0, 0.0, 2, 10.0)], 0.0)
    plan.start(0)
    plan.submit([Job(1, 0.5, 1, 10.0), Job(2, 0.5, 1, 5.0)], 0.5)
    before = {i: plan.reservations[i].nodes for i in (1, 2)}
    moved = plan.block([0, 1], 10.0, 12.0, 1.0, "failure")
    assert {i: (w.start, w.nodes) for i, w in moved.items()} == {
        1: (12.0, before[1]), 2: (12.0, before[2]),
    }  # fmt: skip
    assert [move.job_id for move in plan.moves] == [2, 1]
    assert before[1] != before[2]


def test_a_job_resubmitted_at_the_head_then_the_queue_in_priority_order():
    # Job 0 holds both nodes over [0, 10); under SJF job 2 (volume 5) is promised node 0 at
    # 10, job 1 (volume 10) node 1. Job 0 is killed at 5 and resubmitted at the head: it
    # takes both nodes over [5, 15), and the queue is planned again shortest first.
    plan = planner(priority="sjf", resubmit="head")
    plan.submit([Job(0, 0.0, 2, 10.0)], 0.0)
    plan.start(0)
    plan.submit([Job(1, 0.5, 1, 10.0), Job(2, 0.5, 1, 5.0)], 0.5)
    before = {i: plan.reservations[i].nodes for i in (1, 2)}
    plan.kill(0, 5.0)
    changes = plan.resubmit(plan.jobs[0], 5.0)
    assert changes[0].start == 5.0
    assert {i: (changes[i].start, changes[i].nodes) for i in (1, 2)} == {
        1: (15.0, before[1]), 2: (15.0, before[2]),
    }  # fmt: skip
    assert [(move.job_id, move.cause) for move in plan.moves] == [
        (2, "resubmission"), (1, "resubmission"),
    ]  # fmt: skip
