"""The trace (gridsim.sim.trace) on its own: each record written by hand, as the engines
write them, and read back field by field.

Three nodes of different speed and price, so a cost or a performance read from the wrong
node shows.
"""

import math

import pytest

from gridsim.model import Job, Node, Window
from gridsim.sim.trace import DISTURBANCE_TOLERANCE, Trace

NODES = (Node(0, 1.0, 1.0), Node(1, 2.0, 3.0), Node(2, 4.0, 10.0))


def window(start, runtime, nodes):
    return Window(start, runtime, tuple(nodes), (), 0.0)


def test_a_submitted_job_is_unfinished_until_told_otherwise():
    trace = Trace(NODES)
    trace.submitted(Job(7, 2.5, 2, 12.0))
    record = trace.jobs[7]
    nan_fields = ["first_promised_start", "start", "finish", "wait", "runtime",
                  "planned_runtime", "cost", "cost_with_losses"]  # fmt: skip
    assert all(math.isnan(record.pop(field)) for field in nan_fields)
    assert record == {
        "job_id": 7, "arrival": 2.5, "n": 2, "volume": 12.0, "nodes": "", "delay": 0.0,
        "final_state": "unfinished", "reason": "still queued or running when the simulation ended",
        "retries": 0, "lost_work": 0.0, "lost_cost": 0.0, "disturbed": False,
    }  # fmt: skip
    assert trace.moves == [] and trace.tasks == []


def test_a_local_task_is_a_row_of_its_node_with_the_node_s_performance():
    trace = Trace(NODES)
    trace.local_task(2, 1.0, 3.0)
    trace.local_task(1, 4.0, 6.0, "down")
    assert trace.task_records() == [
        {"job_id": -1, "node": 2, "performance": 4.0, "start": 1.0, "end": 3.0,
         "kind": "local_load"},
        {"job_id": -1, "node": 1, "performance": 2.0, "start": 4.0, "end": 6.0, "kind": "down"},
    ]  # fmt: skip


def test_a_rejected_job_keeps_its_reason():
    trace = Trace(NODES)
    job = Job(0, 0.0, 4, 1.0)
    trace.submitted(job)
    trace.rejected(job, "no window fits the request")
    record = trace.jobs[0]
    assert (record["final_state"], record["reason"]) == ("rejected", "no window fits the request")


def test_a_start_records_the_window_the_wait_and_the_first_promise():
    trace = Trace(NODES)
    job = Job(0, 1.0, 2, 8.0)
    trace.submitted(job)
    trace.started(job, window(4.0, 2.0, (1, 2)), first_promised=3.0)
    record = trace.jobs[0]
    assert (record["first_promised_start"], record["start"], record["wait"]) == (3.0, 4.0, 3.0)
    assert (record["planned_runtime"], record["nodes"]) == (2.0, "1 2")
    assert math.isnan(record["finish"]) and record["final_state"] == "unfinished"


def test_a_finish_costs_the_actual_runtime_times_the_nodes_prices():
    trace = Trace(NODES)
    job = Job(0, 0.0, 2, 8.0)
    trace.submitted(job)
    run = window(4.0, 2.0, (1, 2))
    trace.started(job, run, 4.0)
    trace.finished(job, run, 5.5, delay=0.5, reason=None)
    record = trace.jobs[0]
    assert (record["finish"], record["runtime"], record["cost"]) == (5.5, 1.5, 1.5 * 13.0)
    assert (record["delay"], record["final_state"], record["reason"]) == (0.5, "finished", "")
    assert record["cost_with_losses"] == 1.5 * 13.0
    assert trace.task_records() == [
        {"job_id": 0, "node": 1, "performance": 2.0, "start": 4.0, "end": 5.5, "kind": "job"},
        {"job_id": 0, "node": 2, "performance": 4.0, "start": 4.0, "end": 5.5, "kind": "job"},
    ]


def test_a_finish_with_a_reason_is_a_kill():
    trace = Trace(NODES)
    job = Job(0, 0.0, 1, 2.0)
    trace.submitted(job)
    run = window(0.0, 2.0, (0,))
    trace.started(job, run, 0.0)
    trace.finished(job, run, 1.0, delay=0.0, reason="stopped at 1")
    record = trace.jobs[0]
    assert (record["final_state"], record["reason"], record["runtime"]) == (
        "killed", "stopped at 1", 1.0)  # fmt: skip


