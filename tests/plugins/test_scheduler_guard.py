"""The guard around plugin schedulers (gridsim.scheduling.guard), one check at a time.

A scripted planner answers each of the engine's calls with what the test says, so every
check sees exactly the window or end that breaks it (and one that does not), and every
message is read whole.
"""

from __future__ import annotations

import pytest

from gridsim.model import Job, Node, Request, Window
from gridsim.plugins import PluginError
from gridsim.profile import Profile
from gridsim.scheduling.guard import GuardedScheduler

NODES = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0), Node(2, 2.0, 1.0))
PREFIX = "scheduler plugin:Scripted "


class Scripted:
    """A planner answering each call with the next of ``answers``."""

    def __init__(self, answers, busy=((), (), ()), never_delays=None) -> None:
        self.nodes = NODES
        self.busy = [list(intervals) for intervals in busy]
        self.profile = Profile(self.nodes, self.busy)
        self.jobs: dict[int, Job] = {}
        self.running: dict[int, Window] = {}
        self.first_promised: dict[int, float] = {}
        self.delays: dict[int, float] = {}
        self.answers = list(answers)
        if never_delays is not None:
            self.never_delays = never_delays

    def _next(self):
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def submit(self, jobs, now):
        planned, rejected = self._next()
        for job in jobs:
            self.jobs[job.id] = job
        for job_id, window in planned.items():
            if window is not None:
                self.first_promised.setdefault(job_id, window.start)
        return planned, rejected

    def start(self, job_id):
        return self._next()

    def finish(self, job_id, now):
        return self._next()

    def overrun(self, job_id, now, end):
        return self._next()


def window(start: float, runtime: float, *nodes: int) -> Window:
    return Window(start, runtime, nodes, (), runtime * len(nodes))


def guarded(*answers, **options) -> GuardedScheduler:
    return GuardedScheduler(Scripted(answers, **options), "plugin:Scripted")


def fails(call, *args) -> str:
    with pytest.raises(PluginError) as error:
        call(*args)
    return str(error.value).removeprefix(PREFIX)


JOB = Job(0, 0.0, 1, 4.0)
OTHER = Job(1, 0.0, 1, 4.0)


def test_the_engine_reads_the_planner_s_own_records():
    guard = guarded(({0: window(0, 4, 0)}, []))
    guard.submit([JOB], 0.0)
    planner = guard.planner
    assert (guard.jobs, guard.running, guard.first_promised, guard.delays) == (
        planner.jobs, planner.running, planner.first_promised, planner.delays
    )  # fmt: skip
    assert guard.jobs == {0: JOB} and guard.first_promised == {0: 0.0}


def test_windows_are_checked_against_the_others_and_submissions_are_named():
    guard = guarded(({0: window(0, 4, 0)}, []), ({1: window(2, 4, 0)}, []))
    assert guard.submit([JOB], 0.0) == ({0: window(0, 4, 0)}, [])
    assert fails(guard.submit, [OTHER], 1.0) == (
        "gave job 1 an infeasible window: node 0 is not free over [2, 6) at time 1 "
        "(job 1 submitted)"
    )  # fmt: skip
    guard = guarded(({0: window(0, 4, 0), 1: window(0, 2, 1)}, []))
    assert fails(guard.submit, [JOB, OTHER], 0.0) == (
        "gave job 1 an infeasible window: its runtime 2 is shorter than the volume needs on "
        "its slowest node 1 (4) at time 0 (2 jobs submitted together)"
    )  # fmt: skip


def test_a_window_over_local_load_or_before_the_simulation_start_is_refused():
    guard = guarded(({0: window(2, 4, 0)}, []), busy=(((0.0, 2.0),), (), ()))
    guard.submit([JOB], 0.0)
    assert guard.announced == {0: window(2, 4, 0)}
    guard = guarded(({0: window(1, 4, 0)}, []), busy=(((0.0, 2.0),), (), ()))
    assert fails(guard.submit, [JOB], 0.0) == (
        "gave job 0 an infeasible window: node 0 is not free over [1, 5) at time 0 "
        "(job 0 submitted)"
    )  # fmt: skip
    planner = Scripted([({0: window(0, 4, 0)}, [])])
    planner.profile = Profile(NODES, planner.busy, horizon_start=3.0)
    guard = GuardedScheduler(planner, "plugin:Scripted")
    assert fails(guard.submit, [JOB], 0.0).startswith(
        "gave job 0 an infeasible window: node 0 is not free over [0, 4)"
    )


def test_rejections_must_be_of_jobs_submitted_and_not_planned():
    guard = guarded(({0: window(0, 4, 0)}, [JOB]))
    assert fails(guard.submit, [JOB], 0.0) == (
        "rejected job 0, which it also planned or never got at time 0 (job 0 submitted)"
    )  # fmt: skip
    guard = guarded(({}, [OTHER]))
    assert fails(guard.submit, [JOB], 0.0) == (
        "rejected job 1, which it also planned or never got at time 0 (job 0 submitted)"
    )  # fmt: skip
    guard = guarded(({0: None}, [JOB]))
    assert guard.submit([JOB], 0.0) == ({0: None}, [JOB])


