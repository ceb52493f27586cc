"""The processor-count profile, method by method: hand-worked cases and seeded random sequences
checked against a brute-force profile (milliseconds each; what mutation runs select)."""

from __future__ import annotations

import math
import random

import pytest

from gridsim.scheduling.counting_profile import CountingProfile


class BruteProfile:
    """The profile by brute force: the machine minus the reservations held at each instant."""

    def __init__(self, machine: int, now: float) -> None:
        self.machine = machine
        self.edge = now
        self.held: list[tuple[float, float, int]] = []

    def free_at(self, time: float) -> int:
        return self.machine - sum(p for start, end, p in self.held if start <= time < end)

    def breakpoints(self) -> list[float]:
        ends = {t for start, end, _ in self.held for t in (start, end)}
        return sorted({self.edge} | {t for t in ends if self.edge < t < math.inf})

    def steps(self) -> list[tuple[float, int]]:
        merged: list[tuple[float, int]] = []
        for time in self.breakpoints():
            free = self.free_at(time)
            if not merged or merged[-1][1] != free:
                merged.append((time, free))
        return merged

    def free_over(self, start: float, end: float) -> int:
        inside = [t for t in self.breakpoints() if start < t < end]
        return min(self.free_at(t) for t in [start, *inside])

    def earliest_fit(self, now: float, p: int, duration: float, before: float = math.inf):
        for time in sorted({now} | {t for t in self.breakpoints() if t > now}):
            if time >= before:
                return None
            if self.free_over(time, time + duration) >= p:
                return time
        return None

    def fits_before(self, time: float, p: int) -> bool:
        instants = [t for t in self.breakpoints() if t <= time]
        return time >= self.edge and any(self.free_at(t) >= p for t in instants)

    def earliest_move(self, now: float, p: int, duration: float, reserved: float):
        if reserved <= now:
            return None
        own = (reserved, reserved + duration, p)
        index = self.held.index(own)
        del self.held[index]
        found = self.earliest_fit(now, p, duration, before=reserved)
        self.held.insert(index, own)
        return found

    def may_move(self, p: int, duration: float, reserved: float) -> bool:
        earlier = [t for t in self.breakpoints() if t < reserved]
        just_before = self.free_at(earlier[-1] if earlier else self.edge)
        return just_before >= p or self.fits_before(reserved - duration, p)


def _random_sequence(rng: random.Random, profile: CountingProfile, brute: BruteProfile) -> None:
    """Random reservations, releases, moves, forgetting and questions, each checked."""
    for _ in range(30):
        action = rng.random()
        edge = brute.edge
        if action < 0.35:  # a reservation where it fits
            start = edge + rng.randint(0, 12) / rng.choice((1, 2))
            end = start + rng.randint(1, 8)
            p = rng.randint(1, brute.machine)
            if brute.free_over(start, end) >= p:
                profile.add(start, end, p)
                brute.held.append((start, end, p))
        elif action < 0.5 and brute.held:  # a release, whole or of a part still ahead
            start, end, p = brute.held.pop(rng.randrange(len(brute.held)))
            if start < edge:
                brute.held.append((start, edge, p))
                start = edge
            profile.release(start, end, p)
        elif action < 0.6 and brute.held:  # a move earlier, where it fits
            k = rng.randrange(len(brute.held))
            reserved, end, p = brute.held[k]
            duration = end - reserved
            found = brute.earliest_move(max(edge, reserved - 10), p, duration, reserved)
            if reserved > edge and found is not None:
                profile.move(reserved, found, duration, p)
                brute.held[k] = (found, found + duration, p)
        elif action < 0.65:  # time passes
            now = edge + rng.randint(0, 6) / rng.choice((1, 2))
            profile.forget_before(now)
            brute.edge = now
        else:  # questions, which change nothing
            now = edge + rng.randint(0, 10)
            p = rng.randint(1, brute.machine)
            duration = rng.randint(1, 8)
            time = edge + rng.randint(-2, 14) / 2
            before = rng.choice((math.inf, now + rng.randint(0, 8)))
            expected = brute.earliest_fit(now, p, duration, before)
            assert profile.earliest_fit(now, p, duration, before) == expected
            assert profile.fits_before(time, p) == brute.fits_before(time, p)
            if brute.held:
                reserved, end, q = rng.choice(brute.held)
                if reserved >= edge:
                    assert profile.may_move(q, end - reserved, reserved) == brute.may_move(
                        q, end - reserved, reserved
                    )
                    move = profile.earliest_move(now, q, end - reserved, reserved)
                    assert move == brute.earliest_move(now, q, end - reserved, reserved)
        assert profile.steps() == brute.steps()
        assert len(profile) == len(brute.steps())


