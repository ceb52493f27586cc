"""Search for one window of one job: ALP and AMP [TYTB11, Sec. 3].

Consumes the free slots sorted by start (a ``SlotList``, or a ``SlotTable``) and a ``BatchJob``;
produces the earliest ``RoughWindow`` the algorithm accepts, or ``None`` when the slots run out
first.

Both searches make one forward pass over the slots. A slot joins the candidate window when it is
fast enough and long enough for its task; when a later slot joins, the window start moves to that
slot's start and candidates that can no longer hold their task to its end are dropped. ALP also
rejects each slot dearer than the job's price cap and stops at ``N`` candidates; AMP accepts
any price and stops as soon as the ``N`` cheapest candidates fit the window budget. With ``w``
candidates at most, the cost is O(m w) for ``m`` slots (AMP adds an O(w log w) sort per step):
linear in the number of slots. The pass is plain Python over the slot tuples: a cycle runs
hundreds of short searches, where NumPy's per-call cost would outweigh its speed.
"""

from __future__ import annotations

from collections.abc import Callable

from gridsim.profile import SlotTable
from gridsim.scheduling.batch.slots import Row, SlotList
from gridsim.scheduling.batch.window import BatchJob, RoughWindow

#: A window search: (slots, job) -> the window it accepts, or None.
WindowSearch = Callable[[SlotList | SlotTable, BatchJob], RoughWindow | None]


def alp(slots: SlotList | SlotTable, job: BatchJob) -> RoughWindow | None:
    """Algorithm based on Local Price: every slot's price must be at most ``job.price_cap``."""
    return _forward_pass(_rows(slots), job, price_capped=True)


def amp(slots: SlotList | SlotTable, job: BatchJob) -> RoughWindow | None:
    """Algorithm based on Maximal job Price: the window's total cost must fit ``job.budget``."""
    return _forward_pass(_rows(slots), job, price_capped=False)


SEARCHES: dict[str, WindowSearch] = {"ALP": alp, "AMP": amp}


def _rows(slots: SlotList | SlotTable) -> list[Row]:
    return (slots if isinstance(slots, SlotList) else SlotList.of(slots)).rows


def _forward_pass(rows: list[Row], job: BatchJob, price_capped: bool) -> RoughWindow | None:
    work = job.work  # a task on performance p lasts work / p
    min_performance, price_cap, n, budget = job.min_performance, job.price_cap, job.n, job.budget
    # Candidates: (slot, runtime, cost, end, order); order breaks AMP's ties on cost.
    candidates: list[tuple[Row, float, float, float, int]] = []
    for order, row in enumerate(rows):
        start, _node, end, performance, price = row
        # Conditions a) and b) (and c) for ALP): the slot suits the job.
        if performance < min_performance:
            continue
        runtime = work / performance
        if start + runtime > end or (price_capped and price > price_cap):
            continue
        # The window now starts at this slot's start: keep candidates that still hold their task.
        candidates = [c for c in candidates if start + c[1] <= c[3]]
        candidates.append((row, runtime, price * runtime, end, order))
        if len(candidates) < n:
            continue
        if price_capped:
            return _window(start, candidates)
        cheapest = sorted(candidates, key=lambda c: (c[2], c[4]))[:n]
        if sum(c[2] for c in cheapest) <= budget:
            return _window(start, cheapest)
    return None


def _window(start: float, chosen: list[tuple[Row, float, float, float, int]]) -> RoughWindow:
    chosen = sorted(chosen, key=lambda c: c[0][1])
    return RoughWindow(
        start=start,
        nodes=tuple(c[0][1] for c in chosen),
        runtimes=tuple(c[1] for c in chosen),
        cost=sum(c[2] for c in chosen),
        slots=tuple(SlotList.slot(c[0]) for c in chosen),
    )
