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
  best bound first and the search stops when no bound can beat the best window found
  (branch and bound: exact, and most ``sigma`` are never evaluated).
* The steps of one ``sigma`` are evaluated together as a NumPy matrix (steps x candidates);
  the exact subset programme (:func:`~gridsim.selection.subset.best_subset`) runs only for
  steps whose bound still beats the best window and whose unconstrained best subset breaks
  the budget.

Ties are broken as the paper's scan meets windows: higher criterion value, then (for criteria
that say so) a secondary value, then the faster group, then the earlier start.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from gridsim.model import Request, Slot, Window
from gridsim.profile import SlotTable
from gridsim.selection.members import MemberSets
from gridsim.selection.subset import best_subset

if TYPE_CHECKING:
    from gridsim.selection.criteria import Criterion

_NEG = -np.inf
#: Rows whose Lagrangian bound is computed together (amortises NumPy call overhead).
_LAGRANGE_BLOCK = 32


@dataclass(frozen=True)
class Candidates:
    """The slots eligible for one request, re-sorted by their effective start."""

    node: np.ndarray
    slot_start: np.ndarray  # the free interval's own start (for L_left)
    start: np.ndarray  # max(slot_start, request.earliest_start)
    end: np.ndarray
    performance: np.ndarray
    price: np.ndarray
    q: np.ndarray

    @classmethod
    def from_table(cls, table: SlotTable, request: Request) -> Candidates:
        start = np.maximum(table.start, request.earliest_start)
        keep = (table.performance >= request.min_performance) & (table.end > start)
        if len(table) and table.start[0] >= request.earliest_start:
            # No start moved: the table's (start, node) order still holds.
            order = slice(None)
        else:
            order = np.lexsort((table.node[keep], start[keep]))
        return cls(
            node=table.node[keep][order],
            slot_start=table.start[keep][order],
            start=start[keep][order],
            end=table.end[keep][order],
            performance=table.performance[keep][order],
            price=table.price[keep][order],
            q=table.q[keep][order],
        )

    def __len__(self) -> int:
        return len(self.start)

    @cached_property
    def member_sets(self) -> MemberSets:
        """Bitsets for the members of many steps at once (built on first use)."""
        return MemberSets.of(self)


@dataclass(frozen=True)
class _Choice:
    """The best window of one ``sigma``: enough to build the Window at the end."""

    key: tuple[float, float, float, float]
    sigma: int
    start: float
    runtime: float
    others: tuple[int, ...]


def find_window(table: SlotTable, request: Request, criterion: Criterion) -> Window | None:
    """The best window for ``request`` under ``criterion`` (see module docstring)."""
    slots = Candidates.from_table(table, request)
    if request.n < 1 or len(slots) < request.n:
        return None
    runtime = request.volume / slots.performance
    sigmas = np.flatnonzero(slots.end - slots.start >= runtime * (1 - 1e-12))
    if len(sigmas) == 0:
        return None
    joinable = Joinable.of(slots, sigmas, runtime[sigmas], request)
    bounds = criterion.sigma_bounds(slots, sigmas, runtime[sigmas], request, joinable)
    # Visit the most promising sigma first: bound, then faster group, then earlier start;
    # sigmas that cannot form an affordable window are dropped.
    order = np.lexsort((slots.start[sigmas], -slots.performance[sigmas], -bounds))
    order = order[np.isfinite(bounds[order])]
    sigmas, bounds = sigmas[order], bounds[order]
    best: _Choice | None = None
    position, batch = 0, 1
    while position < len(sigmas):
        chunk = slice(position, position + batch)
        if best is not None:
            hopeful = _beats(
                best.key,
                bounds[chunk],
                criterion.secondary_bound,
                slots.performance[sigmas[chunk]],
                slots.start[sigmas[chunk]],
            )
            # Sorted by the same key as the bounds: the first sigma that cannot beat the best
            # ends the search.
            hopeful_count = len(hopeful) if hopeful.all() else int(np.argmin(hopeful))
            if hopeful_count == 0:
                break
            chunk = slice(position, position + hopeful_count)
        steps = _steps(slots, sigmas[chunk], runtime, request)
        if steps is not None:
            choice = criterion.choose(steps, request.n - 1, best)
            if choice is not None and (best is None or choice.key > best.key):
                best = choice
        position = chunk.stop
        # Doubling batches: few NumPy calls when many sigmas are needed, little waste when
        # the first one settles the search.
        batch = min(2 * batch, criterion.batch_limit)
    return None if best is None else _build_window(slots, best, request)


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
        return np.divmod(self._joined[0], len(self.slots))

    @property
    def affordable(self) -> np.ndarray:
        """(sigmas,) bool; without a budget to price joiners, no (sigmas x slots) matrix."""
        return self._joined[1] if self._priced else self._budget_left >= 0

    @property
    def _priced(self) -> bool:
        # Without a budget every sigma is affordable and no joiner is priced out (a sigma with
        # fewer than n - 1 joiners gets its bound from the missing ones), so skip the costs.
        return self.request.n > 1 and bool(np.isfinite(self.request.budget))

    @cached_property
    def _budget_left(self) -> np.ndarray:
        return self.request.budget - self.runtimes * self.slots.price[self.sigmas]

    @cached_property
    def _joined(self) -> tuple[np.ndarray, np.ndarray]:
        """Flat indices of the joinable pairs in the (sigmas, slots) matrix, and affordable."""
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
        pairs = np.flatnonzero(can_join)
        budget_left = self._budget_left
        affordable = budget_left >= 0
        if self._priced:
            others = self.request.n - 1
            row, col = np.divmod(pairs, len(slots))
            pair_cost = runtimes[row] * slots.price[col]
            cost = np.full(can_join.shape, np.inf)
            cost.ravel()[pairs] = pair_cost
            cheapest = np.partition(cost, others - 1, axis=1)[:, :others]
            total = cheapest.sum(axis=1)
            affordable &= total <= budget_left
            with np.errstate(invalid="ignore"):  # inf - inf where fewer than n-1 can join
                rest_cost = np.where(affordable, total - cheapest.max(axis=1), np.inf)
            pairs = pairs[pair_cost + rest_cost[row] <= budget_left[row]]
        return pairs, affordable


