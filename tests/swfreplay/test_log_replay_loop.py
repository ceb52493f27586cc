"""The log replay's event loop (gridsim.sim.log_replay) with the scheduler taken away: node
ids, counts, progress, messages, and the checks that stop a scheduler's planning bug."""

import math

import numpy as np
import pandas as pd
import pytest

from gridsim.sim.log_replay import ReplayError, replay_log


def table(*rows):
    """Jobs from (job_id, submit_time, processors, estimate, duration) tuples."""
    return pd.DataFrame(rows, columns=["job_id", "submit_time", "processors", "estimate",
                                       "duration"])  # fmt: skip


class StartsAtOnce:
    """A scheduler starting every job when it arrives (``extra``: that many jobs it never
    submitted are started too; ``hold``: jobs it never starts)."""

    def __init__(self, machine, processors, estimates, now, hold=()):
        self.queue: list[int] = []
        self.hold = set(hold)
        self.completed: list[tuple[float, list[int], bool]] = []

    def next_decision(self):
        return math.inf

    def complete(self, now, jobs, early):
        self.completed.append((now, list(jobs), early))

    def submit(self, now, jobs):
        self.queue.extend(jobs)

    def starts(self, now):
        started = [job for job in self.queue if job not in self.hold]
        self.queue = [job for job in self.queue if job in self.hold]
        return started

    def counters(self):
        return {"calls": len(self.completed)}


def test_a_starting_job_takes_the_nodes_freed_last_and_the_counts_are_kept():
    jobs = table((1, 0, 2, 5, 5), (2, 0, 1, 9, 9), (3, 5, 2, 5, 3), (4, 9, 1, 5, 1))
    schedulers = []

    def factory(*args):
        schedulers.append(StartsAtOnce(*args))
        return schedulers[-1]

    replay = replay_log(jobs, 4, factory)
    assert replay.nodes == [(0, 1), (2,), (0, 1), (2,)]  # 1's nodes to 3, 2's node to 4
    assert replay.start_time.tolist() == [0, 0, 5, 9]
    assert (replay.peak_processors, replay.events) == (3, 5)  # instants 0, 5, 8, 9, 10
    assert np.isnan(replay.first_reservation).all()
    assert replay.counters == {"calls": 5}  # at every instant, with what ended then
    assert schedulers[0].completed == [(0, [], False), (5, [0], False), (8, [2], True),
                                       (9, [1], False), (10, [3], True)]  # fmt: skip


def test_jobs_are_replayed_in_arrival_order_and_reported_in_the_table_s():
    jobs = table((7, 3, 1, 2, 2), (5, 0, 1, 2, 2), (6, 0, 1, 2, 2))
    replay = replay_log(jobs, 1, "fcfs")
    assert replay.start_time.tolist() == [4, 0, 2]  # 5 first (same time, lower id), then 6, 7


def test_progress_is_reported_every_so_many_instants_and_at_the_end():
    jobs = table(*[(i, 10 * i, 1, 5, 5) for i in range(5)])
    seen = []
    replay_log(jobs, 2, "fcfs", on_progress=seen.append, progress_every=3)
    assert seen == [10, 25, 40, 40]  # instants 0, 5, 10 | 15, 20, 25 | ...; then the last submit
    seen.clear()
    replay_log(jobs.iloc[:0], 2, "fcfs", on_progress=seen.append)
    assert seen == []


def test_an_empty_log_replays_to_nothing():
    replay = replay_log(table(), 2, "conservative", record_nodes=False)
    assert len(replay.start_time) == 0 and replay.nodes is None and replay.events == 0


def test_bad_arguments_are_named():
    jobs = table((1, 0, 1, 5, 5)).drop(columns=["estimate"])
    with pytest.raises(ValueError) as error:
        replay_log(jobs, 2, "fcfs")
    assert str(error.value) == (
        "a replay needs columns ['estimate'], got "
        "['job_id', 'submit_time', 'processors', 'duration']"
    )  # fmt: skip
    with pytest.raises(ValueError) as error:
        replay_log(table((1, 0, 1, 5, 5)), 2, "fcfs", completions_order="after")
    assert str(error.value) == (
        "expected completions_order among ['together', 'separately'], got 'after'"
    )  # fmt: skip


