"""A plain reference of the general square window search [TY18, Sec. 3.2], for the tests.

Written from the paper's steps, not from :mod:`gridsim.selection.window_search`, and slow on
purpose: no bounds, no pruning, every ``n``-subset of the candidate list is tried.

1. Groups ``P_k``: the distinct node performances (at least ``request.min_performance``),
   from the fastest down; group ``P_k`` holds the slots of nodes with performance ``>= P_k``.
2. Per group: ``T_k = V / P_k``; the group's slots in order of start (ties: node id),
   the start clamped to ``request.earliest_start``.
   (ii) a slot shorter than ``T_k`` (from its clamped start) is skipped;
   (iii) the window start is the slot's (clamped) start;
   (iv) the slot joins the candidate list ``S_W``;
   (v.B) candidates that end before ``start + T_k`` leave ``S_W``;
   (v.A) the step counts only if ``S_W`` holds a slot of a node of performance exactly
   ``P_k`` -- and the chosen subset must hold one, so that the window's runtime is
   ``V / min p`` of its nodes;
   (vi) every ``n``-subset of ``S_W`` holding such a slot and costing at most the budget
   (cost ``T_k * price`` per slot) is a window of this step.
3. The subset of a step: window-level criteria take any affordable subset (the cheapest);
   additive criteria the best sum of per-slot values ``z``; Lite criteria the cheapest subset,
   scored by its sum of ``z``.
4. The best window overall by gridsim's tie rule (:func:`by_tie_rule`, the tolerance imported
   from :mod:`gridsim.selection.ties`): among the windows whose value is tied with the largest,
   the larger secondary value (only MinStart has one: minus the cost), then the faster group,
   the earlier start, the earlier step (a later step of the same start sees more slots).
   gridsim also orders windows of one start by their slowest slot, which the paper's steps do
   not separate: the tests compare values, groups and starts.
5. FirstFit under [TY19]'s reading (:data:`FIRST_FOUND`): the first window steps 1-3 meet.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import numpy as np

from gridsim.model import Request
from gridsim.profile import Profile
from gridsim.selection.ties import tie_floor

#: Criteria whose value depends on the window only: value(start, runtime).
WINDOW_LEVEL = {
    "FirstFit": lambda start, runtime: -start,
    "MinStart": lambda start, runtime: -start,
    "MinFinish": lambda start, runtime: -(start + runtime),
    "MinRuntime": lambda start, runtime: -runtime,
}


#: FirstFit under [TY19]'s reading, "the first suitable and affordable window found".
FIRST_FOUND = "FirstFit(first_fit=first_found)"


def _z_values(name, start, runtime, slot_start, slot_end, q, cost):
    """Per-slot values ``z`` of an additive criterion for a window at ``start``."""
    left = start - slot_start
    right = slot_end - (start + runtime)
    if name == "MinCost":
        return -cost
    if name == "MaxQ":
        return q
    if name == "DEP":
        return np.minimum(left, right)
    if name == "COORD":
        # A slot with no neighbour on the left (it starts at -inf) is measured on the right.
        return -np.where(np.isinf(left), right, np.maximum(left, right))
    raise KeyError(name)


#: Additive criteria solved exactly (best sum of z) and their per-slot value.
ADDITIVE = ("MinCost", "MaxQ", "DEP", "COORD")
#: Lite criteria: the cheapest subset, scored by the z of the named additive criterion.
LITE = {"MaxQLite": "MaxQ", "DEPLite": "DEP", "COORDLite": "COORD"}
ALL = (*WINDOW_LEVEL, *ADDITIVE, *LITE)


@dataclass(frozen=True)
class ReferenceWindow:
    value: float
    secondary: float
    performance: float  # the group P_k
    start: float
    runtime: float
    nodes: tuple[int, ...]
    cost: float
    step: int  # the step's place in the group's slots in start order

    @property
    def rank(self):
        return (self.secondary, self.performance, -self.start, -self.step)


def by_tie_rule(windows):
    """The window gridsim's tie rule chooses (docs/model.md, "Ties"): among the windows whose
    value is within the tie tolerance of the largest, the one of the largest ``rank``."""
    if not windows:
        return None
    floor = tie_floor(max(w.value for w in windows))
    return max((w for w in windows if w.value >= floor), key=lambda w: w.rank)


@cache
def _combinations(m: int, n: int) -> np.ndarray:
    return np.array(list(itertools.combinations(range(m), n)), dtype=np.int64).reshape(-1, n)


def reference_search_all(profile: Profile, request: Request) -> dict[str, ReferenceWindow | None]:
    """The best window of every criterion in :data:`ALL` (None when nothing fits)."""
    nodes = profile.nodes
    performance = {node.id: node.performance for node in nodes}
    eligible = [s for s in profile.slots() if performance[s.node] >= request.min_performance]
    found: dict[str, list[ReferenceWindow]] = {name: [] for name in ALL}

    def offer(name, window):
        found[name].append(window)

    n = request.n
    if n < 1:
        return dict.fromkeys(ALL)
    for group in sorted({performance[s.node] for s in eligible}, reverse=True):
        runtime = request.volume / group
        members = [s for s in eligible if performance[s.node] >= group]
        members.sort(key=lambda s: (max(s.start, request.earliest_start), s.node))
        window_slots = []
        for position, slot in enumerate(members):
            start = max(slot.start, request.earliest_start)
            if slot.end - start < runtime:  # (ii)
                continue
            window_slots.append(slot)  # (iv)
            window_slots = [s for s in window_slots if start + runtime <= s.end]  # (v.B)
            if not any(performance[s.node] == group for s in window_slots):  # (v.A)
                continue
            if len(window_slots) < n:
                continue
            _step(window_slots, group, start, position, runtime, request, nodes, offer)
    best = {name: by_tie_rule(windows) for name, windows in found.items()}
    # [TY19]'s FirstFit: the first window the scan meets, whatever comes after it.
    best[FIRST_FOUND] = found["FirstFit"][0] if found["FirstFit"] else None
    return best


def _step(window_slots, group, start, position, runtime, request, nodes, offer):
    """(vi) every affordable n-subset of S_W with a slot of performance P_k."""
    node_ids = np.array([s.node for s in window_slots])
    slot_start = np.array([s.start for s in window_slots])
    slot_end = np.array([s.end for s in window_slots])
    perf = np.array([nodes[i].performance for i in node_ids])
    price = np.array([nodes[i].price for i in node_ids])
    q = np.array([nodes[i].q for i in node_ids])
    cost = runtime * price
    combos = _combinations(len(window_slots), request.n)
    has_own = (perf[combos] == group).any(axis=1)
    total_cost = cost[combos].sum(axis=1)
    affordable = has_own & (total_cost <= request.budget)
    if not affordable.any():
        return
    combos, total_cost = combos[affordable], total_cost[affordable]
    cheapest = int(np.argmin(total_cost))

    def window(value, secondary, row):
        return ReferenceWindow(
            float(value), float(secondary), group, start, runtime,
            tuple(sorted(int(i) for i in node_ids[combos[row]])), float(total_cost[row]), position,
        )  # fmt: skip

    for name, value in WINDOW_LEVEL.items():
        secondary = -total_cost[cheapest] if name == "MinStart" else 0.0
        offer(name, window(value(start, runtime), secondary, cheapest))
    for name in ADDITIVE:
        z = _z_values(name, start, runtime, slot_start, slot_end, q, cost)
        totals = z[combos].sum(axis=1)
        row = int(np.argmax(totals))
        offer(name, window(totals[row], 0.0, row))
    for name, additive in LITE.items():
        z = _z_values(additive, start, runtime, slot_start, slot_end, q, cost)
        offer(name, window(z[combos[cheapest]].sum(), 0.0, cheapest))


def reference_search(profile: Profile, request: Request, name: str) -> ReferenceWindow | None:
    return reference_search_all(profile, request)[name]
