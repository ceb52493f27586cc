"""The processor-count schedulers of the log replay, driven by hand on tiny machines.

Each case is worked out on paper from the rules in ``gridsim.scheduling.log_schedulers``:
input checks with their messages, EASY's spare processors when a job ends exactly at the
shadow time, conservative compression's counters over two passes, and a replay that does not
start at time 0.
"""

import pytest

from gridsim.scheduling.log_schedulers import build_scheduler


def test_machine_and_job_sizes_are_checked_with_a_message_naming_them():
    with pytest.raises(ValueError, match=r"^expected a positive machine size, got 0$"):
        build_scheduler("fcfs", 0, [], [])
    with pytest.raises(
        ValueError, match=r"^job at position 1 needs 0 processors; the machine has 4$"
    ):
        build_scheduler("easy", 4, [2, 0], [10.0, 10.0])
    with pytest.raises(
        ValueError,
        match=r"^expected a scheduler among \['fcfs', 'easy', 'conservative'\], got 'sjf'$",
    ):
        build_scheduler("sjf", 4, [1], [1.0])
    one = build_scheduler("fcfs", 1, [1], [5.0])  # a one-processor machine is a machine
    one.submit(0.0, [0])
    assert one.starts(0.0) == [0]


def test_easy_a_job_ending_exactly_at_the_shadow_time_leaves_the_spare_processors():
    # 10 processors; job 0 holds 6 until 10; the head (job 1) needs 8: shadow 10, extra 2.
    # Job 2 (2 processors) ends exactly at 10, so it does not use the extra processors, and
    # job 3 (2 processors, long) still fits in them.
    easy = build_scheduler("easy", 10, [6, 8, 2, 2], [10.0, 5.0, 10.0, 100.0])
    easy.submit(0.0, [0])
    assert easy.starts(0.0) == [0]
    easy.submit(0.0, [1, 2, 3])
    assert easy.starts(0.0) == [2, 3]


def test_conservative_counts_its_passes_searches_and_moves():
    # 4 processors, three jobs of 4: job 0 runs [0, 10), job 1 is reserved at 10, job 2 at 15.
    conservative = build_scheduler("conservative", 4, [4, 4, 4], [10.0, 5.0, 5.0])
    conservative.submit(0.0, [0, 1, 2])
    assert conservative.first_reservation == {0: 0.0, 1: 10.0, 2: 15.0}
    assert conservative.starts(0.0) == [0]
    conservative.complete(2.0, [0], early=True)  # both queued jobs move: 1 to 2, 2 to 7
    assert conservative.queue == {1: 2.0, 2: 7.0}
    assert conservative.starts(2.0) == [1]
    conservative.complete(3.0, [1], early=True)  # job 2 moves to 3
    assert conservative.queue == {2: 3.0}
    assert conservative.starts(3.0) == [2]
    assert conservative.counters() == {
        "compressions": 2, "compression_scans": 3, "compression_moves": 3,
    }  # fmt: skip


@pytest.mark.parametrize("algorithm", ["fcfs", "easy", "conservative"])
def test_a_replay_starts_where_its_first_job_arrives(algorithm):
    late = build_scheduler(algorithm, 4, [4, 2], [10.0, 10.0], 100.0)
    late.submit(100.0, [0, 1])
    assert late.starts(100.0) == [0]
    late.complete(110.0, [0], early=False)
    assert late.starts(110.0) == [1]
    default = build_scheduler(algorithm, 4, [4], [10.0])  # from time 0 unless told
    default.submit(0.0, [0])
    assert default.starts(0.0) == [0]