def test_a_start_must_be_of_the_announced_window_of_a_recorded_job():
    guard = guarded(({0: window(0, 4, 0)}, []), window(0, 4, 1))
    guard.submit([JOB], 0.0)
    assert fails(guard.start, 0) == "started job 0 on a window it never announced (job 0 starting)"
    guard = guarded(({0: window(0, 4, 0)}, []), window(0, 4, 0))
    guard.submit([JOB], 0.0)
    guard.planner.first_promised.clear()
    assert fails(guard.start, 0) == (
        "started job 0 without recording it in jobs and first_promised (job 0 starting)"
    )  # fmt: skip
    guard = guarded(({0: window(0, 4, 0)}, []), window(0, 4, 0))
    guard.submit([JOB], 0.0)
    assert guard.start(0) == window(0, 4, 0)
    assert guard.announced == {} and guard.held_until == {0: (window(0, 4, 0), 4.0)}
    assert guard.started == {0}


def started(*answers, **options) -> GuardedScheduler:
    """Job 0 running on node 0 over [0, 4), then ``answers``."""
    guard = guarded(({0: window(0, 4, 0)}, []), window(0, 4, 0), *answers, **options)
    guard.submit([JOB], 0.0)
    guard.start(0)
    return guard


def test_an_early_finish_frees_the_rest_of_the_window():
    guard = started({}, ({1: window(2, 4, 0)}, []))
    assert guard.finish(0, 2.0) == {}
    guard.submit([OTHER], 2.0)
    assert guard.announced == {1: window(2, 4, 0)}
    guard = started({}, ({1: window(2, 4, 0)}, []))
    guard.finish(0, 3.0)
    assert fails(guard.submit, [OTHER], 2.0).startswith("gave job 1 an infeasible window")


def test_moved_windows_must_be_of_queued_jobs():
    guard = started({0: window(5, 4, 1)})
    assert fails(guard.finish, 0, 3.0) == (
        "moved job 0, which has already started at time 3 (job 0 finished)"
    )  # fmt: skip
    guard = started({7: window(5, 4, 1)})
    assert fails(guard.finish, 0, 3.0) == (
        "announced a window for job 7, never submitted at time 3 (job 0 finished)"
    )  # fmt: skip


def queued(*answers, never_delays=True) -> GuardedScheduler:
    """Job 0 running on node 0 over [0, 4), job 1 queued on node 1 at 4, then ``answers``."""
    guard = started(({1: window(4, 4, 1)}, []), *answers, never_delays=never_delays)
    guard.submit([OTHER], 1.0)
    return guard


def test_a_planner_that_never_delays_may_not_move_a_job_later_but_for_an_overrun():
    guard = queued({1: window(5, 4, 1)})
    assert fails(guard.finish, 0, 3.0) == (
        "moved job 1 to start at 5, later than the window it held (from 4) at time 3 "
        "(job 0 finished)"
    )  # fmt: skip
    guard = queued({1: window(4 + 1e-12, 4, 1)})  # within the tolerance
    guard.finish(0, 3.0)
    guard = queued({1: window(3, 4, 1)})  # earlier: fine
    guard.finish(0, 3.0)
    assert guard.announced == {1: window(3, 4, 1)}
    guard = queued({1: window(5, 4, 1)}, never_delays=False)
    guard.finish(0, 3.0)
    guard = queued((6.0, {1: window(6, 4, 1)}))
    assert guard.overrun(0, 4.0, 6.0) == (6.0, {1: window(6, 4, 1)})
    guard = queued({1: None})  # a withdrawn window frees its nodes
    guard.finish(0, 3.0)
    assert guard.announced == {}
    assert guard.never_delays is True
    assert guarded().never_delays is False


def test_an_overrun_ends_between_now_and_the_end_asked_and_holds_its_nodes():
    for allowed in (3.5, 6.5):
        guard = started((allowed, {}))
        assert fails(guard.overrun, 0, 4.0, 6.0) == (
            f"let job 0 run to {allowed:g}, outside [4, 6] at time 4 (job 0 overran to 6)"
        )
    for allowed in (4.0, 5.0, 6.0):
        guard = started((allowed, {}))
        assert guard.overrun(0, 4.0, 6.0) == (allowed, {})
        assert guard.held_until[0] == (window(0, 4, 0), allowed)
    guard = started((6.0, {}), ({1: window(5, 4, 0)}, []))
    guard.overrun(0, 4.0, 6.0)
    assert fails(guard.submit, [OTHER], 4.0).startswith(
        "gave job 1 an infeasible window: node 0 is not free over [5, 9)"
    )


def test_an_overrun_into_another_window_is_named():
    guard = started(({1: window(5, 4, 0)}, []), (6.0, {}))
    guard.submit([OTHER], 1.0)
    assert fails(guard.overrun, 0, 4.0, 6.0) == (
        "let job 0 overrun into another window on node 0 within [4, 6) at time 4 "
        "(job 0 overran to 6)"
    )  # fmt: skip
    guard = started(({1: window(6, 4, 0)}, []), (6.0, {}))  # up to it: fine
    guard.submit([OTHER], 1.0)
    guard.overrun(0, 4.0, 6.0)
    guard = started(({1: window(5, 4, 0)}, []), (6.0, {1: window(6, 4, 0)}))  # moved away
    guard.submit([OTHER], 1.0)
    guard.overrun(0, 4.0, 6.0)