@pytest.mark.parametrize("seed", range(4))
def test_random_sequences_match_the_brute_force_profile(seed):
    rng = random.Random(seed)
    for _ in range(60):
        machine = rng.randint(1, 6)
        edge = rng.choice((0.0, 3.0))
        profile, brute = CountingProfile(machine, edge), BruteProfile(machine, edge)
        _random_sequence(rng, profile, brute)


def _plain_pass(brute: BruteProfile, now, queue, processors, duration):
    """The per-job loop compression stands for: the cheap test, the search, the move."""
    moves, scans = [], 0
    for job, reserved in queue.items():
        p, e = processors[job], duration[job]
        if reserved <= now or not brute.may_move(p, e, reserved):
            continue
        scans += 1
        found = brute.earliest_move(now, p, e, reserved)
        if found is not None:
            brute.held.remove((reserved, reserved + e, p))
            brute.held.append((found, found + e, p))
            moves.append((job, found))
    return moves, scans


@pytest.mark.parametrize("seed", range(4))
def test_a_compression_pass_moves_what_the_brute_force_loop_moves(seed):
    rng = random.Random(seed)
    shapes = [(1, 1), (2, 3), (3, 1), (2, 2), (4, 2)]  # series of equal jobs: the memory
    for _ in range(80):
        machine = rng.randint(3, 6)
        profile, brute = CountingProfile(machine, 0.0), BruteProfile(machine, 0.0)
        running = []
        for _ in range(rng.randint(1, 3)):
            length, p = rng.randint(1, 12), rng.randint(1, machine)
            if brute.free_over(0, length) >= p:
                profile.add(0, length, p)
                brute.held.append((0, length, p))
                running.append((length, p))
        processors, duration, queue = [], [], {}
        for job in range(rng.randint(1, 14)):
            p, e = rng.choice(shapes) if rng.random() < 0.7 else (rng.randint(1, 3), 1.5)
            p = min(p, machine)
            start = brute.earliest_fit(0, p, e)
            profile.add(start, start + e, p)
            brute.held.append((start, start + e, p))
            processors.append(p)
            duration.append(e)
            queue[job] = start
        now = rng.randint(0, 6)
        profile.forget_before(now)
        brute.edge = now
        for length, p in running[: rng.randint(0, len(running))]:  # early finishes
            if now < length:
                profile.release(now, length, p)
                brute.held.remove((0, length, p))
                brute.held.append((0, now, p))
        before = dict(queue)
        expected, scans = _plain_pass(brute, now, queue, processors, duration)
        assert profile.compress(now, queue, processors, duration) == expected
        assert profile.scans == scans
        assert profile.steps() == brute.steps()
        assert queue == before  # the queue itself is not changed


def test_a_machine_of_no_processors_is_refused():
    with pytest.raises(ValueError) as error:
        CountingProfile(0)
    assert str(error.value) == "expected a positive machine size, got 0"
    assert CountingProfile(1).steps() == [(0.0, 1)]


def test_a_new_profile_is_the_whole_machine_free_from_now():
    profile = CountingProfile(5, 7.5)
    assert profile.processors == 5 and profile.scans == 0
    assert profile.steps() == [(7.5, 5)] and len(profile) == 1
    assert not profile.fits_before(7.4, 1) and profile.fits_before(7.5, 5)


def test_an_empty_or_reversed_range_changes_nothing():
    profile = CountingProfile(4, 0.0)
    profile.add(5, 5, 9)
    profile.add(6, 2, 9)
    profile.release(3, 3, 9)
    assert profile.steps() == [(0.0, 4)]


