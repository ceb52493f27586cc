"""The job-flow engine (gridsim.sim.engine) on its own: what it writes to the trace, what it
hands the planner, and the invariants it checks on the plan it executes.

Four nodes: two slow (performance 1, price 1) and two fast (performance 4, price 4), as in
docs/jobflow.md's worked example.
"""

from dataclasses import replace

import pytest

from gridsim.model import Job, Node
from gridsim.scheduling.backfilling import ConservativeBackfilling
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Engine, Instance, SimulationError, jobs_from, simulate

NODES = tuple(Node(i, p, p) for i, p in enumerate([1.0, 1.0, 4.0, 4.0]))
NO_LOAD = ((), (), (), ())


def planner(busy=NO_LOAD, policy="BFfinish") -> ConservativeBackfilling:
    return ConservativeBackfilling(NODES, busy, build_criterion(policy))


def test_local_load_is_written_as_tasks_that_never_move():
    busy = (((1.0, 3.0), (5.0, 6.0)), (), ((0.5, 2.0),), ())
    trace = Engine(Instance(NODES, busy, ()), planner(busy)).run()
    assert trace.task_records() == [
        {"job_id": -1, "node": 0, "performance": 1.0, "start": 1.0, "end": 3.0,
         "kind": "local_load"},
        {"job_id": -1, "node": 0, "performance": 1.0, "start": 5.0, "end": 6.0,
         "kind": "local_load"},
        {"job_id": -1, "node": 2, "performance": 4.0, "start": 0.5, "end": 2.0,
         "kind": "local_load"},
    ]  # fmt: skip
    assert trace.job_records() == []


def test_a_finished_job_s_record_and_tasks_are_its_window_and_actual_runtime():
    """Job 0 (2 nodes, volume 8, runtime factor 0.75) gets the fast pair at 0 for 8 / 4 = 2
    and ends at 1.5. Job 1 (1 node, volume 2) arrives at 1; BFfinish promises it fast node 2
    from 2 (finish 2.5, before the slow node's 1 + 2 = 3), and job 0's early end moves it to
    1.5."""
    jobs = (Job(0, 0.0, 2, 8.0, runtime_factor=0.75), Job(1, 1.0, 1, 2.0))
    trace = Engine(Instance(NODES, NO_LOAD, jobs), planner()).run()
    first, second = trace.job_records()
    assert first == {
        "job_id": 0, "arrival": 0.0, "first_promised_start": 0.0, "start": 0.0,
        "finish": 1.5, "wait": 0.0, "runtime": 1.5, "planned_runtime": 2.0, "n": 2,
        "volume": 8.0, "nodes": "2 3", "cost": 1.5 * 8, "delay": 0.0,
        "final_state": "finished", "reason": "", "retries": 0, "lost_work": 0.0,
        "lost_cost": 0.0, "cost_with_losses": 12.0, "disturbed": False,
    }  # fmt: skip
    assert (second["first_promised_start"], second["start"], second["finish"]) == (2.0, 1.5, 2.0)
    assert (second["wait"], second["runtime"], second["nodes"]) == (0.5, 0.5, "2")
    assert second["final_state"] == "finished" and not second["disturbed"]
    assert [(t["job_id"], t["node"], t["start"], t["end"], t["kind"])
            for t in trace.task_records()] == [
        (0, 2, 0.0, 1.5, "job"), (0, 3, 0.0, 1.5, "job"), (1, 2, 1.5, 2.0, "job"),
    ]  # fmt: skip


def test_an_overrun_stopped_by_local_load_is_killed_with_the_time_it_stopped():
    busy = ((), (), ((2.5, 10.0),), ())
    jobs = (Job(0, 0.0, 2, 8.0, runtime_factor=1.5),)
    trace = simulate(Instance(NODES, busy, jobs), build_criterion("BFfinish"))
    (record,) = trace.job_records()
    assert (record["final_state"], record["finish"], record["runtime"]) == ("killed", 2.5, 2.5)
    assert record["reason"] == "stopped at 2.5: its overrun ran into local load"


def test_an_overrun_that_ends_before_any_local_load_finishes_normally():
    busy = ((), (), ((3.0, 10.0),), ())
    jobs = (Job(0, 0.0, 2, 8.0, runtime_factor=1.5),)
    (record,) = simulate(Instance(NODES, busy, jobs), build_criterion("BFfinish")).job_records()
    assert (record["final_state"], record["finish"], record["reason"]) == ("finished", 3.0, "")


def test_a_job_no_window_fits_is_rejected_with_the_reason():
    trace = simulate(Instance(NODES, NO_LOAD, (Job(0, 0.0, 5, 1.0),)), build_criterion("CoP"))
    (record,) = trace.job_records()
    assert (record["final_state"], record["reason"]) == ("rejected", "no window fits the request")