def _beats(key, bounds, secondary_bound, performance, start) -> np.ndarray:
    """Which bound keys ``(bound, secondary_bound, performance, -start)`` exceed ``key``."""
    value, secondary, perf, negative_start = key
    return (bounds > value) | (
        (bounds == value)
        & (
            (secondary_bound > secondary)
            | (
                (secondary_bound == secondary)
                & ((performance > perf) | ((performance == perf) & (-start > negative_start)))
            )
        )
    )


def _steps(slots: Candidates, sigmas: np.ndarray, runtime: np.ndarray, request: Request):
    """All steps of a batch of sigmas as one matrix (rows: steps, columns: candidate slots).

    A step of sigma is a group slot (performance >= sigma's, long enough for the task from its
    own start, rule 3(c)ii) that starts while sigma can still hold the task; its candidates
    are the group slots seen so far (index <= the step's) that still hold the task from the
    step's start (rule 3(c)v.B), sigma excluded.
    """
    task = runtime[sigmas]
    last = np.searchsorted(slots.start, slots.end[sigmas] - task, side="right")
    counts = np.maximum(last - sigmas, 0)
    total = int(counts.sum())
    if total == 0:
        return None
    row_sigma = np.repeat(sigmas, counts)
    row_runtime = np.repeat(task, counts)
    row_step = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts) + row_sigma
    perf = slots.performance
    keep = (perf[row_step] >= perf[row_sigma]) & (
        slots.end[row_step] - slots.start[row_step] >= row_runtime * (1 - 1e-12)
    )
    row_sigma, row_runtime, row_step = row_sigma[keep], row_runtime[keep], row_step[keep]
    row_start = slots.start[row_step]
    # sigma holds its task from the row's start exactly as the window will be reserved
    # (start + runtime <= end): `last` above compares end - runtime, which float rounding
    # can put an ulp on the other side
    fits = row_start + row_runtime <= slots.end[row_sigma]
    if not fits.all():
        row_sigma, row_runtime, row_step = row_sigma[fits], row_runtime[fits], row_step[fits]
        row_start = row_start[fits]
    if len(row_step) == 0:
        return None
    return _Step(
        slots=slots,
        sigma=row_sigma,
        runtime=row_runtime,
        start=row_start,
        step=row_step,
        budget_left=request.budget - row_runtime * slots.price[row_sigma],
    )


