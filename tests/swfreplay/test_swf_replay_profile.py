"""The processor-count availability profile: steps, earliest fits and moves."""

import math
from itertools import pairwise

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.scheduling.counting_profile import CountingProfile


def test_reservations_split_steps_and_releases_restore_them():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 2)
    profile.add(10, 20, 3)
    assert profile.steps() == [(0, 2), (10, 1), (20, 4)]
    profile.release(10, 20, 3)
    assert profile.steps() == [(0, 2), (10, 4)]  # equal neighbours merge


def test_earliest_fit_needs_enough_processors_over_the_whole_duration():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 2)
    profile.add(10, 20, 3)
    assert profile.earliest_fit(3, 2, 7) == 3
    assert profile.earliest_fit(3, 2, 8) == 20
    assert profile.earliest_fit(3, 4, 1) == 20
    assert profile.earliest_fit(3, 2, 8, before=20) is None
    with pytest.raises(ValueError, match="never fits a machine of 4"):
        profile.earliest_fit(0, 5, 1)


def test_over_commitment_is_refused():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 3)
    with pytest.raises(ValueError, match="over-committed"):
        profile.add(5, 6, 2)


def test_forgetting_the_past_keeps_the_step_in_progress():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 2)
    profile.add(20, 30, 1)
    profile.forget_before(15)
    assert profile.steps() == [(15, 4), (20, 3), (30, 4)]


def test_fits_before_asks_whether_any_instant_up_to_a_time_has_enough_free():
    profile = CountingProfile(8, 0.0)
    profile.add(0, 10, 8)
    profile.add(10, 20, 5)
    profile.add(20, 30, 7)
    assert not profile.fits_before(9.5, 1)
    assert profile.fits_before(10, 3) and not profile.fits_before(10, 4)
    assert profile.fits_before(25, 3)
    profile.add(10, 20, 3)  # the cached maximum must follow the change
    assert not profile.fits_before(25, 2) and profile.fits_before(25, 1)
    assert profile.fits_before(math.inf, 8)
    # [20, 25) with 1 free reaches a reservation at 25; nothing fits 5 s whole before it
    assert profile.may_move(1, 5, 25) and not profile.may_move(2, 5, 25)
    assert not profile.may_move(1, 5, 20)  # [10, 20) has none free


def test_released_reservations_leave_no_breakpoint_behind():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 2)
    profile.add(5, 30, 1)
    profile.add(10, 20, 1)
    assert profile.steps() == [(0, 2), (5, 1), (10, 2), (20, 3), (30, 4)]
    profile.release(10, 20, 1)
    assert profile.steps() == [(0, 2), (5, 1), (10, 3), (30, 4)]
    profile.release(5, 30, 1)
    profile.release(0, 10, 2)
    assert profile.steps() == [(0, 4)]


reservations = st.lists(
    st.tuples(st.integers(0, 30), st.integers(1, 15), st.integers(1, 4)), max_size=8
)


@settings(max_examples=examples(200), deadline=None)
@given(reservations, st.integers(0, 30), st.integers(1, 4), st.integers(1, 15), st.integers(0, 10))
def test_a_move_is_the_earliest_fit_once_the_own_reservation_is_freed(
    existing, reserved, processors, duration, now
):
    profile = CountingProfile(6, 0.0)
    for start, length, count in existing:
        if profile.earliest_fit(start, count, length) == start:
            profile.add(start, start + length, count)
    reserved = profile.earliest_fit(max(reserved, now), processors, duration)
    profile.add(reserved, reserved + duration, processors)
    moved = profile.earliest_move(now, processors, duration, reserved)
    profile.release(reserved, reserved + duration, processors)
    expected = profile.earliest_fit(now, processors, duration)
    assert moved == (expected if expected < reserved else None)
    profile.add(reserved, reserved + duration, processors)
    if not profile.may_move(processors, duration, reserved):
        assert moved is None  # the cheap test compression relies on


def _free_over(steps: list[tuple[float, int]], start: float, end: float) -> int:
    """The fewest free processors on [start, end) of a step function (brute force)."""
    ends = [time for time, _ in steps[1:]] + [math.inf]
    spans = zip(steps, ends, strict=True)
    return min(free for (time, free), step_end in spans if time < end and step_end > start)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(1, 15), st.integers(1, 5)), max_size=40),
    st.integers(0, 30),
    st.integers(1, 6),
    st.integers(1, 20),
    st.integers(1, 60),
)
def test_earliest_fit_is_the_first_candidate_start_with_room(
    existing, now, processors, duration, before
):
    profile = CountingProfile(6, 0.0)
    for start, length, count in existing:  # many steps: the arrays outgrow their capacity
        if _free_over(profile.steps(), start, start + length) >= count:
            profile.add(start, start + length, count)
    steps = profile.steps()
    candidates = sorted({now, *(time for time, _ in steps if time > now)})
    fitting = [t for t in candidates if _free_over(steps, t, t + duration) >= processors]
    expected = fitting[0] if fitting and fitting[0] < before else None
    assert profile.earliest_fit(now, processors, duration, before=before) == expected