def test_errors_inside_the_planner_are_named_with_the_job_and_time():
    guard = guarded(KeyError("lost"))
    assert fails(guard.submit, [JOB], 2.0) == (
        "raised KeyError: 'lost' at time 2 (job 0 submitted)"
    )  # fmt: skip
    request = Request(1, 4.0)
    criterion_error = PluginError("policy x gave a bad window")
    criterion_error.request = request  # type: ignore[attr-defined]
    guard = guarded(criterion_error)
    with pytest.raises(PluginError) as error:
        guard.submit([JOB, Job(1, 0.0, 2, 4.0)], 2.0)
    assert str(error.value) == (
        "policy x gave a bad window; job 0, at time 2 (2 jobs submitted together)"
    )  # fmt: skip
    guard = guarded(criterion_error)
    with pytest.raises(PluginError) as error:
        guard.submit([JOB, OTHER], 2.0)  # two jobs ask the same: neither named
    assert str(error.value) == "policy x gave a bad window; at time 2 (2 jobs submitted together)"
    guard = guarded(PluginError("policy x failed"))
    with pytest.raises(PluginError) as error:
        guard.submit([JOB], 2.0)
    assert str(error.value) == "policy x failed; at time 2 (job 0 submitted)"


def test_a_started_job_is_not_named_for_a_criterion_s_error():
    request = Request(1, 4.0)
    criterion_error = PluginError("policy x failed")
    criterion_error.request = request  # type: ignore[attr-defined]
    guard = started(({1: window(4, 4, 1)}, []), criterion_error)
    guard.submit([OTHER], 1.0)
    with pytest.raises(PluginError) as error:
        guard.finish(0, 3.0)
    assert str(error.value) == "policy x failed; job 1, at time 3 (job 0 finished)"


def test_unchecked_guards_only_add_context():
    planner = Scripted([({0: window(0, 4, 0), 1: window(0, 4, 0)}, [JOB]), window(9, 1, 2),
                        {5: window(0, 1, 0)}, (99.0, {})])  # fmt: skip
    guard = GuardedScheduler(planner, "BFfinish-plugin", checked=False)
    guard.submit([JOB, OTHER], 0.0)
    assert guard.start(0) == window(9, 1, 2)
    guard.finish(0, 1.0)
    assert guard.overrun(1, 4.0, 6.0) == (99.0, {})
    assert guard.announced == {} and guard.held_until == {}


def test_a_submission_may_not_move_a_queued_job_later_either():
    guard = queued(({1: window(5, 4, 1), 2: window(0, 4, 2)}, []))
    assert fails(guard.submit, [Job(2, 0.0, 1, 8.0)], 1.0) == (
        "moved job 1 to start at 5, later than the window it held (from 4) at time 1 "
        "(job 2 submitted)"
    )  # fmt: skip


def test_a_withdrawn_window_does_not_stop_the_others_being_checked():
    guard = queued({1: None, 0: window(5, 4, 1)})
    assert fails(guard.finish, 0, 3.0).startswith("moved job 0, which has already started")
    guard = started(({1: window(4, 4, 1), 2: window(4, 4, 2)}, []), {1: None, 2: window(3, 4, 2)})
    guard.submit([OTHER, Job(2, 0.0, 1, 8.0)], 1.0)
    guard.finish(0, 3.0)
    assert guard.announced == {2: window(3, 4, 2)}


def test_errors_in_starts_and_overruns_name_the_event():
    guard = guarded(({0: window(0, 4, 0)}, []), KeyError("gone"))
    guard.submit([JOB], 0.0)
    assert fails(guard.start, 0) == "raised KeyError: 'gone' (job 0 starting)"
    guard = started(KeyError("gone"))
    assert fails(guard.overrun, 0, 4.0, 6.0) == (
        "raised KeyError: 'gone' at time 4 (job 0 overran to 6)"
    )  # fmt: skip


def test_the_tolerance_of_a_later_start_is_relative_to_the_time_and_a_billionth_at_least():
    def moved_from(start: float, later: float) -> GuardedScheduler:
        guard = started(({1: window(start, 4, 1)}, []), {1: window(later, 4, 1)},
                        never_delays=True)  # fmt: skip
        guard.submit([OTHER], 0.0)
        return guard

    moved_from(1e6, 1e6 + 5e-4).finish(0, 3.0)  # within 1e-9 of the time
    assert fails(moved_from(1e6, 1e6 + 5e-3).finish, 0, 3.0).startswith("moved job 1 to start")
    moved_from(1.0, 1.0 + 0.5e-9).finish(0, 0.5)
    assert fails(moved_from(1.0, 1.0 + 1.5e-9).finish, 0, 0.5).startswith("moved job 1 to start")
