"""The earliest-step bound of the window search, against its definition.

Through the search a weaker bound changes no window (it only leaves more steps in), so the
window tests cannot see it; here the bound itself is checked. Up to ``MAX_LEVELS`` distinct
sigma performances it is exact: a sigma's first step is the first at which ``n`` slots at
least as fast as the sigma are each free for its task from that step's start. Beyond, one
sweep gives every sigma the first step at which ``n`` slots can each hold their own task, a
bound no later than the sigma's.
"""

from __future__ import annotations

import numpy as np
import pytest

from gridsim.selection.candidates import Candidates
from gridsim.selection.earliest import MAX_LEVELS, SLACK, _first_overlap, first_steps


def candidates(start, end, performance) -> Candidates:
    """Slots in the search's order (by start), the fields the bound reads."""
    start, end, performance = (np.asarray(x, dtype=float) for x in (start, end, performance))
    order = np.argsort(start, kind="stable")
    zeros = np.zeros(len(start))
    return Candidates(
        node=np.arange(len(start))[order], slot_start=start[order], start=start[order],
        end=end[order], performance=performance[order], price=zeros, q=zeros,
    )  # fmt: skip


def exact_first_step(slots: Candidates, sigma: int | None, runtime: np.ndarray, n: int) -> int:
    """The first step at which ``n`` slots at least as fast as ``sigma`` can each hold its
    task (from the step's start, with the search's slack); ``len(slots)`` if none. Without a
    sigma: ``n`` slots, each its own task."""
    task = runtime if sigma is None else runtime[sigma]
    faster = slots.performance >= (0 if sigma is None else slots.performance[sigma])
    for step, t in enumerate(slots.start):
        free = faster & (slots.start <= t) & (slots.end - task + SLACK > t)
        if np.count_nonzero(free) >= n:
            return step
    return len(slots)


def random_case(rng: np.random.Generator, levels: int):
    size = int(rng.integers(1, 14))
    start = rng.integers(0, 30, size).astype(float)
    end = start + rng.integers(1, 25, size)
    performance = rng.choice(np.arange(1.0, levels + 1), size)
    performance[: min(size, levels)] = np.arange(1.0, min(size, levels) + 1)  # every level
    slots = candidates(start, end, performance)
    volume = float(rng.integers(1, 40))
    return slots, volume / slots.performance, int(rng.integers(1, 5))


@pytest.mark.parametrize("levels", range(1, MAX_LEVELS + 1))
def test_up_to_max_levels_the_bound_is_exact(levels):
    rng = np.random.default_rng(levels)
    for _ in range(150):
        slots, runtime, n = random_case(rng, levels)
        sigmas = np.arange(len(slots))
        first = first_steps(slots, sigmas, runtime, n)
        expected = [exact_first_step(slots, s, runtime, n) for s in sigmas]
        assert first.tolist() == expected


def test_beyond_max_levels_one_sweep_bounds_every_sigma_from_below():
    rng = np.random.default_rng(9)
    looser = 0
    for _ in range(300):
        slots, runtime, n = random_case(rng, MAX_LEVELS + 3)
        sigmas = np.arange(len(slots))
        if len(np.unique(slots.performance)) <= MAX_LEVELS:
            continue
        first = first_steps(slots, sigmas, runtime, n)
        expected = np.array([exact_first_step(slots, s, runtime, n) for s in sigmas])
        assert (first <= expected).all()
        assert (first == exact_first_step(slots, None, runtime, n)).all()
        looser += int((first < expected).any())
    assert looser > 0  # the cases include sigmas where one sweep is weaker than their own


def test_a_slower_slot_does_not_count_towards_a_faster_sigma():
    # Sigmas of performance 2 (task 4); the slot of performance 1 is free from 0 but too
    # slow, so two fast slots overlap only from 4, the start of step 2.
    slots = candidates([0, 0, 4], [10, 10, 20], [1, 2, 2])
    first = first_steps(slots, np.array([1, 2]), 8.0 / slots.performance, 2)
    assert first[[1, 2]].tolist() == [2, 2]


def test_a_slot_too_short_for_the_task_opens_no_range():
    # Task 4: the slot [0, 3) holds none, so the first two ranges overlap at 5, step 2.
    slots = candidates([0, 0, 5, 8], [10, 3, 20, 30], [1, 1, 1, 1])
    assert first_steps(slots, np.arange(4), np.full(4, 4.0), 2).tolist() == [2, 2, 2, 2]


def test_ranges_overlap_from_the_first_time_n_are_open():
    assert _first_overlap(np.array([0.0, 5.0, 8.0]), np.array([6.0, 16.0, 26.0]), 2) == 5.0
    assert _first_overlap(np.array([0.0, 5.0, 8.0]), np.array([6.0, 16.0, 26.0]), 3) == np.inf
    assert _first_overlap(np.array([0.0, 5.0, 8.0]), np.array([9.0, 16.0, 26.0]), 3) == 8.0
    # A range closing where another opens does not overlap it.
    assert _first_overlap(np.array([0.0, 5.0]), np.array([5.0, 9.0]), 2) == np.inf
    assert _first_overlap(np.array([0.0, 1.0]), np.array([-1.0, 9.0]), 2) == np.inf