def test_a_scheduler_that_oversubscribes_or_stalls_is_stopped():
    jobs = table((1, 0, 3, 5, 5), (2, 0, 2, 5, 5))
    with pytest.raises(ReplayError) as error:
        replay_log(jobs, 4, StartsAtOnce)
    assert str(error.value) == "job 1 needs 2 nodes at 0.0, 1 free"
    with pytest.raises(ReplayError) as error:
        replay_log(jobs, 4, StartsAtOnce, record_nodes=False)
    assert str(error.value) == "5 processors in use at 0.0 on 4"

    def holding(*args):
        return StartsAtOnce(*args, hold={1})

    with pytest.raises(ReplayError) as error:
        replay_log(jobs, 8, holding)
    assert str(error.value) == "1 jobs queued but nothing will happen"


def test_a_scheduler_is_built_from_the_machine_the_jobs_in_arrival_order_and_the_first_time():
    built = []

    def factory(*args):
        built.append(args)
        return StartsAtOnce(*args)

    replay_log(table((2, 4, 1, 9, 9), (1, 3, 2, 5, 5)), 4, factory)
    replay_log(table(), 2, factory)
    assert built == [(4, [2, 1], [5.0, 9.0], 3.0), (2, [], [], 0.0)]


class Recording(StartsAtOnce):
    """Starts every job at once and notes every call to ``submit``."""

    def __init__(self, *args):
        super().__init__(*args)
        self.submitted: list[tuple[float, list[int]]] = []

    def submit(self, now, jobs):
        self.submitted.append((now, list(jobs)))
        super().submit(now, jobs)


def test_the_scheduler_is_told_of_arrivals_only_at_instants_with_some():
    # Instants 0, 2 (arrivals), 5, 7 (completions only): two submissions.
    schedulers = []

    def factory(*args):
        schedulers.append(Recording(*args))
        return schedulers[-1]

    replay = replay_log(table((1, 0, 1, 5, 5), (2, 0, 1, 5, 5), (3, 2, 1, 5, 5)), 4, factory)
    assert replay.events == 4
    assert schedulers[0].submitted == [(0, [0, 1]), (2, [2])]


def test_the_last_progress_is_the_last_submission_and_never_before_time_0():
    seen = []
    replay_log(table((1, 0, 1, 5, 5), (2, 0, 1, 5, 5)), 2, "fcfs", on_progress=seen.append)
    assert seen == [0.0]
    seen.clear()
    replay_log(table((1, -30, 1, 5, 5)), 2, "fcfs", on_progress=seen.append)
    assert seen == [0.0]


class WaitsUntil5(StartsAtOnce):
    """Starts every job at time 5 (an integer), as reserved on arrival."""

    def __init__(self, machine, processors, estimates, now):
        super().__init__(machine, processors, estimates, now)
        self.first_reservation = dict.fromkeys(range(len(processors)), 5)

    def next_decision(self):
        return 5 if self.queue else math.inf

    def starts(self, now):
        return super().starts(now) if now == 5 else []


def test_times_a_scheduler_gives_as_integers_come_back_as_float_seconds():
    replay = replay_log(table((1, 0, 1, 5, 5), (2, 1, 1, 5, 5)), 2, WaitsUntil5)
    assert replay.start_time.dtype == np.float64 and replay.start_time.tolist() == [5.0, 5.0]
    assert replay.first_reservation.dtype == np.float64
    assert replay.first_reservation.tolist() == [5.0, 5.0]


def test_a_processor_column_of_floats_is_read_as_counts():
    # A table built from a CSV with a missing value elsewhere has float processor counts.
    jobs = table((1, 0, 2, 5, 5), (2, 0, 1, 5, 5)).astype({"processors": "float64"})
    replay = replay_log(jobs, 4, "easy")
    assert replay.nodes == [(0, 1), (2,)]
    assert replay.peak_processors == 3 and type(replay.peak_processors) is int