def test_the_step_function_survives_growth_and_forgetting():
    profile = CountingProfile(100, 0.0)
    for k in range(200):  # 400 breakpoints: several doublings of the arrays
        profile.add(2 * k, 2 * k + 1, 1 + k % 7)
    assert len(profile) == 400
    assert profile.steps()[:4] == [(0, 99), (1, 100), (2, 98), (3, 100)]
    profile.forget_before(300.5)  # job 150 holds 4 processors on [300, 301)
    assert profile.steps()[:4] == [(300.5, 96), (301, 100), (302, 95), (303, 100)]
    assert profile.fits_before(303, 100)
    profile.add(300.5, 302.5, 3)  # the cached running maximum follows the change
    assert profile.steps()[:5] == [(300.5, 93), (301, 97), (302, 92), (302.5, 95), (303, 100)]
    assert profile.fits_before(302.9, 97) and not profile.fits_before(302.9, 98)


def _brute_free(changes: list[tuple[int, int, int]], machine: int, time: float) -> int:
    """Free processors at ``time`` after the ``(start, end, processors)`` reservations."""
    return machine - sum(p for start, end, p in changes if start <= time < end)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12), st.integers(1, 3)), max_size=30),
    st.lists(st.integers(0, 29), max_size=30),
)
def test_adds_and_releases_keep_the_step_function_and_no_equal_neighbours(reserve, released):
    """Random reservations and releases (the fast paths that move one breakpoint included)."""
    machine = 6
    profile = CountingProfile(machine, 0.0)
    held: list[tuple[int, int, int]] = []
    for start, length, count in reserve:
        if _free_over(profile.steps(), start, start + length) >= count:
            profile.add(start, start + length, count)
            held.append((start, start + length, count))
    for k in released:
        if held:
            start, end, count = held.pop(k % len(held))
            profile.release(start, end, count)
    steps = profile.steps()
    assert all(a[1] != b[1] for a, b in pairwise(steps))
    for half in range(90):
        time = half / 2
        assert _free_over(steps, time, time + 0.5) == _brute_free(held, machine, time)


# queued jobs mostly of a few shapes: series of identical jobs are what the pass's memory of
# too-short runs is for
job_shapes = st.sampled_from([(4, 1), (6, 2), (3, 2), (8, 3), (2, 1), (5, 4)])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(job_shapes | st.tuples(st.integers(1, 8), st.integers(1, 4)), min_size=1, max_size=16),
    st.lists(st.tuples(st.integers(1, 12), st.integers(1, 4)), min_size=1, max_size=4),
    st.integers(0, 11),
)
# a move frees processors before a run the pass remembered as too short for a (4, 1) job
@example([(4, 1), (4, 4), (3, 2), (2, 1), (4, 4), (4, 1), (2, 1)], [(11, 3), (4, 3), (2, 3)], 1)
def test_a_compression_pass_is_the_plain_loop_of_tests_searches_and_moves(queued, running, now):
    """``compress`` moves the jobs the per-job loop (may_move, earliest_move, move) moves."""

    def planned() -> tuple[CountingProfile, dict[int, float]]:
        """Running jobs from 0, queued jobs at their earliest fits, the first running job
        ending early at ``now``."""
        profile = CountingProfile(6, 0.0)
        started = []
        for length, count in running:
            if _free_over(profile.steps(), 0, length) >= count:
                profile.add(0, length, count)
                started.append((length, count))
        queue = {}
        for job, (length, count) in enumerate(queued):
            queue[job] = profile.earliest_fit(0, count, length)
            profile.add(queue[job], queue[job] + length, count)
        length, count = started[0]
        profile.forget_before(now)
        if now < length:
            profile.release(now, length, count)
        return profile, queue

    processors = [count for _, count in queued]
    duration = [float(length) for length, _ in queued]
    profile, queue = planned()
    expected = []
    for job, reserved in queue.items():
        if reserved > now and profile.may_move(processors[job], duration[job], reserved):
            new = profile.earliest_move(now, processors[job], duration[job], reserved)
            if new is not None:
                profile.move(reserved, new, duration[job], processors[job])
                expected.append((job, new))
    fast, queue = planned()
    assert fast.compress(now, queue, processors, duration) == expected
    assert fast.steps() == profile.steps()


def test_a_range_over_several_steps_is_refused_with_what_is_wrong():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 3)
    with pytest.raises(ValueError) as error:
        profile.add(5, 15, 2)  # fits on [10, 15) but not on [5, 10)
    assert str(error.value) == "over-committed: 2 processors on [5, 15)"
    with pytest.raises(ValueError) as error:
        profile.release(5, 15, 2)  # [10, 15) held nothing
    assert str(error.value) == "released more than was held on [5, 15)"
