"""EASY backfilling's spare processors (gridsim.scheduling.log_schedulers.Easy).

A job that would run past the head's shadow time may start only on the processors the head
leaves spare then, and each such job uses them up: the next one must fit in what is left.
The KTH-SP2 comparison catches a slip here; these tests catch it on a few jobs.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.sim.log_replay import replay_log

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workloads"))
from reference_backfilling import easy_backfilling


def table(rows):
    """Jobs from (submit_time, processors, estimate, run_time) tuples, ids from 0."""
    jobs = pd.DataFrame(rows, columns=["submit_time", "processors", "estimate", "run_time"])
    jobs.insert(0, "job_id", range(len(jobs)))
    return jobs.assign(duration=np.minimum(jobs.run_time, jobs.estimate))


def starts(jobs, machine):
    return replay_log(jobs, machine, "easy").start_time.tolist()


def test_long_backfilled_jobs_share_the_head_s_two_spare_processors():
    # 10 processors. Job 0 holds 6 until 100. At 1 the head (job 1, 8 processors) must wait
    # for 100 and leaves 2 spare then. Job 2 (2 processors, 500 s) takes them; job 3 (the
    # same) would delay the head, so it waits; job 4 (2 processors, 50 s) ends before 100.
    jobs = table([(0, 6, 100, 100), (1, 8, 10, 10), (1, 2, 500, 500), (1, 2, 500, 500),
                  (1, 2, 50, 50)])  # fmt: skip
    assert starts(jobs, 10) == [0, 100, 1, 110, 1]


# Narrow long jobs behind a wide head: spare processors are used and used up often.
narrow_and_wide = st.lists(
    st.tuples(
        st.integers(0, 20),
        st.sampled_from([1, 1, 2, 3, 7, 8]),
        st.integers(5, 60),
        st.integers(1, 60),
    ),
    min_size=3,
    max_size=20,
)


@settings(max_examples=examples(150))
@given(narrow_and_wide)
def test_narrow_jobs_behind_a_wide_head_start_when_the_reference_starts_them(rows):
    jobs = table(rows)
    expected = easy_backfilling(jobs, 8).start_time
    assert dict(enumerate(starts(jobs, 8))) == expected