def test_a_range_before_the_profile_is_refused_with_both_times():
    profile = CountingProfile(4, 10.0)
    with pytest.raises(ValueError) as error:
        profile.add(9.5, 12, 1)
    assert str(error.value) == "[9.5, 12) starts before the profile (10.0)"
    profile.add(10, 12, 1)
    assert profile.steps() == [(10.0, 3), (12, 4)]


def test_over_commitment_and_over_release_inside_one_step_read_whole():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 3)
    with pytest.raises(ValueError) as error:
        profile.add(2, 4, 2)
    assert str(error.value) == "over-committed: 2 processors on [2, 4)"
    with pytest.raises(ValueError) as error:
        profile.release(12, 14, 1)  # the last step: nothing held
    assert str(error.value) == "released more than was held on [12, 14)"
    profile.add(2, 4, 1)  # exactly the last free processor: allowed
    profile.release(0, 2, 3)  # exactly what was held: allowed
    assert profile.steps() == [(0.0, 4), (2, 0), (4, 1), (10, 4)]


def test_over_commitment_over_several_steps_is_refused_at_the_edge():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 2)
    profile.add(10, 20, 3)
    profile.add(0, 20, 1)  # exactly one left over both steps: allowed
    assert profile.steps() == [(0.0, 1), (10, 0), (20, 4)]
    profile.release(0, 20, 3)  # 4 free at most on [10, 20): allowed
    assert profile.steps() == [(0.0, 4), (10, 3), (20, 4)]


def test_a_range_ending_at_the_next_breakpoint_moves_it():
    profile = CountingProfile(4, 0.0)
    profile.add(5, 10, 2)  # [0, 5) 4, [5, 10) 2
    profile.add(3, 5, 2)  # [3, 5) becomes 2, as [5, 10): the breakpoint at 5 moves to 3
    assert profile.steps() == [(0.0, 4), (3, 2), (10, 4)]
    profile.add(0, 3, 2)  # joins [3, 10) from its start
    assert profile.steps() == [(0.0, 2), (10, 4)]
    profile.add(10, 12, 2)  # starts where a step starts, joins the previous one
    assert profile.steps() == [(0.0, 2), (12, 4)]


def test_a_range_starting_a_step_joins_the_previous_count():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 5, 1)  # [0, 5) 3, [5, inf) 4
    profile.add(5, 8, 1)  # starts step 1, joins step 0: the breakpoint moves to 8
    assert profile.steps() == [(0.0, 3), (8, 4)]
    profile.add(8, 9, 2)  # starts step 1 with another count: split
    assert profile.steps() == [(0.0, 3), (8, 2), (9, 4)]
    profile.add(9, 11, 1)  # within the last step, joins nothing
    assert profile.steps() == [(0.0, 3), (8, 2), (9, 3), (11, 4)]


def test_a_reservation_for_ever_is_never_fitted_around():
    profile = CountingProfile(4, 0.0)
    profile.add(5, 7, 1)
    profile.add(3, math.inf, 3)  # the general path, with no end breakpoint
    assert profile.steps() == [(0.0, 4), (3, 1), (5, 0), (7, 1)]
    assert profile.earliest_fit(0, 2, 3) == 0
    assert profile.earliest_fit(0, 2, 4) is None  # [0, 3) is short, then never 2 again
    assert profile.earliest_fit(0, 1, 6) == 7  # [0, 5) is short; [7, inf) lasts
    profile.add(7, math.inf, 1)  # from a step's start, up to the end: merges backwards
    assert profile.steps() == [(0.0, 4), (3, 1), (5, 0)]
    profile.release(3, math.inf, 3)
    assert profile.steps() == [(0.0, 4), (5, 3)]
    with pytest.raises(ValueError) as error:
        profile.add(7, math.inf, 4)
    assert str(error.value) == "over-committed: 4 processors on [7, inf)"


