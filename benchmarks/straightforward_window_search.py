"""A straightforward implementation of the general window search [TY18, Sec. 3.2], the
baseline of ``bench_window_search.py``.

The paper's loops as written: every performance group from the fastest down, every slot of the
group in start order, the candidate list ``S_W`` kept by adding and expiring slots, and at every
step the exact subset allocation (eq. 2, gridsim's :func:`best_subset`) over ``S_W`` with the
group's own slot forced in (so the runtime is ``V / min p``). No bounds, no batching.
"""

from __future__ import annotations

import numpy as np

from gridsim.model import Request
from gridsim.profile import Profile
from gridsim.selection.subset import best_subset

Z_FUNCTIONS = {
    "MaxQ": lambda left, right, q: q,
    "DEP": lambda left, right, q: min(left, right),
    "COORD": lambda left, right, q: -max(left, right),
}


def straightforward_search(profile: Profile, request: Request, criterion: str):
    """(value, start, runtime, nodes) of the best window, or None."""
    z_of = Z_FUNCTIONS[criterion]
    table = profile.slot_table()
    start = np.maximum(table.start, request.earliest_start)
    slots = sorted(
        (float(start[i]), int(table.node[i]), float(table.start[i]), float(table.end[i]),
         float(table.performance[i]), float(table.price[i]), float(table.q[i]))
        for i in range(len(table)) if table.performance[i] >= request.min_performance
    )  # fmt: skip
    groups = sorted({s[4] for s in slots}, reverse=True)
    best = None
    for group in groups:
        runtime = request.volume / group
        candidates: list[tuple] = []
        for slot in slots:
            t, _node, _a, end, perf, _price, _q = slot
            if perf < group or end - t < runtime:
                continue
            candidates.append(slot)
            candidates = [c for c in candidates if c[3] >= t + runtime]
            own = [c for c in candidates if c[4] == group]
            if not own or len(candidates) < request.n:
                continue
            for forced in own:
                others = [c for c in candidates if c is not forced]
                values = [z_of(t - c[2], c[3] - t - runtime, c[6]) for c in others]
                costs = [runtime * c[5] for c in others]
                budget = request.budget - runtime * forced[5]
                chosen = best_subset(values, costs, request.n - 1, budget)
                if chosen is None:
                    continue
                value = z_of(t - forced[2], forced[3] - t - runtime, forced[6]) + sum(
                    values[i] for i in chosen
                )
                if best is None or value > best[0]:
                    nodes = tuple(sorted([forced[1], *(others[i][1] for i in chosen)]))
                    best = (value, t, runtime, nodes)
    return best