@pytest.mark.parametrize("reason", [None, "stopped at 1"])
def test_a_job_that_finishes_twice_is_a_bug(reason):
    trace = Trace(NODES)
    job = Job(3, 0.0, 1, 2.0)
    trace.submitted(job)
    run = window(0.0, 2.0, (0,))
    trace.finished(job, run, 1.0, delay=0.0, reason=reason)
    with pytest.raises(RuntimeError, match=r"^job 3 finished twice$"):
        trace.finished(job, run, 2.0, delay=0.0, reason=None)


def test_lost_runs_add_up_their_node_time_and_cost_and_count_as_retries():
    # Killed twice: on nodes 1 and 2 over [0, 3) (6 node-time units, 3 * 13 money), then on
    # node 0 over [5, 6) (1 unit, 1 money); it finishes on node 2 over [7, 8).
    trace = Trace(NODES)
    job = Job(0, 0.0, 2, 8.0)
    trace.submitted(job)
    trace.lost(job, window(0.0, 4.0, (1, 2)), 3.0)
    trace.lost(job, window(5.0, 4.0, (0,)), 6.0)
    record = trace.jobs[0]
    assert (record["retries"], record["lost_work"], record["lost_cost"]) == (2, 7.0, 40.0)
    assert record["final_state"] == "unfinished"
    final = window(7.0, 1.0, (2,))
    trace.finished(job, final, 8.0, delay=0.0, reason=None)
    assert (record["cost"], record["cost_with_losses"]) == (10.0, 50.0)
    assert [(t["node"], t["start"], t["end"], t["kind"]) for t in trace.task_records()] == [
        (1, 0.0, 3.0, "lost"), (2, 0.0, 3.0, "lost"), (0, 5.0, 6.0, "lost"),
        (2, 7.0, 8.0, "job"),
    ]  # fmt: skip


def test_a_failed_job_keeps_its_reason_and_its_losses():
    trace = Trace(NODES)
    job = Job(0, 0.0, 1, 2.0)
    trace.submitted(job)
    trace.lost(job, window(0.0, 2.0, (1,)), 1.0)
    trace.failed(job, "killed by node failures 1 times")
    record = trace.jobs[0]
    reason = "killed by node failures 1 times"
    assert (record["final_state"], record["reason"]) == ("failed", reason)
    assert (record["lost_work"], record["lost_cost"]) == (1.0, 3.0)


def test_closing_names_the_jobs_never_submitted_the_first_five():
    trace = Trace(NODES)
    jobs = [Job(i, 0.0, 1, 1.0) for i in range(8)]
    trace.submitted(jobs[2])
    with pytest.raises(RuntimeError, match=r"^jobs never submitted: \[0, 1, 3, 4, 5\]$"):
        trace.close(jobs)


def test_a_job_is_disturbed_when_it_starts_later_than_the_tolerance_or_was_killed():
    trace = Trace(NODES)
    late, on_time, within, killed, queued = (Job(i, 0.0, 1, 1.0) for i in range(5))
    for job in (late, on_time, within, killed, queued):
        trace.submitted(job)
    trace.started(late, window(10.0 + 2 * DISTURBANCE_TOLERANCE, 1.0, (0,)), 10.0)
    trace.started(on_time, window(10.0, 1.0, (0,)), 10.0)
    trace.started(within, window(10.0 + DISTURBANCE_TOLERANCE / 2, 1.0, (0,)), 10.0)
    trace.started(killed, window(5.0, 1.0, (0,)), 5.0)
    trace.lost(killed, window(5.0, 1.0, (0,)), 5.5)
    trace.close([late, on_time, within, killed, queued])
    assert [r["disturbed"] for r in trace.job_records()] == [True, False, False, True, False]
    assert all(type(r["disturbed"]) is bool for r in trace.job_records())


def test_an_earlier_start_than_promised_is_not_a_disturbance():
    trace = Trace(NODES)
    job = Job(0, 0.0, 1, 1.0)
    trace.submitted(job)
    trace.started(job, window(2.0, 1.0, (0,)), 10.0)
    trace.close([job])
    assert trace.jobs[0]["disturbed"] is False


def test_job_records_come_in_job_id_order():
    trace = Trace(NODES)
    for job_id in (4, 0, 2):
        trace.submitted(Job(job_id, float(job_id), 1, 1.0))
    assert [r["job_id"] for r in trace.job_records()] == [0, 2, 4]