def test_an_infinite_range_from_a_step_start_does_not_join_the_previous_step():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 5, 2)  # [0, 5) 2, [5, inf) 4
    profile.add(5, math.inf, 2)  # would join [0, 5) by a moved breakpoint at inf otherwise
    assert profile.steps() == [(0.0, 2)]
    assert profile.earliest_fit(0, 3, 1) is None


def test_forgetting_keeps_the_step_in_progress_and_starts_it_now():
    profile = CountingProfile(4, 0.0)
    profile.add(1, 2, 1)
    profile.add(3, 6, 2)
    assert profile.fits_before(6, 4)  # the running maximum is built
    profile.forget_before(0.5)  # inside the first step: nothing dropped
    assert profile.steps() == [(0.5, 4), (1, 3), (2, 4), (3, 2), (6, 4)]
    profile.forget_before(2)  # exactly at a breakpoint: the steps before it go
    assert profile.steps() == [(2, 4), (3, 2), (6, 4)]
    assert profile.fits_before(2.5, 4) and not profile.fits_before(1.5, 1)
    profile.forget_before(4)
    assert profile.steps() == [(4, 2), (6, 4)]
    assert not profile.fits_before(5, 3)  # the maximum is rebuilt after the steps went
    assert profile.fits_before(6, 4)
    profile.forget_before(3)  # earlier than the left edge: nothing changes
    assert profile.steps() == [(4, 2), (6, 4)]


def test_the_running_maximum_is_rebuilt_from_the_step_changed():
    profile = CountingProfile(6, 0.0)
    for k in range(5):
        profile.add(k, k + 1, 5 - k)  # free 1, 2, 3, 4, 5 then 6
    assert profile.fits_before(4.5, 5) and not profile.fits_before(3.5, 5)
    assert profile.fits_before(5, 6)
    profile.add(2, 5, 1)  # free 1, 2, 2, 3, 4 then 6
    assert not profile.fits_before(4.5, 5) and profile.fits_before(4.5, 4)
    assert not profile.fits_before(2.5, 3) and profile.fits_before(2.5, 2)
    profile.release(0, 1, 5)  # step 0 now 6 free: every instant after it sees 6
    assert profile.fits_before(0, 6) and profile.fits_before(4, 6)


def test_a_move_overlapping_its_old_place_changes_only_the_ends():
    profile = CountingProfile(4, 0.0)
    profile.add(4, 10, 3)
    profile.move(4, 1, 6, 3)  # [4, 10) to [1, 7): they overlap on [4, 7)
    assert profile.steps() == [(0.0, 4), (1, 1), (7, 4)]
    profile.move(1, 0, 6, 3)  # [1, 7) to [0, 6)
    assert profile.steps() == [(0.0, 1), (6, 4)]


def test_a_move_clear_of_its_old_place_is_a_release_and_an_add():
    profile = CountingProfile(4, 0.0)
    profile.add(10, 13, 2)
    profile.move(10, 7, 3, 2)  # [7, 10) touches [10, 13)
    assert profile.steps() == [(0.0, 4), (7, 2), (10, 4)]
    profile.move(7, 2, 3, 2)  # [2, 5) ends before 7
    assert profile.steps() == [(0.0, 4), (2, 2), (5, 4)]


def test_fits_before_looks_back_to_the_left_edge_only():
    profile = CountingProfile(3, 2.0)
    profile.add(2, 4, 3)
    profile.add(4, 6, 1)
    assert not profile.fits_before(1.9, 0)  # before the profile: nothing
    assert profile.fits_before(2, 0) and not profile.fits_before(3.9, 1)
    assert profile.fits_before(4, 2) and not profile.fits_before(5, 3)
    assert profile.fits_before(6, 3)


def test_may_move_reads_the_step_just_before_the_reservation():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 4, 4)
    profile.add(4, 6, 2)
    profile.add(6, 9, 3)  # the job [6, 9) of 3 holds; [4, 6) has 2 free
    assert profile.may_move(2, 3, 6)  # a run of 2 reaches 6
    assert not profile.may_move(3, 3, 6)  # nothing of 3 before 6
    profile.add(0, 4, -1)  # 1 free on [0, 4): [0, 3] holds a start of 1 processor
    assert profile.may_move(1, 3, 6)
    assert not profile.may_move(3, 3, 6)
    assert profile.may_move(1, 3, 0) and not profile.may_move(2, 3, 0)  # step 0 read


