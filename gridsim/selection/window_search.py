"""General square window search [TY18, Sec. 3.2] with exact slot subset allocation.

Consumes a :class:`~gridsim.profile.SlotTable`, a :class:`~gridsim.model.Request` and a
criterion; produces the best :class:`~gridsim.model.Window`, or ``None`` when nothing fits.

The paper's procedure walks the performance groups from the fastest down and, inside a group,
the slots in start order, keeping a candidate list ``S_W`` of slots that can still hold a task
of length ``T = V / P_k`` from the current start; at every step it allocates the best subset of
``n`` slots of ``S_W`` and keeps the best window seen. This module computes the same maximum
with the same candidate starts (the starts of the group's slots), reorganised for speed:

* A window whose slowest node has performance ``P_k`` must contain a slot of such a node. So
  every window is met exactly once as "slot ``sigma`` is the slowest task": ``sigma`` fixes the
  group and ``T``; the steps are the starts of group slots while ``sigma`` is in ``S_W``; the
  other ``n - 1`` tasks come from the candidates of that step. This makes the runtime of every
  window exactly ``V / min p`` (the paper's rule 3(c)v.A skips steps without such a slot).
* Each ``sigma`` gets an optimistic bound of the best window it can give; they are visited
  best bound first and the search stops when no bound can reach the tie floor of the best
  window found (branch and bound: exact, and most ``sigma`` are never evaluated).
* The steps of one ``sigma`` are evaluated together as a NumPy matrix (steps x candidates);
  the exact subset programme (:func:`~gridsim.selection.subset.best_subset`) runs only for
  steps whose bound still reaches the best window and whose unconstrained best subset breaks
  the budget.
* Criteria that take the cheapest subset at every step (window-level and Lite) read each
  step's ``n - 1`` cheapest candidates as the lowest set bits of a bitset over the slots in
  price order (:mod:`~gridsim.selection.candidates`), and their steps are evaluated ahead in a
  few large batches (:class:`~gridsim.selection.steps.CheapestRows`).

Which window wins among windows of equal value is the tie rule of
:mod:`~gridsim.selection.ties`: values within a tolerance of the best are tied, and the tied
window the paper's scan meets first wins (the faster group, the earlier start, ...). Every
window found is offered to :class:`~gridsim.selection.ties.Contenders`, which keeps those the
rule may still choose, so the choice depends neither on the order in which sigmas are visited
(their bounds are sums whose last bits depend on NumPy's SIMD kernels) nor on how batches are
cut. Values that decide a choice are summed in a fixed order
(:func:`~gridsim.selection.ties.window_value`), so they are the same on every machine; bounds,
which only prune, are raised by a slack for their rounding before they are compared with the
tie floor. ``tests/test_window_choices.py`` checks every criterion's window against the
choices recorded, also in a process whose NumPy runs without SIMD kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from gridsim.model import Request, Slot, Window
from gridsim.profile import SlotTable
from gridsim.selection.candidates import Candidates
from gridsim.selection.earliest import first_steps
from gridsim.selection.steps import CheapestRows, Step, steps_of
from gridsim.selection.ties import Choice, Contenders, with_slack


class SearchCriterion(Protocol):
    """What the search asks of a criterion (:class:`~gridsim.selection.criteria.Criterion`
    implements it; the search does not depend on the criteria)."""

    secondary_bound: float
    batch_limit: int
    takes_cheapest: bool

    def sigma_bounds(self, slots: Candidates, sigmas, runtimes, request: Request, joinable): ...

    def sigma_bound_ceilings(self, slots: Candidates, sigmas, runtimes, n: int): ...

    def choose(self, step: Step, count: int, contenders: Contenders) -> None: ...

    def row_values(self, step: Step, picks, total): ...

    def step_bounds(self, step: Step, count: int): ...


def find_window(table: SlotTable, request: Request, criterion: SearchCriterion) -> Window | None:
    """The best window for ``request`` under ``criterion`` (see module docstring)."""
    slots = Candidates.from_table(table, request)
    if request.n < 1 or len(slots) < request.n:
        return None
    runtime = request.runtime_on(slots.performance)
    sigmas = np.flatnonzero(slots.end - slots.start >= runtime * (1 - 1e-12))
    if len(sigmas) == 0:
        return None
    visits = VisitingOrder(slots, sigmas, runtime, request, criterion)
    if not visits.lazy:
        visits.extend(len(sigmas))
    contenders = Contenders()

    def reach(begin: int, end: int) -> int:
        """The first position in ``[begin, end)`` whose sigma cannot reach the tie floor of
        the best window found (else ``end``): sigmas are sorted by bound, so the search ends
        there."""
        visits.settle(end, contenders)
        end = min(end, len(visits.sigmas))
        below = visits.ceilings[begin:end] < contenders.floor
        return begin + int(np.argmax(below)) if below.any() else end

    first_step = first_steps(
        slots, visits.sigmas if not visits.lazy else sigmas, runtime, request.n
    )

    def outranked(begin: int, end: int, run: bool = False) -> np.ndarray:
        """Which of the sigmas visited at ``begin:end`` a window found outranks, whatever
        windows they hold (each starts no earlier than its slot, in its own step or later):
        they are skipped, and recorded as such (:class:`Contenders`). ``run``: only the
        first ones, up to the first that is not outranked."""
        if not contenders.choices or not contenders.skipping or end <= begin:
            return np.zeros(max(end - begin, 0), dtype=bool)
        chosen, ceilings = visits.sigmas[begin:end], visits.ceilings[begin:end]
        ranks = (criterion.secondary_bound, visits.performance[begin:end],
                 visits.start[begin:end], chosen, chosen)  # fmt: skip
        mask = contenders.outranked(ceilings, *ranks)
        if run and not mask.all():
            mask[int(np.argmin(mask)) :] = False
        if mask.any():
            contenders.skip(
                float(ceilings[mask].max()),
                lambda: (ceilings[mask], *(np.broadcast_to(r, mask.shape)[mask] for r in ranks)),
            )
        return mask

    def evaluate(chosen: np.ndarray) -> None:
        """Offer the windows of the sigmas ``chosen`` (slot indices)."""
        steps = steps_of(slots, chosen, runtime, request, first_step)
        if steps is not None:
            criterion.choose(steps, request.n - 1, contenders)

    if criterion.takes_cheapest:
        sigmas = visits.sigmas  # all of them: the criteria that take the cheapest are not lazy
        ahead = CheapestRows(
            slots, sigmas, runtime, request, criterion.row_values, first_step,
            criterion.step_bounds, lambda begin, end: ~outranked(begin, end),
        )  # fmt: skip

        def choose(chunk: slice) -> None:
            ahead.offer(chunk, reach, contenders)
    else:

        def choose(chunk: slice) -> None:
            chosen = visits.sigmas[chunk]
            evaluate(chosen[~outranked(chunk.start, chunk.stop)] if contenders.choices else chosen)

    position, batch = 0, 1
    while visits.settle(position + 1, contenders) > position:
        sigma = int(visits.sigmas[position])
        rank = (criterion.secondary_bound, float(visits.performance[position]),
                -float(visits.start[position]), -sigma, -sigma)  # fmt: skip
        if contenders.choices and contenders.outranks(float(visits.ceilings[position]), rank):
            # Past the first sigmas a window found outranks (of those in their final place;
            # any below the tie floor among them would end the search anyway).
            skipped = outranked(position, visits.settled(contenders), run=True)
            if skipped.any():
                position += int(skipped.sum())
                continue
        stop = reach(position, position + batch)
        if stop == position:
            break
        choose(slice(position, stop))
        position = stop
        # Doubling batches: few NumPy calls when many sigmas are needed, little waste when
        # the first one settles the search.
        batch = min(2 * batch, criterion.batch_limit)
    # Sigmas skipped by rank whose skip a better window found later undid: evaluated in full.
    unsettled = contenders.unsettled()
    if len(unsettled):
        contenders.skipping = False
        evaluate(unsettled)
    best = contenders.best()
    return None if best is None else _build_window(slots, best, request)


class VisitingOrder:
    """The candidate slowest slots in the order the search visits them, with their bounds.

    The order is by bound (then faster group, then earlier start); sigmas whose bound is
    ``-inf`` (no affordable window) are left out. Computing every sigma's bound is a large
    part of a search, and a search usually visits a few of a hundred sigmas, so for criteria
    with cheap ceilings of their bounds
    (:meth:`~gridsim.selection.criteria.SlotCriterion.sigma_bound_ceilings`, never
    below the bound) bounds are computed in blocks, highest ceiling first, only as far as the
    search needs: the first ``k`` sigmas of the order are known once the ``k``-th known bound
    is above every ceiling not yet computed, and the sigmas left are never visited once their
    ceilings cannot reach the best window found. A sigma's bound does not depend on which
    other sigmas are computed with it (every quantity is per pair or per row), so the order,
    the bounds and hence every choice are those of computing all bounds at once.
    """

    #: Sigmas whose bounds are computed in the first block; each next block is twice as large.
    FIRST_BLOCK = 24

    def __init__(self, slots: Candidates, sigmas, runtime, request: Request, criterion) -> None:
        self.slots, self.runtime, self.request, self.criterion = slots, runtime, request, criterion
        ceilings = None
        if not criterion.takes_cheapest:
            ceilings = criterion.sigma_bound_ceilings(slots, sigmas, runtime[sigmas], request.n)
        self.lazy = ceilings is not None
        if self.lazy:
            ceilings = np.where(np.isnan(ceilings), np.inf, ceilings)
            by_ceiling = np.argsort(-ceilings, kind="stable")
            by_ceiling = by_ceiling[ceilings[by_ceiling] > -np.inf]
            sigmas, ceilings = sigmas[by_ceiling], ceilings[by_ceiling]
        self._pending, self._ceilings = sigmas, ceilings
        self.sigmas, self.bounds = np.empty(0, dtype=np.int64), np.empty(0)
        #: The bounds raised by the slack of their sums (what the tie floor is compared with).
        self.ceilings = np.empty(0)
        #: The sigmas' performance and start (their windows' highest rank).
        self.performance, self.start = np.empty(0), np.empty(0)
        self._block = self.FIRST_BLOCK

    def settle(self, end: int, contenders: Contenders | None) -> int:
        """Compute bounds until the first ``end`` sigmas of the order are known, or the
        sigmas not yet computed cannot reach the tie floor of the best window found; the
        number of sigmas known."""
        while len(self._pending) and self.lazy:
            top = self._ceilings[0]
            if end <= len(self.sigmas) and self.bounds[end - 1] > top:
                break
            if contenders is not None and top < contenders.floor:
                break  # below the tie floor: not visited, whatever the ranks
            self.extend(self._block)
            self._block *= 2
        return len(self.sigmas)

    def settled(self, contenders: Contenders) -> int:
        """How many of the sigmas known are in their final place: those whose bound is above
        every ceiling not yet computed (all, if those cannot reach the tie floor)."""
        if not self.lazy or not len(self._pending) or self._ceilings[0] < contenders.floor:
            return len(self.sigmas)
        return int(np.searchsorted(-self.bounds, -self._ceilings[0], side="left"))

    def extend(self, count: int) -> None:
        """Compute the bounds of the next ``count`` sigmas and merge them into the order."""
        sigmas, self._pending = self._pending[:count], self._pending[count:]
        if self._ceilings is not None:
            self._ceilings = self._ceilings[count:]
        runtimes = self.runtime[sigmas]
        joinable = Joinable.of(self.slots, sigmas, runtimes, self.request)
        bounds = self.criterion.sigma_bounds(self.slots, sigmas, runtimes, self.request, joinable)
        sigmas = np.concatenate((self.sigmas, sigmas))
        bounds = np.concatenate((self.bounds, bounds))
        # Visit the most promising sigma first: bound, then faster group, then earlier start;
        # sigmas that cannot form an affordable window (bound -inf) are dropped; a bound of
        # +inf (a distance criterion in a slot open to the right) is kept.
        # Equal keys: the lower slot index first, as a stable sort of all sigmas would give.
        slots = self.slots
        order = np.lexsort((sigmas, slots.start[sigmas], -slots.performance[sigmas], -bounds))
        order = order[bounds[order] > -np.inf]
        self.sigmas, self.bounds = sigmas[order], bounds[order]
        self.ceilings = with_slack(self.bounds)
        self.performance, self.start = slots.performance[self.sigmas], slots.start[self.sigmas]


@dataclass(frozen=True)
class Joinable:
    """Which slots can join each candidate slowest slot ``sigma``, within the budget.

    A slot can join ``sigma`` if it is at least as fast, long enough for the task, and
    overlaps the range of starts ``sigma`` allows by the runtime. Affordability: ``sigma``
    plus its ``n - 1`` cheapest joiners must fit the budget, and a joiner must fit it together
    with ``sigma`` and the ``n - 2`` cheapest joiners. Cost: O(sigmas x slots), paid on
    first use of either attribute (only ``affordable`` without a budget costs O(sigmas)).
    """

    slots: Candidates
    sigmas: np.ndarray
    runtimes: np.ndarray  # (sigmas,)
    request: Request

    @classmethod
    def of(cls, slots: Candidates, sigmas, runtimes, request: Request) -> Joinable:
        return cls(slots, sigmas, runtimes, request)

    @property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The (sigma position, slot) pairs that can join, in row-major order."""
        row, col, _ = self._joined
        return row, col

    @property
    def affordable(self) -> np.ndarray:
        """(sigmas,) bool; without a budget to price joiners, no (sigmas x slots) matrix."""
        return self._joined[2] if self._priced else self._budget_left >= 0

    @property
    def _priced(self) -> bool:
        # Without a budget every sigma is affordable and no joiner is priced out (a sigma with
        # fewer than n - 1 joiners gets its bound from the missing ones), so skip the costs.
        return self.request.n > 1 and bool(np.isfinite(self.request.budget))

    @cached_property
    def _budget_left(self) -> np.ndarray:
        return self.request.budget - self.runtimes * self.slots.price[self.sigmas]

    @cached_property
    def _joined(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows (sigma positions) and columns (slots) of the joinable pairs in the (sigmas,
        slots) matrix, in row-major order, and which sigmas are affordable."""
        slots, sigmas, runtimes = self.slots, self.sigmas, self.runtimes
        perf = slots.performance
        runtime = runtimes[:, None]
        can_join = (
            (perf[None, :] >= perf[sigmas][:, None])
            & (slots.start[None, :] <= (slots.end[sigmas] - runtimes)[:, None])
            & (slots.end[None, :] >= slots.start[sigmas][:, None] + runtime)
            & (slots.end[None, :] - slots.start[None, :] >= runtime * (1 - 1e-12))
        )
        can_join[np.arange(len(sigmas)), sigmas] = False
        row, col = np.nonzero(can_join)  # row-major, as divmod of flatnonzero would give
        budget_left = self._budget_left
        affordable = budget_left >= 0
        if self._priced:
            others = self.request.n - 1
            pair_cost = runtimes[row] * slots.price[col]
            # Only sigmas with budget left and n - 1 joiners can be affordable: their rows of
            # the cost matrix (inf where a slot cannot join) are partitioned, each on its own.
            affordable &= np.bincount(row, minlength=len(sigmas)) >= others
            priced = np.flatnonzero(affordable)
            cost = np.full((len(priced), len(slots)), np.inf)
            cost_row = np.cumsum(affordable) - 1  # a priced sigma's row in ``cost``
            kept = affordable[row]
            cost[cost_row[row[kept]], col[kept]] = pair_cost[kept]
            cost.partition(others - 1, axis=1)  # in place: np.partition would copy it first
            cheapest = cost[:, :others]
            total = np.full(len(sigmas), np.inf)
            total[priced] = cheapest.sum(axis=1)
            # Sums in whatever order the partition left: pruning only, with slack (the rows'
            # costs, summed in price order, decide what is affordable).
            budget_left = with_slack(budget_left)
            affordable &= total <= budget_left
            rest_cost = np.full(len(sigmas), np.inf)
            rest_cost[priced] = total[priced] - cheapest.max(axis=1)
            rest_cost[~affordable] = np.inf
            fits = pair_cost + rest_cost[row] <= budget_left[row]
            row, col = row[fits], col[fits]
        return row, col, affordable


def _build_window(slots: Candidates, choice: Choice, request: Request) -> Window:
    chosen = sorted((choice.sigma, *choice.others), key=lambda i: int(slots.node[i]))
    cost_sigma = choice.runtime * slots.price[choice.sigma]
    cost = float(cost_sigma + sum(choice.runtime * slots.price[i] for i in choice.others))
    return Window(
        start=choice.start,
        runtime=choice.runtime,
        nodes=tuple(int(slots.node[i]) for i in chosen),
        slots=tuple(
            Slot(int(slots.node[i]), float(slots.slot_start[i]), float(slots.end[i]))
            for i in chosen
        ),
        cost=cost,
        criterion_value=choice.value,
    )
