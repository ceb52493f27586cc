"""The steps of the window search: rows (sigma, start) with their candidate members.

Consumes the candidate slots of a request and the candidate slowest slots ``sigma`` in the order
the search visits them; produces, per batch of sigmas, the steps as rows (:class:`Step`) and,
for criteria that take the cheapest affordable subset at every step (window-level and Lite
criteria, [TY18, Sec. 3.3; TY19, Sec. 4.2]), their windows, offered to the tie rule
(:class:`~gridsim.selection.ties.Contenders`).

Such a criterion's value at a step depends on that step alone, so the steps of the sigmas the
search will visit are evaluated ahead in a few large batches (:class:`CheapestRows`); the search
then offers each of its chunks' rows from them, exactly as if the chunk had been evaluated on
its own: every per-row quantity is computed row by row (elementwise, or reduced along the row),
so it does not depend on which other rows share the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from gridsim.model import Request
from gridsim.selection.candidates import Candidates
from gridsim.selection.ties import Choice, Contenders, ordered_sum

NEG_INF = -np.inf
#: A batch of steps evaluated ahead covers up to this many times the sigmas evaluated before.
#: (16 rather than 8: the Lite searches then bound and evaluate their steps in one batch
#: after the first 16 sigmas, whose best window usually skips most of the steps.)
_AHEAD = 16
#: Rows per sigma in the first block of ``Step.first_complete_rows``; each next block is 4x.
_FIRST_BLOCK = 8


class BoundingRecord:
    """Whether bounding a criterion's steps pays, from the share of steps its bounds skipped.

    A block bound costs about as much as evaluating two to four steps, so bounds that skip
    less than about half of the steps cost more than they save (DEPLite in a job flow skips
    13-37%, the Lite searches on the 100-node environment 79-85%). A criterion whose recent
    bounds skipped less than :attr:`WORTH` bounds only every :attr:`PROBE_EVERY`-th batch,
    to notice when that changes. It changes the time of a search, never its choice: a step
    evaluated rather than skipped is below the best window either way.
    """

    WORTH = 0.5
    PROBE_EVERY = 8

    def __init__(self) -> None:
        self.skipped: dict[type, float] = {}  # per criterion class: recent share skipped
        self.waited: dict[type, int] = {}  # per criterion class: batches not bounded since

    def wanted(self, criterion: type) -> bool:
        """Whether to bound the next batch of steps of a ``criterion`` (class)."""
        if self.skipped.get(criterion, 1.0) >= self.WORTH:
            return True
        waited = self.waited.get(criterion, 0) + 1
        self.waited[criterion] = waited % self.PROBE_EVERY
        return waited == self.PROBE_EVERY

    def record(self, criterion: type, share: float) -> None:
        """Note the share of a batch's steps that the bounds skipped (averaged with before)."""
        self.skipped[criterion] = (self.skipped.get(criterion, share) + share) / 2


#: What bounds have skipped in this process (only the time of searches depends on it).
BOUNDING = BoundingRecord()

#: A criterion's value of every row for its cheapest members: ``(step, picks, total) ->
#: (value, secondary)`` with ``secondary`` ``None`` when the criterion has no tie-break value.
RowValues = Callable[..., tuple[np.ndarray, np.ndarray | None]]
#: An upper bound of every row's value before its members are found: ``(step, count) ->
#: (rows,)`` (:func:`~gridsim.selection.block_bounds.step_bounds`).
RowBounds = Callable[["Step", int], np.ndarray | None]


def steps_of(
    slots: Candidates,
    sigmas: np.ndarray,
    runtime: np.ndarray,
    request: Request,
    first_step: np.ndarray | None = None,
):
    """All steps of a batch of sigmas as the rows of one :class:`Step`.

    A step of sigma is a group slot (performance >= sigma's, long enough for the task from its
    own start, rule 3(c)ii) that starts while sigma can still hold the task; its candidates
    are the group slots seen so far (index <= the step's) that still hold the task from the
    step's start (rule 3(c)v.B), sigma excluded. ``first_step`` (per slot, for sigmas) leaves
    out the steps before it, which cannot have enough candidates
    (:func:`~gridsim.selection.earliest.first_steps`).
    """
    task = runtime[sigmas]
    last = np.searchsorted(slots.start, slots.end[sigmas] - task, side="right")
    first = sigmas if first_step is None else np.maximum(sigmas, first_step[sigmas])
    counts = np.maximum(last - first, 0)
    total = int(counts.sum())
    if total == 0:
        return None
    row_sigma = np.repeat(sigmas, counts)
    row_runtime = np.repeat(task, counts)
    row_step = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    row_step += np.repeat(first, counts)
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
    return Step(
        slots=slots,
        sigma=row_sigma,
        runtime=row_runtime,
        start=row_start,
        step=row_step,
        budget_left=request.budget - row_runtime * slots.price[row_sigma],
    )


