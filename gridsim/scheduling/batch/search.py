"""Search for one window of one job: ALP and AMP [TYTB11, Sec. 3].

Consumes a ``SlotTable`` (free slots sorted by start) and a ``BatchJob``; produces the earliest
``RoughWindow`` the algorithm accepts, or ``None`` when the slots run out first.

Both searches make one forward pass over the slots. A slot joins the candidate window when it is
fast enough and long enough for its task; when a later slot joins, the window start moves to that
slot's start and candidates that can no longer hold their task to its end are dropped. ALP also
rejects each slot dearer than the job's price cap and stops at ``N`` candidates; AMP accepts
any price and stops as soon as the ``N`` cheapest candidates fit the window budget. With ``w``
candidates at most, the cost is O(m w) for ``m`` slots (AMP adds an O(w log w) sort per step):
linear in the number of slots.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gridsim.profile import SlotTable
from gridsim.scheduling.batch.window import BatchJob, RoughWindow

#: A window search: (slots, job) -> the window it accepts, or None.
WindowSearch = Callable[[SlotTable, BatchJob], RoughWindow | None]


def alp(table: SlotTable, job: BatchJob) -> RoughWindow | None:
    """Algorithm based on Local Price: every slot's price must be at most ``job.price_cap``."""
    return _forward_pass(table, job, price_capped=True)


def amp(table: SlotTable, job: BatchJob) -> RoughWindow | None:
    """Algorithm based on Maximal job Price: the window's total cost must fit ``job.budget``."""
    return _forward_pass(table, job, price_capped=False)


SEARCHES: dict[str, WindowSearch] = {"ALP": alp, "AMP": amp}


def _forward_pass(table: SlotTable, job: BatchJob, price_capped: bool) -> RoughWindow | None:
    runtime = job.task_runtime(table.performance)
    # Conditions a) and b) (and c) for ALP) do not depend on the window, so test them for all
    # slots at once and walk only the suited ones.
    suited = (table.performance >= job.min_performance) & (table.start + runtime <= table.end)
    if price_capped:
        suited &= table.price <= job.price_cap
    index = np.flatnonzero(suited)
    if len(index) < job.n:
        return None
    starts = table.start[index].tolist()
    ends = table.end[index].tolist()
    runtimes = runtime[index].tolist()
    costs = (table.price[index] * runtime[index]).tolist()
    budget = job.budget
    candidates: list[int] = []
    for k, start in enumerate(starts):
        # The window now starts at this slot's start: keep candidates that still hold their task.
        candidates = [c for c in candidates if start + runtimes[c] <= ends[c]]
        candidates.append(k)
        if len(candidates) < job.n:
            continue
        if price_capped:
            return _window(table, index, candidates, start, runtimes, costs)
        cheapest = sorted(candidates, key=lambda c: (costs[c], c))[: job.n]
        if sum(costs[c] for c in cheapest) <= budget:
            return _window(table, index, cheapest, start, runtimes, costs)
    return None


def _window(
    table: SlotTable,
    index: np.ndarray,
    chosen: list[int],
    start: float,
    runtimes: list[float],
    costs: list[float],
) -> RoughWindow:
    chosen = sorted(chosen, key=lambda c: int(table.node[index[c]]))
    return RoughWindow(
        start=start,
        nodes=tuple(int(table.node[index[c]]) for c in chosen),
        runtimes=tuple(runtimes[c] for c in chosen),
        cost=sum(costs[c] for c in chosen),
        slots=tuple(table.slot(int(index[c])) for c in chosen),
    )