@dataclass(frozen=True)
class _Step:
    """Steps of a batch of sigmas: rows are (sigma, start) pairs, columns candidate slots.

    The cheapest members of every row come from bitsets (:meth:`cheapest`); the exact search
    builds the membership and cost matrices over ``columns``, on first use.
    """

    slots: Candidates
    sigma: np.ndarray  # (rows,) the row's slowest slot
    runtime: np.ndarray  # (rows,)
    start: np.ndarray  # (rows,)
    step: np.ndarray  # (rows,) index of the slot whose start is the row's start
    budget_left: np.ndarray  # (rows,) budget once sigma is paid for

    @cached_property
    def columns(self) -> np.ndarray:
        """(cols,) indices into slots, cheapest first: the slots some row could use."""
        slots = self.slots
        columns = np.arange(int(self.step.max()) + 1)
        # Only slots that some row could use: fast enough and still free at some row's finish.
        columns = columns[
            (slots.performance[columns] >= slots.performance[self.sigma].min())
            & (slots.end[columns] >= self._least_finish)
        ]
        return columns[np.argsort(slots.price[columns], kind="stable")]

    @property
    def _least_finish(self) -> float:
        """Columns end no earlier than this; ``* (1 - 1e-15)`` keeps a historical margin, which
        drops nothing a row can use unless finish times are negative."""
        return (self.start + self.runtime).min() * (1 - 1e-15)

    @cached_property
    def member(self) -> np.ndarray:
        """(rows, cols) bool: the column is in ``S_W`` at the row's step."""
        return self.member_block(np.arange(len(self.start)), slice(None))

    @cached_property
    def cost(self) -> np.ndarray:
        """(rows, cols) cost of each column for the row's runtime."""
        return self.runtime[:, None] * self.slots.price[self.columns][None, :]

    def compact(self, count: int) -> _Step | None:
        """The rows with at least ``count`` members, and the columns some row uses.

        The exact search builds (rows x columns) value matrices, so it pays to drop what no
        window can use first; the cheapest-subset scan does not need this.
        """
        member = self.member
        enough = member.sum(axis=1) >= count
        if not enough.any():
            return None
        used = member[enough].any(axis=0)
        compacted = _Step(
            slots=self.slots,
            sigma=self.sigma[enough],
            runtime=self.runtime[enough],
            start=self.start[enough],
            step=self.step[enough],
            budget_left=self.budget_left[enough],
        )
        compacted.__dict__["columns"] = self.columns[used]  # fill the cached properties
        compacted.__dict__["member"] = member[enough][:, used]
        return compacted

    def member_block(self, rows: np.ndarray, block: slice) -> np.ndarray:
        """Membership of some rows in a block of columns (rule 3(c)v.B, sigma excluded)."""
        slots, columns = self.slots, self.columns[block]
        finish = self.start[rows] + self.runtime[rows]
        return (
            (columns[None, :] <= self.step[rows][:, None])
            & (slots.performance[columns][None, :] >= slots.performance[self.sigma[rows]][:, None])
            & (slots.end[columns][None, :] >= finish[:, None])
            & (columns[None, :] != self.sigma[rows][:, None])
        )

    def key(self, row: int, value: float, secondary: float = 0.0) -> tuple[float, ...]:
        perf = float(self.slots.performance[self.sigma[row]])
        return (value, secondary, perf, -float(self.start[row]))

    def cheapest(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per row: the ``count`` cheapest members, their total cost, and affordability.

        The members are slot indices, ``(rows, count)``, cheapest first (ties: list order),
        ``-1`` where a row has fewer (:class:`~gridsim.selection.members.MemberSets`).
        """
        sets = self.slots.member_sets
        finish = self.start + self.runtime
        members = sets.members(self.step, finish, self.sigma, self.slots.performance[self.sigma])
        # The members are among ``columns`` (the same margin as there).
        members &= sets.free_from(self._least_finish)
        picks, found = sets.cheapest(members, count)
        complete = found == count
        price = self.slots.price
        total = self.runtime * np.where(picks >= 0, price[picks], 0.0).sum(axis=1)
        total = np.where(complete, total, np.inf)
        return picks, total, complete & (total <= self.budget_left)

    def choice(self, row: int, value: float, secondary: float, members) -> _Choice:
        """The window of ``row`` with the chosen members (slot indices)."""
        others = tuple(sorted(int(m) for m in members))
        return _Choice(
            self.key(row, value, secondary),
            int(self.sigma[row]),
            float(self.start[row]),
            float(self.runtime[row]),
            others,
        )


def choose_cheapest(step: _Step, count: int, score_rows, secondary_rows=None) -> _Choice | None:
    """Take the cheapest affordable subset at every step; keep the row with the best key.

    ``score_rows(step, picks, total)`` gives each row's window value for its cheapest
    members (``picks``: rows x count slot indices),
    ``secondary_rows(total)`` an optional tie-break value.
    """
    picks, total, affordable = step.cheapest(count)
    if not affordable.any():
        return None
    score = np.where(affordable, score_rows(step, picks, total), _NEG)
    secondary = np.zeros_like(score) if secondary_rows is None else secondary_rows(total)
    perf = step.slots.performance[step.sigma]
    # Best value, then secondary, then faster group, then earlier start.
    row = int(np.lexsort((step.start, -perf, -secondary, -score))[0])
    return step.choice(row, float(score[row]), float(secondary[row]), picks[row])


def choose_optimal(step: _Step, count: int, values, sigma_values, incumbent) -> _Choice | None:
    """Exact subset allocation at every step whose bound can still beat ``incumbent``.

    ``values`` is a (rows, cols) array of the columns' ``z`` at each step and
    ``sigma_values`` the (rows,) ``z`` of sigma itself. Rows are visited by their
    budget-free bound; a row whose best ``count`` columns fit the budget is solved by them;
    otherwise its Lagrangian bound (:func:`lagrangian_bounds`) is tried before the subset
    programme, which itself prunes against the incumbent.
    """
    rows = len(step.start)
    masked = np.where(step.member, values, _NEG)
    if count:
        top = np.argpartition(-masked, count - 1, axis=1)[:, :count]
        # Without a budget the best columns always fit: their cost is not needed.
        top_cost = np.zeros(rows)
        row_index = np.arange(rows)[:, None]  # plain indexing: take_along_axis costs more here
        if np.isfinite(step.budget_left).any():
            top_cost = step.cost[row_index, top].sum(axis=1)
        bound = sigma_values + masked[row_index, top].sum(axis=1)
    else:
        top = np.empty((rows, 0), dtype=np.int64)
        bound = sigma_values.copy()
        top_cost = np.zeros(rows)
    bound = np.where(step.budget_left >= 0, bound, _NEG)
    best = incumbent
    order = np.lexsort((np.arange(rows), -bound))
    relaxed = np.full(rows, np.nan)  # Lagrangian bounds, computed a block of rows at a time
    for position, row in enumerate(order):
        row = int(row)
        if not np.isfinite(bound[row]):
            break
        if best is not None:
            if bound[row] + 1e-9 < best.key[0]:
                break  # rows are in bound order: none of the rest can reach the best
            if step.key(row, float(bound[row]) + 1e-9) <= best.key:
                continue  # equal bound: a later row may still win the tie-break
        if top_cost[row] <= step.budget_left[row]:
            picks = top[row]
        else:
            members = np.flatnonzero(step.member[row])
            row_values, row_costs = values[row, members], step.cost[row, members]
            floor = -np.inf if best is None else best.key[0] - float(sigma_values[row]) - 1e-9
            if best is not None:
                if np.isnan(relaxed[row]):
                    block = order[position : position + _LAGRANGE_BLOCK]
                    relaxed[block] = lagrangian_bounds(
                        masked[block], step.cost[block], count, step.budget_left[block]
                    )
                if relaxed[row] <= floor:
                    continue
            chosen = best_subset(row_values, row_costs, count, step.budget_left[row], floor)
            if chosen is None:
                continue
            picks = members[list(chosen)]
        value = float(sigma_values[row] + values[row, picks].sum())
        choice = step.choice(row, value, 0.0, step.columns[picks])
        if best is None or choice.key > best.key:
            best = choice
    return best if best is not incumbent else None


def lagrangian_bounds(
    values: np.ndarray, costs: np.ndarray, count: int, budget: np.ndarray
) -> np.ndarray:
    """Upper bounds, per row, of the best ``count``-subset value within the row's budget.

    For any multiplier ``lam >= 0``, ``lam * budget + top_count(values - lam * costs)`` bounds
    the constrained optimum (relaxing the budget into the objective); the smallest over a
    geometric grid of multipliers is kept. ``values`` and ``costs`` are (rows, cols), with
    ``-inf`` values for non-members; ``budget`` is (rows,).
    """
    budget = np.asarray(budget, dtype=float)
    unconstrained = -np.partition(-values, count - 1, axis=1)[:, :count].sum(axis=1)
    finite_budget = np.isfinite(budget)
    if not finite_budget.any():
        return unconstrained
    finite = np.isfinite(values)
    scale = 1.0
    if finite.any():
        scale = np.abs(values[finite]).mean() / max(costs[finite].mean(), 1e-12)
    multipliers = max(scale, 1e-12) * 2.0 ** np.arange(-6, 7)
    adjusted = values[:, None, :] - multipliers[None, :, None] * costs[:, None, :]
    top = -np.partition(-adjusted, count - 1, axis=2)[:, :, :count]
    relaxed = multipliers[None, :] * np.where(finite_budget, budget, 0.0)[:, None] + top.sum(axis=2)
    return np.where(finite_budget, np.minimum(unconstrained, relaxed.min(axis=1)), unconstrained)


def _build_window(slots: Candidates, choice: _Choice, request: Request) -> Window:
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
        criterion_value=choice.key[0],
    )