@dataclass(frozen=True)
class Step:
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

    @cached_property
    def _least_finish(self) -> float:
        """Columns end no earlier than this. The factor ``1 - 1e-15`` is a margin of the column
        filter; it drops nothing a row can use unless finish times are negative, and
        :meth:`cheapest` applies it too, so that both see the same members (a step restricted
        to some rows by :meth:`skip` keeps its batch's value, and with it the same members)."""
        return (self.start + self.runtime).min() * (1 - 1e-15)

    @cached_property
    def member(self) -> np.ndarray:
        """(rows, cols) bool: the column is in ``S_W`` at the row's step."""
        return self.member_block(np.arange(len(self.start)), slice(None))

    @cached_property
    def cost(self) -> np.ndarray:
        """(rows, cols) cost of each column for the row's runtime."""
        return self.runtime[:, None] * self.slots.price[self.columns][None, :]

    def compact(self, count: int) -> Step | None:
        """The rows with at least ``count`` members, and the columns some row uses.

        The exact search builds (rows x columns) value matrices, so it pays to drop what no
        window can use first; :meth:`cheapest` does not build them.
        """
        member = self.member
        enough = member.sum(axis=1) >= count
        if not enough.any():
            return None
        used = member[enough].any(axis=0)
        compacted = Step(
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

    def first_complete_rows(self, count: int) -> np.ndarray:
        """Per sigma (rows are grouped by sigma, in step order), its first row with at least
        ``count`` members, in row order; sigmas with none are left out.

        Rows are tested in blocks from each sigma's first step (``_FIRST_BLOCK`` rows, then
        four times more each time), and a sigma drops out at its first complete row: the
        membership of the hundreds of rows per sigma of a busy profile is not built.
        """
        change = np.flatnonzero(self.sigma[1:] != self.sigma[:-1]) + 1
        begin = np.concatenate(([0], change))
        end = np.concatenate((change, [len(self.sigma)]))
        found = np.full(len(begin), -1, dtype=np.int64)
        active = np.arange(len(begin))
        offset, width = 0, _FIRST_BLOCK
        while len(active):
            lo = begin[active] + offset
            size = np.clip(end[active] - lo, 0, width)
            rows = np.repeat(lo - np.cumsum(size) + size, size) + np.arange(int(size.sum()))
            complete = self.member_block(rows, slice(None)).sum(axis=1) >= count
            owner = np.repeat(np.arange(len(active)), size)
            hit = np.flatnonzero(complete)
            # The first complete row of each group: hits are in row order within a group.
            groups, first_hit = np.unique(owner[hit], return_index=True)
            found[active[groups]] = rows[hit[first_hit]]
            still = np.ones(len(active), dtype=bool)
            still[groups] = False
            still &= lo + size < end[active]
            active = active[still]
            offset, width = offset + width, 4 * width
        return found[found >= 0]

    def select(self, rows: np.ndarray) -> Step:
        """The step restricted to ``rows`` (indices or a mask), in their order."""
        return Step(
            slots=self.slots,
            sigma=self.sigma[rows],
            runtime=self.runtime[rows],
            start=self.start[rows],
            step=self.step[rows],
            budget_left=self.budget_left[rows],
        )

    def skip(self, skipped: np.ndarray) -> Step:
        """The step without the ``skipped`` rows (a mask), whose members are found exactly as
        in the whole step: the same :attr:`_least_finish`."""
        kept = self.select(~skipped)
        kept.__dict__["_least_finish"] = self._least_finish
        return kept

    def cheapest(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per row: the ``count`` cheapest members, their total cost, and affordability.

        The members are slot indices, ``(rows, count)``, cheapest first (ties: list order),
        ``-1`` where a row has fewer: the first members of :attr:`member` if a criterion has
        built it, else from bitsets (:class:`~gridsim.selection.candidates.MemberSets`).
        """
        if "member" in self.__dict__:
            picks, found = self._first_members(count)
        else:
            sets = self.slots.member_sets
            finish = self.start + self.runtime
            perf = self.slots.performance[self.sigma]
            members = sets.members(self.step, finish, self.sigma, perf)
            # The members are among ``columns`` (the same margin as there).
            members &= sets.free_from(self._least_finish)
            picks, found = sets.cheapest(members, count)
        complete = found == count
        price = self.slots.price
        total = self.runtime * ordered_sum(np.where(picks >= 0, price[picks], 0.0))
        total = np.where(complete, total, np.inf)
        return picks, total, complete & (total <= self.budget_left)

    def _first_members(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The first ``count`` members of each row of :attr:`member` (columns in price order)
        as slot indices, and how many each row has (at most ``count``)."""
        member = self.member
        rows, width = member.shape
        picks = np.full((rows, count), -1, dtype=np.int64)
        hit = np.flatnonzero(member)
        row = hit // width
        per_row = np.bincount(row, minlength=rows)
        rank = np.arange(len(hit)) - np.repeat(np.cumsum(per_row) - per_row, per_row)
        first = rank < count
        picks[row[first], rank[first]] = self.columns[hit[first] % width]
        return picks, np.minimum(per_row, count)

    def choice(self, row: int, value: float, secondary: float, members) -> Choice:
        """The window of ``row`` with the chosen members (slot indices)."""
        return Choice(
            value=float(value),
            secondary=float(secondary),
            performance=float(self.slots.performance[self.sigma[row]]),
            start=float(self.start[row]),
            step=int(self.step[row]),
            sigma=int(self.sigma[row]),
            runtime=float(self.runtime[row]),
            others=tuple(sorted(int(m) for m in members)),
        )

    def offer(self, contenders: Contenders, rows, value, secondary, members) -> None:
        """Offer ``rows`` (indices) to ``contenders``, worth ``value`` and ``secondary``
        (arrays over ``rows``) with their ``members``: a (rows, count) array of slot indices,
        or a function of a position in ``rows`` giving them (called for the rows kept)."""
        if not callable(members):
            members = members.__getitem__
        contenders.offer_rows(
            value,
            secondary,
            self.slots.performance[self.sigma[rows]],
            self.start[rows],
            self.sigma[rows],
            self.step[rows],
            lambda r: self.choice(rows[r], value[r], secondary[r], members(r)),
        )


def choose_cheapest(step: Step, count: int, row_values: RowValues, contenders: Contenders) -> None:
    """Take the cheapest affordable subset at every step; offer the rows to ``contenders``."""
    picks, score, secondary, affordable = _score_cheapest(step, count, row_values)
    rows = np.flatnonzero(affordable)
    step.offer(contenders, rows, score[rows], secondary[rows], picks[rows])


def _score_cheapest(step: Step, count: int, row_values: RowValues):
    """Per row: the cheapest members, value (``-inf`` if unaffordable), secondary, affordable."""
    picks, total, affordable = step.cheapest(count)
    score, secondary = row_values(step, picks, total)
    score = np.where(affordable, score, NEG_INF)
    secondary = np.zeros_like(score) if secondary is None else secondary
    return picks, score, secondary, affordable


class CheapestRows:
    """The steps of the visited sigmas, evaluated ahead for a cheapest-subset criterion.

    :meth:`offer` offers what :func:`choose_cheapest` would for the steps of a chunk of
    ``sigmas`` (a slice of the visiting order). A chunk not yet evaluated is evaluated with
    the sigmas after it, up to ``_AHEAD`` times the sigmas evaluated so far but never past a
    sigma that cannot reach the best window found: the search never visits such a sigma. A
    long search (the Lite criteria visit most sigmas) then costs a few NumPy passes instead
    of one per chunk, and a short one evaluates what it visits.

    ``kept(begin, end)`` says which of ``sigmas[begin:end]`` to evaluate (the others get no
    rows: the search skips them). With ``row_bounds``, the rows whose bound is below the tie
    floor of the best window found before the batch are left out: their values are below it,
    so the tie rule cannot choose them (:mod:`~gridsim.selection.ties`), and the search
    chooses the same window as when evaluating every row.
    """

    def __init__(
        self,
        slots: Candidates,
        sigmas: np.ndarray,
        runtime: np.ndarray,
        request: Request,
        row_values: RowValues,
        first_step: np.ndarray | None = None,
        row_bounds: RowBounds | None = None,
        kept: Callable[[int, int], np.ndarray] | None = None,
    ) -> None:
        self.slots, self.sigmas, self.runtime = slots, sigmas, runtime
        self.request, self.row_values, self.row_bounds = request, row_values, row_bounds
        self.first_step, self.kept = first_step, kept
        self.first_row = np.zeros(1, dtype=np.int64)  # per visited sigma, then the end
        self.rows: dict[str, np.ndarray] = {}

    def offer(self, chunk: slice, reach: Callable[[int, int], int], contenders: Contenders) -> None:
        """Offer the rows of the chunk's steps to ``contenders``; ``reach(begin, end)`` tells
        how far the search can still go (the sigmas past it cannot reach the best window
        found so far)."""
        stop = min(chunk.stop, len(self.sigmas))
        evaluated = len(self.first_row) - 1
        if stop > evaluated:
            ahead = max(stop, _AHEAD * evaluated)
            self._evaluate(evaluated, reach(evaluated, ahead), contenders.floor)
        begin, end = self.first_row[chunk.start], self.first_row[stop]
        rows = {name: column[begin:end] for name, column in self.rows.items()}
        if begin == end:
            return

        def build(row: int) -> Choice:
            return Choice(
                value=float(rows["score"][row]),
                secondary=float(rows["secondary"][row]),
                performance=float(rows["performance"][row]),
                start=float(rows["start"][row]),
                step=int(rows["step"][row]),
                sigma=int(rows["sigma"][row]),
                runtime=float(rows["runtime"][row]),
                others=tuple(sorted(int(m) for m in rows["picks"][row])),
            )

        contenders.offer_rows(
            rows["score"], rows["secondary"], rows["performance"], rows["start"], rows["sigma"],
            rows["step"], build,
        )  # fmt: skip

    def _evaluate(self, begin: int, end: int, floor: float) -> None:
        """Evaluate the steps of ``sigmas[begin:end]`` and append their affordable rows,
        leaving out those whose bound is below ``floor``."""
        end = min(end, len(self.sigmas))
        sigmas = self.sigmas[begin:end]
        evaluated = sigmas if self.kept is None else sigmas[self.kept(begin, end)]
        step = steps_of(self.slots, evaluated, self.runtime, self.request, self.first_step)
        count = self.request.n - 1
        if step is not None and floor > -np.inf and self.row_bounds is not None and count:
            criterion = type(getattr(self.row_bounds, "__self__", self.row_bounds))
            bounds = self.row_bounds(step, count) if BOUNDING.wanted(criterion) else None
            if bounds is not None:
                below = bounds < floor
                BOUNDING.record(criterion, float(below.mean()))
                if below.all():
                    step = None
                elif below.any():
                    step = step.skip(below)
        if step is None:
            self.first_row = np.concatenate(
                (self.first_row, np.full(len(sigmas), self.first_row[-1]))
            )
            return
        picks, score, secondary, affordable = _score_cheapest(step, count, self.row_values)
        kept = np.flatnonzero(affordable)
        position = np.empty(len(self.slots), dtype=np.int64)
        position[sigmas] = np.arange(len(sigmas))
        owners = np.searchsorted(position[step.sigma[kept]], np.arange(1, len(sigmas) + 1))
        batch = {
            "sigma": step.sigma[kept],
            "step": step.step[kept],
            "runtime": step.runtime[kept],
            "start": step.start[kept],
            "performance": self.slots.performance[step.sigma[kept]],
            "secondary": secondary[kept],
            "score": score[kept],
            "picks": picks[kept],
        }
        if self.rows:
            batch = {name: np.concatenate((self.rows[name], batch[name])) for name in batch}
        self.first_row = np.concatenate((self.first_row, self.first_row[-1] + owners))
        self.rows = batch
