"""Node-level FCFS and EASY event by event: tiny flows against the frozen reference planners
(every call's answer compared) and hand-worked cases (milliseconds each; what mutation runs
select)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from reference_node_planners import build_planner as reference_planner
from temporary_dist import install_entry_points

from gridsim.model import Job, Node, Window
from gridsim.plugins import PluginLoadError
from gridsim.scheduling.backfilling import ConservativeBackfilling
from gridsim.scheduling.guard import GuardedScheduler
from gridsim.scheduling.queue_policies import (
    EasyBackfilling,
    FcfsReservations,
    _count_eligible,
    build_planner,
    check_scheduler_spec,
    describe_plugin_schedulers,
    scheduler_class,
)
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Engine, Instance


class Recording:
    """A planner whose every event call and answer is logged (the engine sees the planner)."""

    def __init__(self, planner) -> None:
        self.planner = planner
        self.log: list[tuple] = []

    def __getattr__(self, name):
        return getattr(self.planner, name)

    def submit(self, jobs, now):
        jobs = list(jobs)
        planned, rejected = self.planner.submit(jobs, now)
        self.log.append(("submit", now, [j.id for j in jobs], planned, [j.id for j in rejected]))
        return planned, rejected

    def start(self, job_id):
        window = self.planner.start(job_id)
        self.log.append(("start", job_id, window))
        return window

    def finish(self, job_id, now):
        changes = self.planner.finish(job_id, now)
        self.log.append(("finish", job_id, now, changes))
        return changes

    def overrun(self, job_id, now, end):
        answer = self.planner.overrun(job_id, now, end)
        self.log.append(("overrun", job_id, now, end, answer))
        return answer


def tiny_flow(seed: int) -> Instance:
    """2-4 nodes of three speeds and prices, local load on about half of them, 4-8 jobs arriving
    close together (queues), most ending early, some overrunning, a few with a budget or a
    minimum speed."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(2, 5))
    nodes = tuple(
        Node(i, float(rng.choice([0.5, 1.0, 2.0])), float(rng.choice([1.0, 2.0, 5.0])))
        for i in range(count)
    )
    busy = []
    for _ in nodes:
        start = float(rng.integers(0, 20))
        busy.append(((start, start + float(rng.integers(2, 30))),) if rng.random() < 0.5 else ())
    jobs, arrival = [], 0.0
    for i in range(int(rng.integers(4, 9))):
        arrival += float(rng.choice([0.0, 1.0, 2.0]))
        factor = float(rng.choice([0.3, 0.5, 1.0, 1.5]))
        budget = float(rng.choice([math.inf] * 6 + [40.0]))
        speed = float(rng.choice([0.0] * 6 + [1.0, 2.0]))
        size = int(rng.integers(1, count + 1))
        jobs.append(Job(i, arrival, size, float(rng.integers(1, 12)), budget, speed, factor))
    return Instance(nodes, tuple(busy), tuple(jobs))


