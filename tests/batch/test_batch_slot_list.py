"""The batch cycle on its tuple slot list equals the cycle it replaced, window for window.

The previous cycle searched NumPy slot tables (the forward pass below, as it was) and patched the
profile's table after each window (``subtract``, ``Profile.occupy_updating_table``).
"""

from __future__ import annotations

import numpy as np
import pytest

from gridsim.model import Node
from gridsim.profile import Profile, SlotTable
from gridsim.scheduling.batch import BatchJob, RoughWindow, alp, amp, find_alternatives, subtract
from gridsim.scheduling.batch.slots import SlotList
from gridsim.workloads.batch_generators import (
    BatchParameters,
    SlotListParameters,
    generate_batch,
    generate_slot_list,
)


def previous_search(table: SlotTable, job: BatchJob, price_capped: bool) -> RoughWindow | None:
    """The forward pass over a NumPy slot table, as it was."""
    runtime = job.task_runtime(table.performance)
    suited = (table.performance >= job.min_performance) & (table.start + runtime <= table.end)
    if price_capped:
        suited &= table.price <= job.price_cap
    index = np.flatnonzero(suited)
    starts, ends = table.start[index].tolist(), table.end[index].tolist()
    runtimes = runtime[index].tolist()
    costs = (table.price[index] * runtime[index]).tolist()
    candidates: list[int] = []
    for k, start in enumerate(starts):
        candidates = [c for c in candidates if start + runtimes[c] <= ends[c]]
        candidates.append(k)
        if len(candidates) < job.n:
            continue
        chosen = candidates
        if not price_capped:
            chosen = sorted(candidates, key=lambda c: (costs[c], c))[: job.n]
            if sum(costs[c] for c in chosen) > job.budget:
                continue
        chosen = sorted(chosen, key=lambda c: int(table.node[index[c]]))
        return RoughWindow(
            start=start,
            nodes=tuple(int(table.node[index[c]]) for c in chosen),
            runtimes=tuple(runtimes[c] for c in chosen),
            cost=sum(costs[c] for c in chosen),
            slots=tuple(table.slot(int(index[c])) for c in chosen),
        )
    return None


def previous_cycle(profile, jobs, price_capped):
    free = profile.copy()
    alternatives = [[] for _ in jobs]
    searching = list(range(len(jobs)))
    while searching:
        still_searching = []
        for i in searching:
            window = previous_search(free.slot_table(), jobs[i], price_capped)
            if window is not None:
                alternatives[i].append(window)
                subtract(free, window)
                still_searching.append(i)
        searching = still_searching
    return alternatives


@pytest.mark.parametrize("search", [alp, amp], ids=["ALP", "AMP"])
@pytest.mark.parametrize("sizes", [((20, 40), (3, 7)), ((120, 150), (3, 7)), ((150, 150), (7, 7))])
def test_the_cycle_finds_the_windows_of_the_previous_cycle(search, sizes):
    slots, batch = sizes
    for seed in range(40):
        rng = np.random.default_rng(seed)
        profile = generate_slot_list(rng, SlotListParameters(count=slots))
        jobs = generate_batch(rng, BatchParameters(count=batch))
        expected = previous_cycle(profile, jobs, price_capped=search is alp)
        assert find_alternatives(profile, jobs, search) == expected, seed


def test_subtracting_from_the_slot_list_equals_occupying_the_profile():
    rng = np.random.default_rng(3)
    profile = generate_slot_list(rng, SlotListParameters(count=(60, 60)))
    jobs = generate_batch(rng, BatchParameters(count=(7, 7)))
    slot_list, occupied = SlotList.of(profile), profile.copy()
    alternatives = find_alternatives(profile, jobs, amp)
    # In the order found: pass after pass, every job that still finds one.
    found = [w[p] for p in range(max(map(len, alternatives))) for w in alternatives if p < len(w)]
    assert len(found) > 20
    for window in found:
        slot_list.subtract(window)
        for node, runtime in zip(window.nodes, window.runtimes, strict=True):
            occupied.occupy(node, window.start, window.start + runtime)
        assert slot_list.rows == SlotList.of(occupied).rows


#: After the task, the rest of a slot [0, 1) ending at 1.
REST = [(1e-9 + 0.5, 0, 1.0, 1.0, 1.0)]


@pytest.mark.parametrize(
    ("slot_end", "start", "runtime", "left"),
    [
        (1.0, 1e-9, 0.5, REST),  # a piece of exactly MIN_SLOT_LENGTH before the task: dropped
        (1.0, 2e-9, 0.5, [(0.0, 0, 2e-9, 1.0, 1.0), (2e-9 + 0.5, 0, 1.0, 1.0, 1.0)]),  # kept
        (2e-9, 0.0, 1e-9, []),  # exactly MIN_SLOT_LENGTH after it: dropped
        (3e-9, 0.0, 1e-9, [(1e-9, 0, 3e-9, 1.0, 1.0)]),  # longer: kept
        (5.0, 0.0, 5.0, []),  # the task fills the slot: nothing left
    ],
)
def test_pieces_no_longer_than_the_minimum_slot_are_dropped_as_the_profile_drops_them(
    slot_end, start, runtime, left
):
    profile = Profile([Node(0, 1.0, 1.0)], [[]], 0.0, slot_end)
    slot_list, occupied = SlotList.of(profile), profile.copy()
    (row,) = slot_list.rows
    slot_list.subtract(RoughWindow(start, (0,), (runtime,), runtime, (SlotList.slot(row),)))
    occupied.occupy(0, start, start + runtime)
    assert slot_list.rows == left
    assert slot_list.rows == SlotList.of(occupied).rows


def test_a_window_with_a_runtime_missing_or_too_many_is_refused_not_cut_short():
    """Both subtractions read a task's node (or slot) and runtime side by side: a window whose
    lists disagree is an error, never a silently shorter window."""
    profile = Profile([Node(0, 1.0, 1.0), Node(1, 1.0, 1.0)], [[], []], 0.0, 10.0)
    slot_list = SlotList.of(profile)
    slots = tuple(SlotList.slot(row) for row in slot_list.rows)
    for runtimes in ((2.0,), (2.0, 2.0, 2.0)):
        window = RoughWindow(0.0, (0, 1), runtimes, 4.0, slots)
        with pytest.raises(ValueError, match="zip"):
            slot_list.subtract(window)
        with pytest.raises(ValueError, match="zip"):
            subtract(profile.copy(), window)
