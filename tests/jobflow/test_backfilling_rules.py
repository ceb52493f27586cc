"""Conservative backfilling's rules one at a time, on flows small enough to follow by hand:
what a job asks for, compression in priority order past jobs that cannot move, which searches
compression makes, and overruns (re-planning in priority order, delays, earlier local load)."""

import pytest

from gridsim.model import Job, Node, Request
from gridsim.scheduling.backfilling import ConservativeBackfilling, priority_key
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Engine, Instance, simulate


def records(trace) -> dict[int, dict]:
    return {record["job_id"]: record for record in trace.job_records()}


def test_a_job_asks_for_its_size_volume_budget_and_nodes_from_its_arrival_on():
    job = Job(3, 5.0, 2, 10.0, budget=7.0, min_performance=1.5)
    assert job.request(now=2.0) == Request(2, 10.0, budget=7.0, min_performance=1.5,
                                           earliest_start=5.0)  # fmt: skip
    assert job.request(now=8.0, volume_scale=0.5) == Request(
        2, 5.0, budget=7.0, min_performance=1.5, earliest_start=8.0
    )


def test_an_unknown_priority_is_named():
    with pytest.raises(ValueError) as error:
        priority_key("lifo")  # type: ignore[arg-type]
    assert str(error.value) == "priority must be 'fcfs' or 'sjf', got 'lifo'"


def test_a_job_over_its_budget_everywhere_is_rejected():
    nodes = (Node(0, 1.0, 1.0),)
    trace = simulate(Instance(nodes, ((),), (Job(0, 0.0, 1, 10.0, budget=5.0),)),
                     build_criterion("BFfinish"))  # fmt: skip
    assert records(trace)[0]["final_state"] == "rejected"


#: Two identical nodes. Job 0 ends early at 2 on node 0; job 1 holds node 1 until 100, so job
#: 2 (both nodes) cannot move from 100; job 3 (one node, queued behind job 0) can move to 2.
TWO_NODES = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0))
PAST_A_STUCK_JOB = (Job(0, 0.0, 1, 10.0, runtime_factor=0.2), Job(1, 0.0, 1, 100.0),
                    Job(2, 0.0, 2, 5.0), Job(3, 0.0, 1, 5.0))  # fmt: skip


def test_compression_goes_on_past_a_job_that_cannot_move():
    trace = simulate(Instance(TWO_NODES, ((), ()), PAST_A_STUCK_JOB), build_criterion("BFfinish"))
    starts = {job_id: record["start"] for job_id, record in records(trace).items()}
    assert starts == {0: 0.0, 1: 0.0, 2: 100.0, 3: 2.0}
    assert records(trace)[3]["first_promised_start"] == 10.0


class CountingSearches:
    """Counts the searches a planner makes through ``criterion``."""

    def __init__(self, criterion):
        self.criterion = criterion
        self.searched: list[int] = []

    def search(self, profile, request):
        self.searched.append(request.n)
        return self.criterion.search(profile, request)


def test_compression_searches_only_the_jobs_that_might_move_unless_the_criterion_is_a_plugin():
    built_in = build_criterion("BFfinish")
    counting = type("Counting", (type(built_in),), {})()  # a built-in criterion: tests apply
    seen = []
    counting.search = lambda profile, request: (
        seen.append(request.n) or built_in.search(profile, request)
    )
    planner = ConservativeBackfilling(TWO_NODES, ((), ()), counting)
    Engine(Instance(TWO_NODES, ((), ()), PAST_A_STUCK_JOB), planner).run()
    assert seen == [1, 1, 2, 1, 1]  # four submissions, then job 3 only (job 2 ruled out)
    plugin = CountingSearches(built_in)  # not a built-in: every queued job searched again
    planner = ConservativeBackfilling(TWO_NODES, ((), ()), plugin)
    trace = Engine(Instance(TWO_NODES, ((), ()), PAST_A_STUCK_JOB), planner).run()
    assert plugin.searched == [1, 1, 2, 1, 2, 1]
    assert records(trace)[3]["start"] == 2.0


def test_compression_re_plans_in_priority_order():
    # One node; job 0 ends early at 2. Under SJF job 2 (3 units) was planned before job 1
    # (6 units) and is compressed first: 2 at 2, then 1 at 5. In job order 1 would take 2.
    jobs = (Job(0, 0.0, 1, 10.0, runtime_factor=0.2), Job(1, 1.0, 1, 6.0), Job(2, 1.0, 1, 3.0))
    trace = simulate(Instance(TWO_NODES[:1], ((),), jobs), build_criterion("BFfinish"), "sjf")
    assert {i: r["start"] for i, r in records(trace).items()} == {0: 0.0, 1: 5.0, 2: 2.0}


def test_an_overrun_re_plans_the_colliding_jobs_in_priority_order():
    # One node; job 0 overruns from 10 to 15. Under SJF job 2 (3 units, at 10) and job 1
    # (6 units, at 13) both collide and are re-planned shortest first: 2 at 15, 1 at 18.
    jobs = (Job(0, 0.0, 1, 10.0, runtime_factor=1.5), Job(1, 1.0, 1, 6.0), Job(2, 1.0, 1, 3.0))
    trace = simulate(Instance(TWO_NODES[:1], ((),), jobs), build_criterion("BFfinish"), "sjf")
    got = {i: (r["start"], r["delay"]) for i, r in records(trace).items()}
    assert got == {0: (0.0, 0.0), 1: (18.0, 5.0), 2: (15.0, 5.0)}


def test_a_job_delayed_by_two_overruns_records_both_delays():
    # Job 2 needs both nodes, reserved at 3. Job 0 (node 0) overruns to 3.5: job 2 moves to
    # 3.5 (delay 0.5); job 1 (node 1) overruns to 4.5: job 2 moves to 4.5 (delay 1 more).
    jobs = (Job(0, 0.0, 1, 2.0, runtime_factor=1.75), Job(1, 0.0, 1, 3.0, runtime_factor=1.5),
            Job(2, 0.0, 2, 2.0))  # fmt: skip
    trace = simulate(Instance(TWO_NODES, ((), ()), jobs), build_criterion("BFfinish"))
    job = records(trace)[2]
    assert (job["first_promised_start"], job["start"], job["delay"]) == (3.0, 4.5, 1.5)


def test_local_load_that_ended_before_the_window_does_not_stop_an_overrun():
    busy = (((0.0, 1.0),),)
    jobs = (Job(0, 0.0, 1, 10.0, runtime_factor=1.5),)
    trace = simulate(Instance(TWO_NODES[:1], busy, jobs), build_criterion("BFfinish"))
    job = records(trace)[0]
    assert (job["final_state"], job["start"], job["finish"]) == ("finished", 1.0, 16.0)