def test_earliest_fit_starts_now_inside_a_step_and_at_step_starts_later():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 2, 1)
    profile.add(2, 6, 3)
    profile.add(8, 9, 2)
    assert profile.earliest_fit(1, 3, 1) == 1
    assert profile.earliest_fit(1, 3, 2) == 6
    assert profile.earliest_fit(1, 3, 3) == 9  # [6, 8) is too short
    assert profile.earliest_fit(1, 2, 3) == 6  # [6, inf) holds 2 throughout
    assert profile.earliest_fit(1, 3, 3, before=9) is None
    assert profile.earliest_fit(1, 3, 3, before=9.5) == 9
    assert profile.earliest_fit(7, 4, 1) == 7 and profile.earliest_fit(8, 4, 1) == 9
    assert profile.earliest_fit(1, 4, 1) == 6
    with pytest.raises(ValueError) as error:
        profile.earliest_fit(0, 5, 1)
    assert str(error.value) == "a job of 5 processors never fits a machine of 4"
    assert profile.earliest_fit(0, 4, 1, before=6) is None


def test_earliest_move_stops_at_the_reservation():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 3, 4)
    profile.add(3, 5, 1)
    profile.add(5, 8, 2)  # the job [5, 8) of 2
    assert profile.earliest_move(0, 2, 3, 5) == 3  # [3, 5) has 3 free and reaches 5
    assert profile.earliest_move(4, 2, 3, 5) == 4
    assert profile.earliest_move(0, 4, 3, 5) is None
    assert profile.earliest_move(5, 2, 3, 5) is None  # not earlier than now
    assert profile.earliest_move(6, 2, 3, 5) is None
    profile.add(4, 5, 2)  # [4, 5) has 1 free now: a move must fit whole before 5
    assert profile.earliest_move(0, 1, 1, 5) == 3
    assert profile.earliest_move(0, 2, 1, 5) == 3
    assert profile.earliest_move(0, 2, 2, 5) is None
    assert profile.earliest_move(3.5, 2, 1, 5) is None  # [3.5, 4.5) is short at 4


def test_earliest_move_needs_a_whole_run_before_the_latest_start():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 1, 2)
    profile.add(2, 4, 4)
    profile.add(5, 6, 4)
    profile.add(6, 9, 2)  # the job [6, 9) of 2; [5, 6) full
    assert profile.earliest_move(0, 2, 3, 6) is None  # [1, 2) and [4, 5) too short
    assert profile.earliest_move(0, 2, 1, 6) == 0
    assert profile.earliest_move(1.5, 2, 1, 6) == 4  # [1.5, 2.5) is short
    assert profile.earliest_move(0, 3, 1, 6) == 1
    assert profile.earliest_move(4.5, 3, 1, 6) is None  # latest start is 5, [4.5, 5) short


def test_compression_moves_in_queue_order_and_counts_its_searches():
    profile = CountingProfile(4, 0.0)
    profile.add(0, 10, 4)  # a running job on the whole machine
    queue = {0: 10.0, 1: 12.0, 2: 10.0}
    processors, duration = [2, 2, 2], [2.0, 3.0, 5.0]
    for job, start in queue.items():
        profile.add(start, start + duration[job], processors[job])
    profile.forget_before(4)
    profile.release(4, 10, 4)  # it finishes early at 4
    assert profile.compress(4, queue, processors, duration) == [(0, 4), (1, 4), (2, 6)]
    assert profile.scans == 3
    assert profile.steps() == [(4, 0), (7, 2), (11, 4)]
    assert queue == {0: 10.0, 1: 12.0, 2: 10.0}
    moved = {0: 4.0, 1: 4.0, 2: 6.0}
    assert profile.compress(4, moved, processors, duration) == []
    assert profile.scans == 3  # none passed the cheap test: [4, 6) is full


