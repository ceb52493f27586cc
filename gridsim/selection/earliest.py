"""The earliest start a window can have: which steps of the window search cannot hold one.

Consumes the candidate slots of a request and its candidate slowest slots ``sigma``; produces,
per sigma, the first step (slot index) at which a window whose slowest slot is ``sigma`` could
start. Steps before it have fewer than ``n - 1`` members, so no criterion can choose them: the
search leaves them out, and with them most of the rows of a busy profile (a large job whose
window opens only when enough reservations end has hundreds of steps before that time on every
sigma that starts early).

Why it is a lower bound: a window of slowest performance ``p`` lasts ``T = V / p`` on nodes at
least that fast, so a slot ``[a, b)`` can hold one of its tasks only from a start in
``[a, b - T]``. A window starting at ``t`` needs ``n`` such start ranges over ``t``; a sweep
over the ranges finds the first time ``n`` of them overlap. Ranges are widened by
:data:`SLACK` so that rounding never makes the bound later than a window the search would find.
Skipping steps leaves the sigmas, their bounds, the visiting order and every remaining row as
they were, so the search chooses the same window (``tests/test_window_choices.py``).

Cost: one sort of the candidates per distinct sigma performance (up to :data:`MAX_LEVELS`; past
that, one sweep for all with each slot's own shortest task ``V / p_slot``).
"""

from __future__ import annotations

import numpy as np

from gridsim.selection.candidates import Candidates

#: Start ranges are widened by this much (time units): far above the rounding of times.
SLACK = 1e-6
#: Sigma performances swept one by one at most; beyond, one sweep bounds them all.
MAX_LEVELS = 8


def first_steps(slots: Candidates, sigmas: np.ndarray, runtime: np.ndarray, n: int) -> np.ndarray:
    """Per slot index (meaningful for ``sigmas``), the first step that can start a window
    with that slowest slot; ``len(slots)`` if none can.

    ``runtime`` is the task length on each slot as slowest (``V / performance``).
    """
    first = np.zeros(len(slots), dtype=np.int64)
    levels = np.unique(slots.performance[sigmas])
    if len(levels) > MAX_LEVELS:
        earliest = _first_overlap(slots.start, slots.end - runtime + SLACK, n)
        first[sigmas] = np.searchsorted(slots.start, earliest, side="left")
        return first
    for level in levels:
        at_level = sigmas[slots.performance[sigmas] == level]
        task = runtime[at_level[0]]  # the same division as the search's
        faster = slots.performance >= level
        earliest = _first_overlap(slots.start[faster], slots.end[faster] - task + SLACK, n)
        first[at_level] = np.searchsorted(slots.start, earliest, side="left")
    return first


def _first_overlap(opens: np.ndarray, closes: np.ndarray, n: int) -> float:
    """The first time ``n`` of the ranges ``[opens, closes)`` overlap; ``inf`` if never."""
    keep = opens < closes
    if int(np.count_nonzero(keep)) < n:
        return np.inf
    opens, closes = opens[keep], closes[keep]
    times = np.concatenate((opens, closes))
    change = np.concatenate((np.ones(len(opens), dtype=np.int64), -np.ones(len(opens), np.int64)))
    order = np.lexsort((change, times))  # a range closing at t ends before one opening at t
    reached = np.flatnonzero(np.cumsum(change[order]) >= n)
    return float(times[order[reached[0]]]) if len(reached) else np.inf
