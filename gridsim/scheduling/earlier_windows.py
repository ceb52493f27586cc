"""Can a reserved job get an earlier window? A cheap test that rules out most window searches.

Consumes the profile's slot table (with the job's own window still reserved), the job's request
and its reserved window; produces ``False`` only when no window for the job can be earlier than
the reserved one (no later in start and finish, and earlier in one: what re-planning keeps),
once the reserved window is released. Re-planning a job (compression, FCFS's and EASY's
queue walks) can then keep its window without releasing it and searching: the search could
only return a window that is not earlier, and the old one would be reserved again.

How: a window of ``n`` tasks starting at ``t`` needs ``n`` eligible nodes each free over
``[t, t + T)``, and ``T >= V / p`` on a node of performance ``p`` (a window lasts ``V`` over its
slowest node's performance). So a free interval ``[a, b)`` of a node can hold a task starting
at ``t`` only for ``t`` in ``[a, b - V / p]``; on the reserved window's own nodes the interval
that ends where the window starts runs on through it once it is released. An earlier window
must start by a bound ``B`` that follows from the reserved start and finish; the test counts,
with a sweep over these start ranges, whether ``n`` of them overlap somewhere in
``[earliest start, B]``. Budgets are ignored, and every comparison leans towards "maybe" by
:data:`SLACK`, so the test only ever lets a search run that was not needed, never skips one
that was.

Cost: a dozen NumPy calls over the slot table (tens of microseconds for hundreds of slots)
against a window search's milliseconds; one compiled pass where the extension is built
(``gridsim/core/_earlier_windows.c``, the same answer).
"""

from __future__ import annotations

import numpy as np

from gridsim.core import search as compiled_search
from gridsim.model import Window
from gridsim.profile import SlotTable

#: Every comparison is widened by this much (s) towards "a window may exist": far above the
#: rounding of times (an ulp at 1e8 s is 1.5e-8 s) and of the planners' tolerance.
SLACK = 1e-6


def may_move_earlier(
    table: SlotTable,
    performance: np.ndarray,
    n: int,
    min_performance: float,
    earliest_start: float,
    old: Window,
    tolerance: float,
) -> bool:
    """Whether some window for the job might be earlier than ``old`` (module docstring).

    Args:
        table: the profile's slots, ``old`` still reserved in them.
        performance: every node's performance, by node id.
        n: nodes the job needs.
        min_performance: the slowest node the job accepts.
        earliest_start: no window starts before this (the job's arrival, or now).
        old: the job's reserved window. Its runtime times its slowest node's performance is
            the volume the criterion searches with (a criterion may shorten the job's own,
            as BFshort does).
        tolerance: times closer than this are equal (the planners' ``TIME_TOLERANCE``).
    """
    module = compiled_search.compiled()
    if module is not None:
        return module.may_move_earlier(
            table.node, table.start, table.end, table.performance, performance,
            tuple(old.nodes), n, min_performance, earliest_start, old.start, old.runtime,
            tolerance, SLACK,
        )  # fmt: skip
    on_old = np.zeros(len(performance), dtype=bool)
    on_old[list(old.nodes)] = True
    old_performance = performance[on_old]
    slowest = float(old_performance.min())
    volume = old.runtime * slowest
    eligible = table.performance >= min_performance
    on_old_row = on_old[table.node]
    # The free interval that ends where ``old`` starts, on one of its nodes: it runs on
    # through ``old`` once ``old`` is released.
    touching = on_old_row & (table.end >= old.start - SLACK) & (table.start <= old.start + SLACK)
    if _starts_before(table, n, volume, earliest_start, old, eligible, touching, tolerance):
        return True
    # A window starting with ``old`` on faster nodes only (so finishing earlier): ``old``'s
    # own faster nodes are free for it once ``old`` is released; other nodes need a free
    # interval around ``old``'s start long enough for ``V / p``.
    faster = eligible & (table.performance > slowest) & ~on_old_row
    range_end = table.end + SLACK - volume / table.performance
    around = (table.start <= old.start + tolerance) & (range_end > old.start - tolerance)
    faster_old = int(np.count_nonzero(old_performance > slowest))
    return int(np.count_nonzero(faster & around)) + faster_old >= n


def _starts_before(table, n, volume, earliest_start, old, eligible, touching, tolerance):
    """Whether ``n`` nodes might hold a window starting before ``old`` and finishing no later.

    A window starting at ``t`` on a node of performance ``p`` lasts at least ``V / p``, so a
    free interval ``[a, b)`` holds its task only for ``t`` in ``[a, min(b, old finish) - V / p]``
    (on ``old``'s nodes, the interval ending where ``old`` starts runs to its finish).
    """
    latest = old.start - tolerance  # strictly earlier starts only (as ``earlier`` decides)
    if earliest_start >= latest:
        return False
    range_start = np.maximum(table.start, earliest_start)
    end = np.where(touching, old.finish, np.minimum(table.end, old.finish))
    range_end = end + (tolerance + SLACK) - volume / table.performance
    keep = eligible & (range_start < latest) & (range_start < range_end)
    if int(np.count_nonzero(keep)) < n:
        return False
    opens = range_start[keep]
    times = np.concatenate((opens, range_end[keep]))
    change = np.concatenate((np.ones(len(opens)), -np.ones(len(opens))))
    order = np.lexsort((change, times))  # a range ending at t closes before one opening at t
    return bool(np.cumsum(change[order]).max() >= n)


def may_start_at(
    table: SlotTable,
    n: int,
    volume: float,
    min_performance: float,
    time: float,
    tolerance: float,
    released: Window | None = None,
) -> bool:
    """Whether a window for the job might start at ``time``: ``n`` eligible nodes each free
    over ``[time, time + volume / p]``, with the window ``released`` (reserved in ``table``)
    counted as free, and the interval ending where it starts as running on for ever.

    ``volume`` is the volume the criterion searches the job with (learnt from a window it
    gave the job: runtime times slowest performance). Leans towards "maybe" as
    :func:`may_move_earlier` does.
    """
    end = table.end
    if released is not None:
        on_released = np.zeros(max(int(table.node.max(initial=0)), *released.nodes) + 1, bool)
        on_released[list(released.nodes)] = True
        touching = (
            on_released[table.node]
            & (table.end >= released.start - SLACK)
            & (table.start <= released.start + SLACK)
        )
        end = np.where(touching, np.inf, end)
    covers = (
        (table.performance >= min_performance)
        & (table.start <= time + tolerance)
        & (end + SLACK - volume / table.performance >= time - tolerance)
    )
    return int(np.count_nonzero(covers)) >= n