def test_compression_skips_jobs_already_started_or_with_nothing_before_them():
    profile = CountingProfile(2, 0.0)
    profile.add(0, 5, 2)
    profile.add(5, 6, 1)
    queue = {0: 0.0, 1: 5.0}
    assert profile.compress(0, queue, [2, 1], [5.0, 1.0]) == []
    assert profile.scans == 0


def test_compression_forgets_what_it_learnt_when_a_move_frees_a_run():
    # On 2 processors, [1, 2) and [3, 4) are free. Jobs 0 and 1 (2 processors, 2 s, at 6
    # and 8) find only runs too short; job 2 (2 processors, 1 s, at [2, 3)) moves to 1
    # and frees [2, 3): [2, 4) is now a run of 2 s, which job 3 (like jobs 0 and 1, at
    # 10) takes.
    profile = CountingProfile(2, 0.0)
    queue = {0: 6.0, 1: 8.0, 2: 2.0, 3: 10.0}
    processors, duration = [2, 2, 2, 2], [2.0, 2.0, 1.0, 2.0]
    profile.add(0, 1, 2)
    profile.add(4, 6, 2)
    for job, start in queue.items():
        profile.add(start, start + duration[job], 2)
    assert profile.compress(0, queue, processors, duration) == [(2, 1), (3, 2)]
    assert profile.scans == 4
    assert profile.steps() == [(0.0, 0), (10, 2)]


def test_no_move_is_found_in_a_profile_ending_with_a_reservation_for_ever():
    # On 2 processors: [0, 1) has 2 free, too short for 3 s; [1, 5) 1 free; the job holds
    # [5, 8) with both, and from 8 on both are taken for ever: the job's step is the last.
    # The scans stop at the job's reservation, not past the profile's end.
    profile = CountingProfile(2, 0.0)
    profile.add(1, 5, 1)
    profile.add(5, 8, 2)
    profile.add(8, math.inf, 2)
    assert profile.steps() == [(0.0, 2), (1, 1), (5, 0)]
    assert profile.earliest_move(0, 2, 3, 5) is None
    assert profile.compress(0, {0: 5.0}, [2], [3.0]) == []
    assert profile.scans == 1


def test_compression_uses_what_it_learnt_only_for_reservations_after_it():
    # One processor. Job 0 (3 s, at 10) scans [1, 2) and learns that runs ending by 2 are too
    # short for a 3-s job; job 1, of the same shape, holds [2, 5): the run [1, 2) reaches its
    # reservation, so it moves to 1 although that run is short.
    profile = CountingProfile(1, 0.0)
    profile.add(0, 1, 1)
    profile.add(5, 10, 1)
    queue = {0: 10.0, 1: 2.0}
    for start in queue.values():
        profile.add(start, start + 3, 1)
    assert profile.compress(0, queue, [1, 1], [3.0, 3.0]) == [(1, 1)]
    assert profile.steps() == [(0.0, 0), (4, 1), (5, 0), (13, 1)]


def test_compression_forgets_runs_ending_exactly_where_a_move_frees_processors():
    # Two processors. Job 0 (1 processor, 2 s, at 9) scans [1, 2), [3, 4) and [5, 6), each
    # too short: runs ending by 6 are too short for its shape. Job 1 (2 processors, 1 s)
    # moves from [6, 7) to [1, 2), freeing processors from 6: [5, 7) is now a run of 2 s
    # (1 free, then 2), which job 2 (like job 0, at 11) takes from 5.
    profile = CountingProfile(2, 0.0)
    for start, end, count in ((0, 1, 2), (2, 3, 2), (3, 4, 1), (4, 5, 2), (5, 6, 1),
                              (7, 9, 2), (9, 13, 1)):  # fmt: skip
        profile.add(start, end, count)
    queue = {0: 9.0, 1: 6.0, 2: 11.0}
    processors, duration = [1, 2, 1], [2.0, 1.0, 2.0]
    for job, start in queue.items():
        profile.add(start, start + duration[job], processors[job])
    assert profile.compress(0, queue, processors, duration) == [(1, 1), (2, 5)]
    assert profile.scans == 3
