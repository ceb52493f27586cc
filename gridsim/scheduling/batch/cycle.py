"""Alternatives for every job of a batch: one scheduling cycle's first phase [TYTB11, Sec. 2].

Consumes a ``Profile`` (the free slots), the batch in priority order and a window search (ALP or
AMP); produces, per job, the list of alternative windows found, none of which share processor
time with another.

The cycle passes over the batch again and again. In each pass every job, highest priority first,
gets at most one new alternative, and each window found is subtracted from the slots before the
next job searches. The cycle ends when a whole pass finds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridsim.profile import Profile
from gridsim.scheduling.batch.search import WindowSearch
from gridsim.scheduling.batch.slots import SlotList
from gridsim.scheduling.batch.window import BatchJob, RoughWindow


def find_alternatives(
    profile: Profile, jobs: Sequence[BatchJob], search: WindowSearch
) -> list[list[RoughWindow]]:
    """Alternatives per job, found by ``search`` with slot subtraction.

    The caller's profile is left unchanged; the search works on a copy of its slots
    (:class:`~gridsim.scheduling.batch.slots.SlotList`). A job whose search
    failed once is not searched again: subtraction only removes free time, and both searches
    find a window whenever one exists, so it would fail again.

    Args:
        profile: the free slots at the start of the cycle.
        jobs: the batch, highest priority first.
        search: ``alp`` or ``amp`` (or any function of the same shape).

    Returns:
        ``alternatives[i]`` lists the windows of ``jobs[i]`` in the order found.

    Cost: one search (O(m) in the number ``m`` of slots) per window found plus one per job.
    """
    free = SlotList.of(profile)
    alternatives: list[list[RoughWindow]] = [[] for _ in jobs]
    searching = list(range(len(jobs)))
    while searching:
        still_searching = []
        for i in searching:
            window = search(free, jobs[i])
            if window is None:
                continue
            alternatives[i].append(window)
            free.subtract(window)
            still_searching.append(i)
        searching = still_searching
    return alternatives


def subtract(profile: Profile, window: RoughWindow) -> None:
    """Take each task's interval ``[start, start + runtime)`` out of its node's free time."""
    profile.occupy_updating_table(
        (node, window.start, window.start + runtime)
        for node, runtime in zip(window.nodes, window.runtimes, strict=True)
    )