class Logged(ConservativeBackfilling):
    """Conservative backfilling that notes every call the engine makes."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[tuple] = []

    def submit(self, jobs, now):
        jobs = tuple(jobs)
        self.calls.append(("submit", now, tuple(job.id for job in jobs)))
        return super().submit(jobs, now)

    def start(self, job_id):
        window = super().start(job_id)
        self.calls.append(("start", window.start, job_id))
        return window

    def finish(self, job_id, now):
        self.calls.append(("finish", now, job_id))
        return super().finish(job_id, now)


def test_jobs_arriving_together_are_submitted_together_in_time_order():
    jobs = jobs_from(arrivals=[3, 0, 3, 1], sizes=[1, 1, 1, 1], volumes=[4, 4, 4, 4])
    logged = Logged(NODES, NO_LOAD, build_criterion("BFfinish"))
    Engine(Instance(NODES, NO_LOAD, jobs), logged).run()
    submits = [call for call in logged.calls if call[0] == "submit"]
    assert submits == [("submit", 0.0, (1,)), ("submit", 1.0, (3,)), ("submit", 3.0, (0, 2))]


def test_a_moved_reservation_starts_once_at_its_new_time():
    """Job 1 is planned after job 0 and moved earlier by job 0's early end: it starts once,
    at the new time (the start event of the old reservation is ignored)."""
    jobs = (Job(0, 0.0, 4, 16.0, runtime_factor=0.5), Job(1, 0.0, 4, 4.0))
    logged = Logged(NODES, NO_LOAD, build_criterion("BFfinish"))
    trace = Engine(Instance(NODES, NO_LOAD, jobs), logged).run()
    starts = [call for call in logged.calls if call[0] == "start"]
    assert starts == [("start", 0.0, 0), ("start", 8.0, 1)]
    assert [r["first_promised_start"] for r in trace.job_records()] == [0.0, 16.0]


class StartsLate(ConservativeBackfilling):
    """A faulty planner: the window it starts is not the one it reserved."""

    def start(self, job_id):
        return replace(super().start(job_id), start=1.0)


class DoubleBooks(ConservativeBackfilling):
    """A faulty planner: every window it starts is on node 0."""

    def start(self, job_id):
        return replace(super().start(job_id), nodes=(0,))


def test_a_start_at_another_time_than_reserved_is_a_simulation_error():
    engine = Engine(Instance(NODES, NO_LOAD, jobs_from([0], [1], [4])),
                    StartsLate(NODES, NO_LOAD, build_criterion("BFfinish")))  # fmt: skip
    with pytest.raises(SimulationError, match=r"^job 0 started at 0\.0, not 1\.0$"):
        engine.run()


def test_a_start_on_a_node_still_in_use_is_a_simulation_error():
    engine = Engine(Instance(NODES, NO_LOAD, jobs_from([0, 0], [1, 1], [4, 4])),
                    DoubleBooks(NODES, NO_LOAD, build_criterion("BFfinish")))  # fmt: skip
    with pytest.raises(SimulationError,
                       match=r"^node 0 is busy with job 0 when job 1 starts at 0\.0$"):  # fmt: skip
        engine.run()


def test_jobs_from_parallel_lists_are_numbered_in_list_order_with_exact_runtimes():
    jobs = jobs_from(arrivals=[0, 2.5], sizes=[1.0, 3], volumes=[4, 8])
    assert jobs == (Job(0, 0.0, 1, 4.0), Job(1, 2.5, 3, 8.0))
    assert [(type(j.arrival), type(j.n), type(j.volume)) for j in jobs] == [(float, int, float)] * 2
    assert {j.runtime_factor for j in jobs} == {1.0}
    with pytest.raises(ValueError):
        jobs_from(arrivals=[0, 1], sizes=[1], volumes=[4, 4])


class StartsOff(ConservativeBackfilling):
    """A planner whose started windows are ``offset`` later than reserved."""

    offset = 0.0

    def start(self, job_id):
        window = super().start(job_id)
        return replace(window, start=window.start + self.offset)


@pytest.mark.parametrize(
    ("arrival", "offset", "accepted"),
    [
        (0.0, 5e-7, True),  # float dust: within a millionth of a time unit
        (0.0, 1.5e-6, False),
        (0.0, 0.5, False),
        (1000.0, 1e-4, True),  # within a millionth of the start, relative
        (1000.0, 2e-3, False),
    ],
)
def test_a_start_must_be_within_a_millionth_of_its_reservation(arrival, offset, accepted):
    planner = StartsOff(NODES, NO_LOAD, build_criterion("BFfinish"))
    planner.offset = offset
    engine = Engine(Instance(NODES, NO_LOAD, jobs_from([arrival], [1], [4])), planner)
    if accepted:
        (record,) = engine.run().job_records()
        assert record["start"] == arrival + offset
    else:
        with pytest.raises(SimulationError, match=f"^job 0 started at {arrival}, not "):
            engine.run()
