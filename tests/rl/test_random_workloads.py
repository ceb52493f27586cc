"""On random small workloads (simultaneous arrivals and completions, ties, early finishes),
the FCFS and first-allowed agents get exactly gridsim's replay, and random agents keep every
invariant."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

pytest.importorskip("gymnasium")

from schedule_checker import schedule_problems

from gridsim.rl.backfill_selection import BackfillSelectionEnv
from gridsim.rl.baselines import play, replay_episode
from gridsim.rl.episodes import EpisodeSource
from gridsim.rl.job_selection import JobSelectionEnv
from gridsim.workloads.platform import log_platform

MACHINE = 6
#: (submit gap, processors, estimate, run time) per job; run times past the estimate are cut
workloads = st.lists(
    st.tuples(st.integers(0, 8), st.integers(1, MACHINE), st.integers(1, 30), st.integers(1, 40)),
    min_size=1,
    max_size=25,
)


def source_of(rows) -> EpisodeSource:
    """A source whose pool is ``rows``, one episode of them all (no scenario to read)."""
    submit = np.cumsum([gap for gap, *_ in rows]).astype(float)
    estimate = np.array([e for *_, e, _ in rows], dtype=float)
    duration = np.minimum([d for *_, d in rows], estimate)
    jobs = pd.DataFrame({"job_id": np.arange(1, len(rows) + 1), "user_id": 1,
                         "submit_time": submit, "processors": [p for _, p, *_ in rows],
                         "estimate": estimate, "duration": duration,
                         "killed": duration < [d for *_, d in rows]})  # fmt: skip
    source = EpisodeSource.__new__(EpisodeSource)
    source.scenario = SimpleNamespace(name="random", bounded_slowdown_threshold=10.0)
    source.platform, source.pool, source.episode_jobs = log_platform(MACHINE), jobs, len(rows)
    return source


def first_allowed(observation, info):
    return int(np.flatnonzero(info["action_mask"])[0])


@settings(max_examples=examples(100), deadline=None)
@given(workloads, st.sampled_from(["easy", "none"]))
def test_fcfs_through_job_selection_is_the_replay(rows, backfill):
    env = JobSelectionEnv(source_of(rows), backfill=backfill, queue_slots=4)
    schedule = play(env, lambda observation, info: 0)[2]
    replay = replay_episode(env.episode, "easy" if backfill == "easy" else "fcfs")
    np.testing.assert_array_equal(schedule.start_time, replay.start_time)


@settings(max_examples=examples(100), deadline=None)
@given(workloads)
def test_first_allowed_backfilling_is_easy(rows):
    env = BackfillSelectionEnv(source_of(rows), queue_slots=4)
    schedule = play(env, first_allowed)[2]
    np.testing.assert_array_equal(schedule.start_time,
                                  replay_episode(env.episode, "easy").start_time)  # fmt: skip


@settings(max_examples=examples(100), deadline=None)
@given(workloads, st.integers(0, 2**32 - 1), st.booleans())
def test_random_agents_keep_the_invariants(rows, seed, backfilling):
    rng = np.random.default_rng(seed)
    source = source_of(rows)
    env = BackfillSelectionEnv(source, queue_slots=4) if backfilling else JobSelectionEnv(
        source, queue_slots=4)  # fmt: skip

    def policy(observation, info):
        return int(rng.choice(np.flatnonzero(info["action_mask"])))

    schedule = play(env, policy)[2]
    assert schedule_problems(schedule, MACHINE, len(rows)) == []