def crowded_flow(seed: int) -> Instance:
    """3-5 nodes, local load on about a third of them, 5-9 jobs arriving close together: longer
    queues than :func:`tiny_flow`'s, so more backfilling behind EASY's head."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(3, 6))
    nodes = tuple(
        Node(i, float(rng.choice([0.5, 1.0, 2.0])), float(rng.choice([1.0, 2.0, 3.0])))
        for i in range(count)
    )
    busy = []
    for _ in nodes:
        start = float(rng.integers(0, 30))
        busy.append(((start, start + float(rng.integers(2, 12))),) if rng.random() < 0.3 else ())
    jobs, arrival = [], 0.0
    for i in range(int(rng.integers(5, 10))):
        arrival += float(rng.choice([0.0, 1.0, 2.0, 3.5]))
        factor = float(rng.choice([0.25, 0.5, 1.0, 1.0, 1.5]))
        budget = float(rng.choice([math.inf] * 5 + [60.0, 200.0]))
        speed = float(rng.choice([0.0] * 6 + [1.0, 2.0]))
        size = int(rng.integers(1, count + 1))
        volume = float(rng.integers(2, 16))
        jobs.append(Job(i, arrival, size, volume, budget, speed, factor))
    return Instance(nodes, tuple(busy), tuple(jobs))


def _run(instance, planner):
    recording = Recording(planner)
    records = Engine(instance, recording).run().job_records()
    return recording.log, records


CASES = [
    (scheduler, criterion, priority)
    for scheduler in ("fcfs", "easy")
    for criterion in ("BFstart", "BFfinish", "CoP", "MinCost", "BFshort")
    for priority in ("fcfs", "sjf")
]


def _assert_as_the_reference(instance, scheduler, criterion, priority):
    fast = build_planner(scheduler, instance.nodes, instance.busy, build_criterion(criterion),
                         priority)  # fmt: skip
    reference = reference_planner(scheduler, instance.nodes, instance.busy,
                                  build_criterion(criterion), priority)  # fmt: skip
    log, records = _run(instance, fast)
    expected_log, expected_records = _run(instance, reference)
    assert log == expected_log, instance
    assert records == expected_records
    assert fast.first_promised == reference.first_promised
    assert fast.delays == reference.delays


@pytest.mark.parametrize(("scheduler", "criterion", "priority"), CASES)
def test_tiny_flows_answer_every_event_as_the_reference_planners_do(scheduler, criterion, priority):
    for seed in range(8):
        _assert_as_the_reference(tiny_flow(seed), scheduler, criterion, priority)


@pytest.mark.parametrize(
    ("scheduler", "criterion", "priority"),
    [(scheduler, criterion, priority)
     for scheduler in ("fcfs", "easy")
     for criterion, priority in (("BFstart", "fcfs"), ("BFfinish", "sjf"), ("CoP", "fcfs"),
                                 ("MinCost", "sjf"), ("BFshort", "fcfs"))],
)  # fmt: skip
def test_crowded_flows_answer_every_event_as_the_reference_planners_do(
    scheduler, criterion, priority
):
    for seed in range(12):
        _assert_as_the_reference(crowded_flow(seed), scheduler, criterion, priority)


@pytest.mark.parametrize(
    ("seed", "scheduler", "criterion", "priority"),
    [
        (29, "fcfs", "BFstart", "sjf"),  # a queued window starting exactly at the floor, kept
        (216, "easy", "CoP", "fcfs"),  # a head kept where it was when a job backfills
    ],
)
def test_rarer_flows_answer_every_event_as_the_reference_planners_do(
    seed, scheduler, criterion, priority
):
    _assert_as_the_reference(tiny_flow(seed), scheduler, criterion, priority)


# -- hand-worked cases on identical nodes (performance 1, price 1) ---------------------------

NODES = tuple(Node(i, 1.0, 1.0) for i in range(3))
FREE = ((), (), ())


def _window(nodes, start, runtime) -> tuple[tuple[int, ...], float, float]:
    return tuple(nodes), start, start + runtime


def _plain(window: Window) -> tuple[tuple[int, ...], float, float]:
    return tuple(window.nodes), window.start, window.finish


def _plain_changes(changes):
    return {job: None if w is None else _plain(w) for job, w in changes.items()}


def fcfs(priority="fcfs", nodes=NODES, busy=FREE, criterion="BFstart"):
    return FcfsReservations(nodes, busy, build_criterion(criterion), priority)


def easy(priority="fcfs", nodes=NODES, busy=FREE, criterion="BFstart"):
    return EasyBackfilling(nodes, busy, build_criterion(criterion), priority)


def test_fcfs_plans_each_new_job_no_earlier_than_the_one_before():
    planner = fcfs()
    planned, rejected = planner.submit([Job(0, 0.0, 2, 10.0), Job(1, 0.0, 1, 4.0)], 0.0)
    assert rejected == []
    assert _plain_changes(planned) == {0: _window([0, 1], 0.0, 10.0), 1: _window([2], 0.0, 4.0)}
    planner.start(0)
    planner.start(1)
    assert planner.last_start == 0.0
    # a job of 3 waits for job 0 until 10 and holds every node to 12; a job of 1 behind it
    # may not start before it (at 10), so it waits for the whole machine too
    planned, _ = planner.submit([Job(2, 1.0, 3, 2.0), Job(3, 1.0, 1, 1.0)], 1.0)
    assert _plain_changes(planned) == {2: _window([0, 1, 2], 10.0, 2.0),
                                       3: _window([0], 12.0, 1.0)}  # fmt: skip
    assert planner.first_promised == {0: 0.0, 1: 0.0, 2: 10.0, 3: 12.0}
    # a later arrival starts no earlier than the last queued window (12), beside it
    planned, _ = planner.submit([Job(4, 2.0, 1, 1.0)], 2.0)
    assert _plain_changes(planned) == {4: _window([1], 12.0, 1.0)}


def test_fcfs_never_starts_a_job_before_the_last_started_one():
    planner = fcfs()
    planner.submit([Job(0, 0.0, 1, 10.0)], 0.0)
    planner.start(0)
    planner.submit([Job(1, 5.0, 3, 2.0)], 5.0)  # waits for node 0 until 10
    planner.submit([Job(2, 6.0, 1, 1.0)], 6.0)
    assert _plain(planner.reservations[2]) == _window([0], 12.0, 1.0)
    assert planner.finish(0, 10.0) == {}  # on time: nothing re-planned
    assert planner.start(1).start == 10.0 and planner.last_start == 10.0
    planner.start(2)
    assert planner.last_start == 12.0
    planner.submit([Job(3, 12.5, 1, 1.0)], 12.5)
    assert planner.reservations[3].start == 12.5


def test_fcfs_re_plans_the_queue_after_an_early_finish_and_reports_only_changes():
    planner = fcfs()
    planner.submit([Job(0, 0.0, 3, 10.0), Job(1, 0.0, 2, 5.0), Job(2, 0.0, 1, 20.0)], 0.0)
    planner.start(0)
    assert planner.reservations[1].start == 10.0 and planner.reservations[2].start == 10.0
    changes = planner.finish(0, 4.0)
    assert _plain_changes(changes) == {1: _window([0, 1], 4.0, 5.0), 2: _window([2], 4.0, 20.0)}
    assert planner.delays == {}
    assert planner.first_promised == {0: 0.0, 1: 10.0, 2: 10.0}


def test_fcfs_under_sjf_re_plans_when_a_shorter_job_overtakes_and_counts_the_delay():
    planner = fcfs("sjf", nodes=NODES[:1], busy=((),))
    planner.submit([Job(0, 0.0, 1, 10.0)], 0.0)
    planner.start(0)
    planner.submit([Job(1, 1.0, 1, 8.0)], 1.0)
    assert planner.reservations[1].start == 10.0
    changes, rejected = planner.submit([Job(2, 2.0, 1, 2.0), Job(3, 2.0, 2, 1.0)], 2.0)
    assert [job.id for job in rejected] == [3]  # two nodes on a machine of one
    assert _plain_changes(changes) == {1: _window([0], 12.0, 8.0), 2: _window([0], 10.0, 2.0)}
    assert planner.delays == {1: 2.0}
    assert planner.first_promised[1] == 10.0 and planner.first_promised[2] == 10.0
    assert 3 not in planner.jobs


def test_fcfs_rejects_a_job_no_window_fits_and_plans_the_rest():
    nodes = (Node(0, 1.0, 1.0), Node(1, 2.0, 5.0))
    planner = fcfs(nodes=nodes, busy=((), ()), criterion="BFfinish")
    jobs = [Job(0, 0.0, 2, 4.0, min_performance=2.0), Job(1, 0.0, 1, 4.0, budget=1.0),
            Job(2, 0.0, 1, 4.0)]  # fmt: skip
    planned, rejected = planner.submit(jobs, 0.0)
    assert [job.id for job in rejected] == [0, 1]
    assert list(planned) == [2] and list(planner.jobs) == [2]
    assert _plain(planned[2]) == _window([1], 0.0, 2.0)


def test_easy_reserves_only_the_head_and_backfills_behind_it():
    planner = easy()
    planned, _ = planner.submit([Job(0, 0.0, 2, 10.0)], 0.0)
    assert planner.head is None and list(planner.waiting) == [0]
    planner.start(0)
    assert planner.waiting == {}
    planned, _ = planner.submit([Job(1, 1.0, 3, 5.0), Job(2, 1.0, 1, 9.0),
                                 Job(3, 1.0, 1, 3.0)], 1.0)  # fmt: skip
    # job 1 is the head at 10; job 2 (ends at 10) backfills; job 3 has no node left now
    assert planner.head == 1
    assert _plain_changes(planned) == {1: _window([0, 1, 2], 10.0, 5.0),
                                       2: _window([2], 1.0, 9.0)}  # fmt: skip
    assert set(planner.reservations) == {1, 2}
    planner.start(2)
    assert planner.head == 1 and 2 not in planner.waiting
    changes = planner.finish(2, 5.0)  # early: node 2 free on [5, 10), job 3 fits there
    assert _plain_changes(changes) == {3: _window([2], 5.0, 3.0)}
    planner.start(3)
    planner.finish(0, 10.0)
    planner.finish(3, 10.0)  # a second completion at one instant: the head still starts
    assert planner.start(1).start == 10.0 and planner.head is None


def test_easy_withdraws_a_window_when_the_head_can_start_now():
    nodes = NODES[:2]
    planner = easy(nodes=nodes, busy=((), ()))
    planner.submit([Job(0, 0.0, 1, 10.0), Job(1, 0.0, 1, 10.0)], 0.0)
    planner.start(0)
    planner.start(1)
    planner.submit([Job(2, 1.0, 2, 5.0), Job(3, 1.5, 2, 5.0), Job(4, 2.0, 1, 3.0)], 2.0)
    assert planner.head == 2 and set(planner.reservations) == {2}
    changes = planner.finish(0, 5.0)
    assert _plain_changes(changes) == {4: _window([0], 5.0, 3.0)}
    changes = planner.finish(1, 5.0)  # the head starts now on both: job 4 loses its window
    assert _plain_changes(changes) == {
        2: _window([0, 1], 5.0, 5.0),
        3: _window([0, 1], 10.0, 5.0),
        4: None,
    }
    assert planner.head == 3
    assert planner.first_promised[4] == 5.0


def test_easy_backfills_on_the_head_s_spare_node_by_planning_the_head_again():
    planner = easy(nodes=(*NODES, Node(3, 1.0, 1.0)), busy=(*FREE, ()))
    planner.submit([Job(0, 0.0, 2, 10.0)], 0.0)
    planner.start(0)
    planner.submit([Job(1, 1.0, 3, 5.0)], 1.0)
    # BFstart puts the head on nodes 0, 2 and 3 (2 and 3 are free now)
    assert planner.head == 1 and _plain(planner.reservations[1]) == _window([0, 2, 3], 10.0, 5.0)
    planned, _ = planner.submit([Job(2, 2.0, 1, 100.0)], 2.0)
    # job 2 runs past 10 on node 2 only if the head, planned again, takes node 1 instead
    assert _plain_changes(planned) == {1: _window([0, 1, 3], 10.0, 5.0),
                                       2: _window([2], 2.0, 100.0)}  # fmt: skip
    assert planner.head == 1 and planner.delays == {}
    assert planner.first_promised == {0: 0.0, 1: 10.0, 2: 2.0}


def test_easy_leaves_a_job_waiting_when_the_head_would_pay_for_it():
    planner = easy()
    planner.submit([Job(0, 0.0, 2, 10.0)], 0.0)
    planner.start(0)
    planner.submit([Job(1, 1.0, 3, 5.0)], 1.0)
    head = _plain(planner.reservations[1])
    planned, _ = planner.submit([Job(2, 2.0, 1, 100.0)], 2.0)  # would delay the head
    assert planned == {} and planner.head == 1 and 2 in planner.waiting
    assert _plain(planner.reservations[1]) == head
    assert planner.profile.is_free(2, 2.0, 10.0)  # job 2's trial window given back


def test_easy_rejects_what_fits_nowhere():
    planner = easy(nodes=NODES[:2], busy=((), ()))
    planned, rejected = planner.submit([Job(0, 0.0, 3, 1.0), Job(1, 0.0, 1, 1.0)], 0.0)
    assert [job.id for job in rejected] == [0] and list(planner.waiting) == [1]
    assert _plain_changes(planned) == {1: _window([0], 0.0, 1.0)}


def test_an_overrun_keeps_the_nodes_and_plans_the_queue_again():
    for make in (fcfs, easy):
        planner = make(busy=((), (), ((12.0, 20.0),)))
        planner.submit([Job(0, 0.0, 3, 10.0), Job(1, 0.0, 1, 4.0)], 0.0)
        planner.start(0)
        assert planner.reservations[1].start == 10.0
        end, changes = planner.overrun(0, 10.0, 15.0)
        assert end == 12.0  # node 2's local load begins at 12
        assert _plain_changes(changes) == {1: _window([0], 12.0, 4.0)}
        assert planner.busy_until[0] == 12.0
        assert planner.delays == {1: 2.0}  # promised 10, now 12


def test_a_window_starting_now_is_kept_as_it_is():
    planner = fcfs(criterion="BFfinish", nodes=(Node(0, 1.0, 1.0), Node(1, 2.0, 1.0)),
                   busy=((), ((0.0, 4.0),)))  # fmt: skip
    planner.submit([Job(0, 0.0, 1, 4.0)], 0.0)
    planner.start(0)
    planner.submit([Job(1, 0.0, 1, 8.0)], 0.0)
    kept = planner.reservations[1]
    assert _plain(kept) == _window([1], 4.0, 4.0)
    assert planner.finish(0, 4.0) == {}  # on time: nothing to do


def test_eligible_nodes_are_counted_against_the_minimum_performance():
    nodes = (Node(0, 1.0, 1.0), Node(1, 2.0, 1.0), Node(2, 3.0, 1.0))
    assert _count_eligible(nodes, {0, 1, 2}, Job(0, 0.0, 1, 1.0)) == 3
    assert _count_eligible(nodes, {0, 2}, Job(0, 0.0, 1, 1.0, min_performance=2.0)) == 1
    assert _count_eligible(nodes, {1, 2}, Job(0, 0.0, 1, 1.0, min_performance=2.0)) == 2
    planner = fcfs(nodes=nodes, busy=((), (), ()))
    assert [node.id for node in planner._eligible_nodes(2.0)] == [2, 1]
    slow = (Node(0, 0.5, 1.0), Node(1, 1.0, 1.0))
    assert _count_eligible(slow, {0, 1}, Job(0, 0.0, 1, 1.0, min_performance=1.0)) == 1
    assert _count_eligible(slow, {0, 1}, Job(0, 0.0, 1, 1.0, min_performance=0.5)) == 2
    assert planner._eligible_nodes(2.0) is planner._eligible_nodes(2.0)  # cached


def test_the_planners_take_the_base_planner_s_arguments_by_keyword():
    arguments = {"nodes": NODES, "busy": FREE, "criterion": build_criterion("BFstart"),
                 "priority": "sjf", "horizon_start": 2.0}  # fmt: skip
    planner = FcfsReservations(**arguments)
    planned, _ = planner.submit([Job(0, 0.0, 1, 5.0), Job(1, 0.0, 1, 1.0)], 0.0)
    # the shorter job first, and nothing before the simulation start
    assert _plain_changes(planned) == {1: _window([0], 2.0, 1.0), 0: _window([1], 2.0, 5.0)}
    planner = EasyBackfilling(**arguments)
    assert planner.head is None and planner.waiting == {}
    planned, _ = planner.submit([Job(0, 0.0, 3, 5.0), Job(1, 0.0, 3, 1.0)], 0.0)
    assert _plain_changes(planned) == {1: _window([0, 1, 2], 2.0, 1.0)} and planner.head == 1


def test_a_head_that_starts_at_its_reservation_is_no_longer_the_head():
    # one node under local load until 10: the job waits for it, with no event in between
    planner = easy(nodes=NODES[:1], busy=(((0.0, 10.0),),))
    planned, _ = planner.submit([Job(0, 0.0, 1, 2.0)], 0.0)
    assert _plain_changes(planned) == {0: _window([0], 10.0, 2.0)} and planner.head == 0
    assert planner.start(0).start == 10.0
    assert planner.head is None and planner.waiting == {}


def test_easy_walks_on_past_a_job_that_cannot_start_now():
    # Node 1 is under local load from 5 on. Job 1 (both nodes) is the head at 100; job 2
    # (6 s) cannot start before 10 and waits; job 3 backfills on node 1 until 2.
    planner = easy(nodes=NODES[:2], busy=((), ((5.0, 100.0),)))
    jobs = [Job(0, 0.0, 1, 10.0), Job(1, 0.0, 2, 1.0), Job(2, 0.0, 1, 6.0), Job(3, 0.0, 1, 2.0)]
    planned, _ = planner.submit(jobs, 0.0)
    assert _plain_changes(planned) == {0: _window([0], 0.0, 10.0), 1: _window([0, 1], 100.0, 1.0),
                                       3: _window([1], 0.0, 2.0)}  # fmt: skip
    planner.start(0)
    planner.start(3)
    planned, _ = planner.submit([Job(4, 1.0, 1, 2.0)], 1.0)  # no node free now
    assert planned == {}
    # job 3 ends at 2: job 2 still cannot start (node 1 is free for 3 s only), job 4 can
    assert _plain_changes(planner.finish(3, 2.0)) == {4: _window([1], 2.0, 2.0)}


def test_the_volume_easy_tests_a_job_with_is_its_volume_on_slow_nodes():
    # Two nodes of performance 0.5 (a task lasts twice its volume), under local load from 20
    # and from 8. Job 1 (both nodes, 6 s) is the head at 30. Job 2 (volume 4: 8 s) arrives
    # at 1 and can only start at 10 on node 0; when job 0 ends early at 3, it starts there
    # at once, ending at 11, before node 0's load: its volume is 4, not 4 / 0.5 / 0.5.
    nodes = (Node(0, 0.5, 1.0), Node(1, 0.5, 1.0))
    planner = easy(nodes=nodes, busy=(((20.0, 30.0),), ((8.0, 30.0),)))
    planned, _ = planner.submit([Job(0, 0.0, 1, 5.0, runtime_factor=0.3), Job(1, 0.0, 2, 3.0)], 0.0)
    assert _plain_changes(planned) == {0: _window([0], 0.0, 10.0), 1: _window([0, 1], 30.0, 6.0)}
    planner.start(0)
    assert planner.submit([Job(2, 1.0, 1, 4.0)], 1.0)[0] == {}
    assert planner._volumes[2] == 4.0
    assert _plain_changes(planner.finish(0, 3.0)) == {2: _window([0], 3.0, 8.0)}


class LongerEarly:
    """Not a built-in criterion: BFstart, but searching three times the volume from 1 to 2."""

    def __init__(self) -> None:
        self.criterion = build_criterion("BFstart")

    def search(self, profile, request):
        scale = 3.0 if 1 <= request.earliest_start < 2 else 1.0
        return self.criterion.search(profile, replace(request, volume=request.volume * scale))


def test_a_criterion_of_other_volumes_is_searched_every_time():
    # Local load from 12 on node 0 and from 8 on node 1. Job 1 (both nodes) is the head at
    # 30. At 1 job 2 is searched with 12 units (no start before 30); at 3 (job 0 ends early)
    # with 4, which fits now: the test of what it searched before must not skip it.
    planner = EasyBackfilling(NODES[:2], (((12.0, 30.0),), ((8.0, 30.0),)), LongerEarly())
    assert not planner.skip_tests
    planned, _ = planner.submit(
        [Job(0, 0.0, 1, 10.0, runtime_factor=0.3), Job(1, 0.0, 2, 6.0)], 0.0
    )
    assert _plain_changes(planned) == {0: _window([0], 0.0, 10.0), 1: _window([0, 1], 30.0, 6.0)}
    planner.start(0)
    assert planner.submit([Job(2, 1.0, 1, 4.0)], 1.0)[0] == {}
    assert _plain_changes(planner.finish(0, 3.0)) == {2: _window([0], 3.0, 4.0)}


def test_a_window_starting_now_is_not_searched_again_when_faster_nodes_free_up():
    # Job 2 waits for the slow node 0 until 4 (it finishes there at 12). At 4 job 0 leaves
    # the fast node 1 early: job 2 is as good as started and keeps its window.
    nodes = (Node(0, 1.0, 1.0), Node(1, 2.0, 1.0))
    planner = fcfs(nodes=nodes, busy=((), ()), criterion="BFfinish")
    planner.submit([Job(0, 0.0, 1, 20.0), Job(1, 0.0, 1, 4.0)], 0.0)
    planner.start(0)
    planner.start(1)
    planned, _ = planner.submit([Job(2, 1.0, 1, 8.0)], 1.0)
    assert _plain_changes(planned) == {2: _window([0], 4.0, 8.0)}
    assert planner.finish(1, 4.0) == {}
    assert planner.finish(0, 4.0) == {}
    assert _plain(planner.reservations[2]) == _window([0], 4.0, 8.0)


# -- naming a planner: built-ins and plugins -----------------------------------------------


def test_built_in_planners_are_named_and_take_no_parameters():
    for name, cls in (("fcfs", FcfsReservations), ("easy", EasyBackfilling),
                      ("conservative", ConservativeBackfilling)):  # fmt: skip
        assert scheduler_class(name) == (cls, {}, None)
        assert scheduler_class({"name": name}) == (cls, {}, None)
        planner = build_planner(name, NODES, FREE, build_criterion("BFstart"), "sjf")
        assert type(planner) is cls and planner.nodes == NODES
        assert planner.key(Job(0, 5.0, 1, 1.0)) < planner.key(Job(1, 0.0, 1, 2.0))  # sjf
    with pytest.raises(ValueError) as error:
        scheduler_class({"name": "fcfs", "depth": 2, "alpha": 1})
    assert str(error.value) == "scheduler fcfs takes no parameters, got ['alpha', 'depth']"
    assert check_scheduler_spec("easy") == "easy"
    assert check_scheduler_spec({"name": "easy"}) == {"name": "easy"}


def test_a_plugin_planner_comes_back_guarded_with_its_parameters():
    spec = {"name": "plugin_samples:AreaFirst", "largest_first": True}
    cls, params, origin = scheduler_class(spec)
    assert (cls.__name__, params, origin) == ("AreaFirst", {"largest_first": True},
                                              "plugin_samples:AreaFirst")  # fmt: skip
    assert spec == {"name": "plugin_samples:AreaFirst", "largest_first": True}  # not changed
    planner = build_planner(spec, NODES, FREE, build_criterion("BFstart"), "fcfs")
    assert isinstance(planner, GuardedScheduler) and planner.checked
    assert planner.origin == "plugin_samples:AreaFirst"
    assert isinstance(planner.planner, cls) and planner.planner.nodes == NODES
    small, large = Job(0, 0.0, 1, 2.0), Job(1, 0.0, 2, 2.0)
    assert planner.planner.key(large) < planner.planner.key(small)  # largest_first given
    assert scheduler_class("plugin_samples:AreaFirst")[1:] == ({}, "plugin_samples:AreaFirst")


def test_a_built_in_planner_driving_a_plugin_criterion_is_guarded_unchecked():
    criterion = build_criterion("plugin_samples:EarliestFinish")
    planner = build_planner("easy", NODES, FREE, criterion)
    assert isinstance(planner, GuardedScheduler) and not planner.checked
    assert type(planner.planner) is EasyBackfilling
    assert planner.origin == "plugin_samples:EarliestFinish"
    assert planner.planner.criterion is criterion


def test_an_unknown_scheduler_is_one_line_with_the_closest_name():
    with pytest.raises(PluginLoadError) as error:
        scheduler_class("fcsf")
    assert str(error.value) == (
        "unknown scheduler 'fcsf'; did you mean 'fcfs'?: expected one of fcfs, easy, "
        "conservative, a 'package.module:Class' or an installed gridsim.schedulers entry point"
    )
    with pytest.raises(PluginLoadError) as error:
        scheduler_class("zzzz")
    assert str(error.value).startswith("unknown scheduler 'zzzz': expected one of fcfs, easy")
    with pytest.raises(PluginLoadError) as error:
        scheduler_class({"largest_first": True})
    assert str(error.value).startswith("unknown scheduler None: expected one of fcfs, easy")
    with pytest.raises(ValueError) as error:
        check_scheduler_spec("fcsf")
    assert type(error.value) is ValueError
    assert str(error.value).startswith("unknown scheduler 'fcsf'; did you mean 'fcfs'?")


def test_a_plugin_given_a_parameter_it_lacks_names_it_and_its_constructor():
    with pytest.raises(PluginLoadError) as error:
        scheduler_class({"name": "plugin_samples:AreaFirst", "zeta": 1, "alpha": 2})
    assert str(error.value) == (
        "scheduler plugin_samples:AreaFirst takes no parameter 'alpha'; its constructor is "
        "AreaFirst(nodes, busy, criterion, priority='fcfs', largest_first: 'bool' = False)"
    )
    with pytest.raises(PluginLoadError, match=r"^plugin_samples:NoOverrun does not define"):
        scheduler_class("plugin_samples:NoOverrun")


def test_installed_schedulers_are_listed_with_their_first_docstring_line(tmp_path, monkeypatch):
    install_entry_points(
        tmp_path, "plugin_rules_described",
        {"gridsim.schedulers": {"fcfs": "plugin_samples:Conservative",
                                "broken": "plugin_samples:NotAPlanner",
                                "area": "plugin_samples:AreaFirst",
                                "bare": "plugin_samples:Undescribed",
                                "two": "plugin_samples:Described"}},
        monkeypatch,
    )  # fmt: skip
    rows = describe_plugin_schedulers()
    assert [name for name, _ in rows] == ["fcfs", "broken", "area", "bare", "two"]
    described = dict(rows)
    assert (
        described["fcfs"] == "hidden by the built-in fcfs; name it as plugin_samples:Conservative"
    )
    assert described["area"] == (
        "Conservative backfilling that plans jobs arriving together by ``n * volume``. "
        "[plugin_samples:AreaFirst]"
    )
    assert described["bare"] == " [plugin_samples:Undescribed]"
    assert described["two"] == (
        "Conservative backfilling under another name. [plugin_samples:Described]"
    )
    assert described["broken"] == (
        "unusable: broken is not a scheduler: expected a subclass of "
        "gridsim.scheduling.backfilling.ReservationPlanner"
    )


def test_an_unknown_scheduler_may_be_close_to_an_installed_one(tmp_path, monkeypatch):
    install_entry_points(
        tmp_path, "plugin_rules_close",
        {"gridsim.schedulers": {"areafirst": "plugin_samples:AreaFirst"}},
        monkeypatch,
    )  # fmt: skip
    with pytest.raises(PluginLoadError) as error:
        scheduler_class("areafirts")
    assert str(error.value).startswith("unknown scheduler 'areafirts'; did you mean 'areafirst'?")
