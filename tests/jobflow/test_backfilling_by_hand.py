"""A small job flow worked out by hand (docs/jobflow.md, "A worked example").

Four nodes: two slow (performance 1) and two fast (performance 4); five jobs in the queue at
time 0, FCFS. BFfinish waits for the fast nodes when that finishes earlier; BFstart takes
whatever starts first and pays for it with long runtimes on the slow nodes.
"""

import pandas as pd
import pytest

from gridsim.model import Job, Node
from gridsim.scheduling.backfilling import ConservativeBackfilling
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Instance, jobs_from, simulate

NODES = tuple(Node(i, p, p) for i, p in enumerate([1.0, 1.0, 4.0, 4.0]))
NO_LOAD = ((), (), (), ())
JOBS = jobs_from(arrivals=[0] * 5, sizes=[2, 2, 1, 4, 1], volumes=[8, 8, 4, 4, 2])


def schedule(policy):
    trace = simulate(Instance(NODES, NO_LOAD, JOBS), build_criterion(policy))
    jobs = pd.DataFrame(trace.job_records())
    return [(r.job_id, r.start, r.finish, r.nodes) for r in jobs.itertuples()]


def test_bffinish_waits_for_fast_nodes_when_that_finishes_earlier():
    assert schedule("BFfinish") == [
        (0, 0.0, 2.0, "2 3"),  # fast pair: finish 2
        (1, 2.0, 4.0, "2 3"),  # waiting for the fast pair (finish 4) beats slow now (8)
        (2, 0.0, 4.0, "0"),  # slow node now (finish 4) beats fast at 4 (finish 5)
        (3, 4.0, 8.0, "0 1 2 3"),  # all four free at 4; slowest p = 1 -> runtime 4
        (4, 0.0, 2.0, "1"),  # backfilled into node 1's gap [0, 4)
    ]


def test_bfstart_takes_the_earliest_start_whatever_the_runtime():
    assert schedule("BFstart") == [
        (0, 0.0, 2.0, "2 3"),
        (1, 0.0, 8.0, "0 1"),  # starts now on the slow pair: runtime 8
        (2, 2.0, 3.0, "2"),  # first free node after 2; node 2 before node 3 (slot order)
        (3, 8.0, 12.0, "0 1 2 3"),
        (4, 2.0, 2.5, "3"),
    ]


def test_hand_worked_means_match():
    finish = {p: sum(f for _, _, f, _ in schedule(p)) / 5 for p in ("BFstart", "BFfinish")}
    assert finish == {"BFstart": 5.5, "BFfinish": 4.0}


def test_backfilled_job_never_delays_an_earlier_reservation():
    scheduler = ConservativeBackfilling(NODES, NO_LOAD, build_criterion("BFfinish"))
    planned, _ = scheduler.submit(JOBS[:4], now=0.0)
    before = {i: (w.start, w.nodes) for i, w in planned.items()}
    scheduler.submit([Job(9, 0.0, 1, 2.0)], now=0.0)
    assert {i: (w.start, w.nodes) for i, w in scheduler.reservations.items() if i != 9} == before


def test_early_finish_moves_queued_jobs_earlier_but_never_later():
    jobs = (Job(0, 0.0, 2, 8.0, runtime_factor=0.5), *JOBS[1:])
    trace = simulate(Instance(NODES, NO_LOAD, jobs), build_criterion("BFfinish"))
    records = {r["job_id"]: r for r in trace.job_records()}
    assert records[0]["finish"] == 1.0
    assert records[1]["first_promised_start"] == 2.0
    assert records[1]["start"] == 1.0  # compressed into the released fast pair
    assert all(r["start"] <= r["first_promised_start"] for r in records.values())


def test_overrun_shifts_the_reservation_behind_it_and_records_the_delay():
    jobs = (Job(0, 0.0, 2, 8.0, runtime_factor=1.5), *JOBS[1:])
    trace = simulate(Instance(NODES, NO_LOAD, jobs), build_criterion("BFfinish"))
    records = {r["job_id"]: r for r in trace.job_records()}
    assert records[0]["finish"] == 3.0
    assert records[1]["start"] >= 3.0
    assert records[1]["delay"] == pytest.approx(records[1]["start"] - 2.0)


def test_overrun_into_local_load_is_stopped_and_reported():
    busy = ((), (), ((2.5, 10.0),), ())
    jobs = (Job(0, 0.0, 2, 8.0, runtime_factor=1.5),)
    trace = simulate(Instance(NODES, busy, jobs), build_criterion("BFfinish"))
    (record,) = trace.job_records()
    assert (record["final_state"], record["finish"]) == ("killed", 2.5)
    assert "local load" in record["reason"]


def test_a_job_wider_than_the_environment_is_rejected_with_a_reason():
    trace = simulate(Instance(NODES, NO_LOAD, (Job(0, 0.0, 5, 1.0),)), build_criterion("CoP"))
    (record,) = trace.job_records()
    assert record["final_state"] == "rejected" and record["reason"]


def test_same_time_order_is_completions_then_starts_then_submissions():
    # Job 0 ends at 2 on the fast pair; job 1 arrives at 2 and must see them free.
    jobs = (Job(0, 0.0, 2, 8.0), Job(1, 2.0, 2, 8.0))
    trace = simulate(Instance(NODES, NO_LOAD, jobs), build_criterion("BFfinish"))
    records = trace.job_records()
    assert [(r["start"], r["nodes"]) for r in records] == [(0.0, "2 3"), (2.0, "2 3")]


def test_sjf_plans_simultaneous_submissions_shortest_first():
    jobs = (Job(0, 0.0, 2, 8.0), Job(1, 0.0, 2, 4.0))
    fcfs = simulate(Instance(NODES, NO_LOAD, jobs), build_criterion("BFfinish"), "fcfs")
    sjf = simulate(Instance(NODES, NO_LOAD, jobs), build_criterion("BFfinish"), "sjf")
    assert [r["start"] for r in fcfs.job_records()] == [0.0, 2.0]
    assert [r["start"] for r in sjf.job_records()] == [1.0, 0.0]
