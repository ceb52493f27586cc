"""Single-job criteria [TY18, Sec. 4.2; TY19, Sec. 4.2-4.3], selectable by name.

Consumes a profile and a request; produces the window the criterion prefers. A criterion is a
small frozen dataclass whose fields are its parameters, selectable by name through
:mod:`gridsim.selection.registry`; the general search (:mod:`gridsim.selection.window_search`)
asks it three things:

* ``sigma_bounds``: an optimistic value for every candidate slowest slot ``sigma`` (pruning);
* ``choose``: the windows of the steps of a batch of ``sigma`` (cheapest subset or exact DP),
  offered to the tie rule (:mod:`~gridsim.selection.ties`), which keeps the best;
* ``score``: the value of a finished window (MultipleBest compares alternatives with it).

Window-level criteria (FirstFit, MinStart, MinFinish, MinRuntime) take the cheapest affordable
subset at each step: any affordable subset gives the same start and runtime, and the cheapest one
is affordable whenever any is [TY18, Sec. 3.3]. Additive criteria score a window by a sum of
per-slot values ``z``; the exact ones run the subset programme, the "Lite" ones take the ``n``
cheapest slots and score them [TY19, Sec. 4.2].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from gridsim.model import Node, Request, Window
from gridsim.profile import Profile
from gridsim.selection.block_bounds import step_bounds
from gridsim.selection.candidates import Candidates
from gridsim.selection.exact import choose_optimal
from gridsim.selection.steps import choose_cheapest
from gridsim.selection.ties import tie_floor, window_value
from gridsim.selection.window_search import find_window


def parameter_label(name: str, criterion: Any) -> str:
    """``name`` with the parameters that differ from their defaults, e.g. ``CoP(epsilon1=0.05)``."""
    params = [
        f"{f.name}={getattr(criterion, f.name)}"
        for f in fields(criterion)
        if getattr(criterion, f.name) != f.default and not f.metadata.get("bound")
    ]
    return f"{name}({', '.join(params)})" if params else name


@dataclass(frozen=True)
class Criterion:
    """Base of all criteria: the search protocol and the default (FirstFit-like) parts."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    #: Highest possible secondary value (tie-break between equal values), for pruning.
    secondary_bound: ClassVar[float] = 0.0
    #: Most candidate slowest slots evaluated in one NumPy batch (see find_window).
    batch_limit: ClassVar[int] = 64
    #: The criterion takes the cheapest affordable subset at every step and scores it with
    #: ``row_values``: the search may then evaluate steps ahead (steps.CheapestRows).
    takes_cheapest: ClassVar[bool] = False

    @property
    def label(self) -> str:
        """Name with non-default parameters, e.g. ``MultipleBest(target=MinCost)``."""
        return parameter_label(self.name, self)

    def search(self, profile: Profile, request: Request) -> Window | None:
        return find_window(profile.slot_table(), request, self)

    def sigma_bounds(self, slots, sigmas, runtimes, request, joinable) -> np.ndarray:
        """Optimistic value of the best window whose slowest slot is each sigma.

        ``joinable`` (:class:`~gridsim.selection.window_search.Joinable`) says which slots can
        join each sigma within the budget; sigmas that cannot form a window get ``-inf``.
        """
        raise NotImplementedError

    def sigma_bound_ceilings(self, slots, sigmas, runtimes, n: int) -> np.ndarray | None:
        """Cheap upper bounds of :meth:`sigma_bounds` (never below them), or None (the
        default). With them the search computes the bounds only of the sigmas it may visit
        (:class:`~gridsim.selection.window_search.VisitingOrder`)."""
        return None

    def choose(self, step, count, contenders) -> None:
        """Offer the windows of the steps of a batch of sigmas to ``contenders``
        (:class:`~gridsim.selection.ties.Contenders`): at least every one the tie rule may
        choose."""
        choose_cheapest(step, count, self.row_values, contenders)

    def row_values(self, step, picks, total) -> tuple[np.ndarray, np.ndarray | None]:
        """Each step's value, and secondary value or None, for its cheapest members ``picks``
        (slot indices) costing ``total`` (criteria that take the cheapest subset)."""
        raise NotImplementedError

    def step_bounds(self, step, count: int) -> np.ndarray | None:
        """Upper bounds of the steps' values before their members are found, or None (the
        default): with them, a criterion that takes the cheapest subset skips the steps that
        cannot beat the best window found (:class:`~gridsim.selection.steps.CheapestRows`)."""
        return None

    def score(self, window: Window, nodes: Sequence[Node]) -> float:
        raise NotImplementedError


# -- window-level criteria --------------------------------------------------------------------


@dataclass(frozen=True)
class WindowCriterion(Criterion):
    """Contract of a criterion whose value depends only on the window's start and runtime.

    Write ``value``; the search takes the cheapest affordable subset at every step (any
    affordable subset gives the same start and runtime). Mixing in
    :class:`~gridsim.selection.placement.InSlotOrder` takes the first slots in slot order
    instead, as backfilling does (BFstart, BFfinish). FirstFit, MinStart, MinFinish and
    MinRuntime are written this way.
    """

    takes_cheapest: ClassVar[bool] = True

    def value(self, start, runtime):
        """Value (larger is better) of windows starting at ``start`` lasting ``runtime``: an
        array of ``start``'s shape. It must be vectorised and pure (no state kept between
        calls, no change to its arguments): it is called once per batch of candidate steps, in
        an order that is not the paper's scan. Cost: O(len(start)).

        Args:
            start (numpy.ndarray): window starts (time units).
            runtime (numpy.ndarray | float): the windows' runtimes (time units), an array
                broadcast against ``start`` or a number.
        """
        raise NotImplementedError

    def sigma_bounds(self, slots, sigmas, runtimes, request, joinable):
        return np.where(joinable.affordable, self.value(slots.start[sigmas], runtimes), -np.inf)

    def row_values(self, step, picks, total):
        return self.value(step.start, step.runtime), None

    def score(self, window, nodes):
        return float(self.value(window.start, window.runtime))


#: The two readings of FirstFit's "first suitable and affordable window found" (docs/model.md,
#: "FirstFit"): the earliest start over all groups [TY18], or the first window the group
#: scan meets, from the fastest group down [TY19].
FirstFitReading = Literal["earliest_start", "first_found"]
FIRST_FIT_READINGS: tuple[str, ...] = get_args(FirstFitReading)


@dataclass(frozen=True)
class FirstFit(WindowCriterion):
    """The first window of the scan: ``earliest_start`` (default) takes the earliest start,
    on the fastest group that has it; ``first_found`` the first group that has any window,
    at its earliest start (the window MinRuntime chooses)."""

    name: ClassVar[str] = "FirstFit"
    summary: ClassVar[str] = "earliest start [TY18], or the first window found [TY19, Sec. 4.2]"
    first_fit: FirstFitReading = "earliest_start"

    def __post_init__(self) -> None:
        check_first_fit(self.first_fit)

    def value(self, start, runtime):
        if self.first_fit == "first_found":  # the fastest group first, then the earliest start
            return -np.broadcast_to(np.asarray(runtime, dtype=float), np.shape(start)).copy()
        return -np.asarray(start, dtype=float)


def check_first_fit(reading: str) -> None:
    if reading not in FIRST_FIT_READINGS:
        raise ValueError(f"first_fit must be one of {list(FIRST_FIT_READINGS)}, got {reading!r}")


@dataclass(frozen=True)
class MinStart(WindowCriterion):
    name: ClassVar[str] = "MinStart"
    summary: ClassVar[str] = "earliest start; among those, the cheapest window"

    def value(self, start, runtime):
        return -np.asarray(start, dtype=float)

    def row_values(self, step, picks, total):
        cost = total + step.runtime * step.slots.price[step.sigma]
        return self.value(step.start, step.runtime), -cost


@dataclass(frozen=True)
class MinFinish(WindowCriterion):
    name: ClassVar[str] = "MinFinish"
    summary: ClassVar[str] = "earliest finish time [TY18, Sec. 4.2]"

    def value(self, start, runtime):
        return -(np.asarray(start, dtype=float) + runtime)


@dataclass(frozen=True)
class MinRuntime(WindowCriterion):
    name: ClassVar[str] = "MinRuntime"
    summary: ClassVar[str] = "shortest runtime (fastest slowest node) [TY18, Sec. 4.2]"

    def value(self, start, runtime):
        return -np.broadcast_to(np.asarray(runtime, dtype=float), np.shape(start)).copy()


# -- additive criteria ------------------------------------------------------------------------


@dataclass(frozen=True)
class SlotCriterion(Criterion):
    """Contract of an additive criterion: the window's value is ``sum(z_i)`` over its slots.

    Write ``slot_values`` (the per-slot value ``z``) and ``slot_value_bound`` (an upper
    bound of it over a range of starts, for pruning). With ``lite = False`` the search runs
    the exact slot subset allocation at every step [TY18, Sec. 3.3]; with ``lite = True`` it
    scores the ``n`` cheapest slots [TY19, Sec. 4.2], much faster. MinCost, MaxQ, DEP, COORD,
    PAST and CoP are written this way.

    Arguments of both methods are NumPy arrays broadcast against each other: per slot
    ``slot_start`` and ``slot_end`` (the free interval holding the task; ``-inf``/``+inf`` at
    the profile's edges), ``q`` (the node's value), ``cost`` (the task's cost, money),
    ``performance``; per window ``start`` and ``runtime`` (time units).
    """

    lite: ClassVar[bool] = False
    #: Whether ``slot_values`` and ``slot_value_bound`` read ``q`` and ``cost``; a criterion
    #: that reads neither (the placement rules) sets it False and gets ``None`` for both, so
    #: the search does not gather them over its (steps x slots) matrices.
    reads_q_and_cost: ClassVar[bool] = True

    @property
    def reads_nodes(self) -> bool:
        """Whether ``slot_values`` and ``slot_value_bound`` take the slots' node ids as
        ``node=`` (a value that depends on the node itself, e.g. its power draw and tariff);
        False by default, so a criterion that does not ask is called as before."""
        return False

    def _node_argument(self, node) -> dict[str, Any]:
        return {"node": node} if self.reads_nodes else {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "lite" in cls.__dict__:  # Lite criteria take the cheapest subset at every step
            cls.takes_cheapest = cls.lite

    def slot_values(
        self, slot_start, slot_end, q, cost, start, runtime, performance=None
    ) -> np.ndarray:
        """``z`` (larger is better) of slots for windows starting at ``start``.

        Must be vectorised and pure, like :meth:`WindowCriterion.value`. Cost: O(size of the
        broadcast arrays); called on (steps x candidate slots) matrices.
        """
        raise NotImplementedError

    def slot_value_bound(
        self, slot_start, slot_end, q, cost, runtime, lo, hi, performance=None
    ) -> np.ndarray:
        """An upper bound of ``z`` over window starts in ``[lo, hi]`` (arrays).

        It must never be below the value ``slot_values`` gives for a start in the range: the
        search skips every window whose bound cannot beat the best found, so a bound too low
        loses the best window silently (no guard can see it). A looser bound is always
        correct, only slower; ``+inf`` everywhere turns the pruning off.
        """
        raise NotImplementedError

    def sigma_bounds(self, slots: Candidates, sigmas, runtimes, request, joinable):
        """z bound of sigma plus the n-1 best bounds among slots that can join it."""
        affordable = joinable.affordable
        others = request.n - 1
        # Bounds only for the (sigma, slot) pairs that can join (most pairs cannot), and
        # sigma's own bound in the same call: rows 0..S-1 are the sigmas, then the pairs.
        row, col = joinable.pairs
        slot = np.concatenate((sigmas, col))
        runtime = np.concatenate((runtimes, runtimes[row]))
        # Starts sigma allows, cut (for a joining slot) to those that slot allows.
        latest = slots.end[sigmas] - runtimes
        lo = np.maximum(slots.start[sigmas][row], slots.start[col])
        hi = np.minimum(latest[row], slots.end[col] - runtime[len(sigmas) :])
        reads = self.reads_q_and_cost
        z = self.slot_value_bound(
            slots.slot_start[slot],
            slots.end[slot],
            slots.q[slot] if reads else None,
            runtime * slots.price[slot] if reads else None,
            runtime,
            np.concatenate((slots.start[sigmas], lo)),
            np.concatenate((latest, np.maximum(lo, hi))),
            performance=slots.performance[slot],
            **self._node_argument(slots.node[slot]),
        )
        z = np.broadcast_to(z, slot.shape)
        own = z[: len(sigmas)]
        if not others:
            return own + np.where(affordable, 0.0, -np.inf)
        # The n - 1 largest bounds of each row: minus the bounds, partitioned (smallest
        # first) in place, as -np.partition(-bounds) would, one row at a time. Only sigmas
        # with n - 1 joiners get a finite bound, so only their rows are built.
        has_bound = affordable & (np.bincount(row, minlength=len(sigmas)) >= others)
        bounded = np.flatnonzero(has_bound)
        joining = np.full((len(bounded), len(slots)), np.inf)
        kept = has_bound[row]
        joining_row = np.cumsum(has_bound) - 1  # a bounded sigma's row in ``joining``
        joining[joining_row[row[kept]], col[kept]] = -z[len(sigmas) :][kept]
        joining.partition(others - 1, axis=1)
        bounds = np.full(len(sigmas), -np.inf)
        bounds[bounded] = own[bounded] + (-joining[:, :others]).sum(axis=1)
        return bounds

    def step_bounds(self, step, count: int) -> np.ndarray | None:
        """A Lite step's value is at most sigma's and the best of the few slots its cheapest
        members can be (:mod:`~gridsim.selection.block_bounds`)."""
        if not self.lite:
            return None
        slots, reads = step.slots, self.reads_q_and_cost

        def slot_bound(slot, runtime, lo, hi):
            return self.slot_value_bound(
                slots.slot_start[slot],
                slots.end[slot],
                slots.q[slot] if reads else None,
                runtime * slots.price[slot] if reads else None,
                runtime,
                lo,
                hi,
                performance=slots.performance[slot],
                **self._node_argument(slots.node[slot]),
            )

        return step_bounds(step, count, slot_bound)

    def _values_at(self, step, slot, start, runtime):
        """``z`` of candidate slots (indices, broadcast against ``start`` and ``runtime``)."""
        s = step.slots
        reads = self.reads_q_and_cost
        return self.slot_values(
            s.slot_start[slot],
            s.end[slot],
            s.q[slot] if reads else None,
            runtime * s.price[slot] if reads else None,
            start,
            runtime,
            performance=s.performance[slot],
            **self._node_argument(s.node[slot]),
        )

    def choose(self, step, count, contenders) -> None:
        if self.lite:
            return super().choose(step, count, contenders)
        step = step.compact(count)
        if step is None:
            return None
        step = self._hopeful_rows(step, count, contenders.top)
        # Sigma's own z as one more column: one slot_values call for the whole step.
        slot = np.empty((len(step.start), len(step.columns) + 1), dtype=np.int64)
        slot[:, :-1] = step.columns
        slot[:, -1] = step.sigma
        values = self._values_at(step, slot, step.start[:, None], step.runtime[:, None])
        values = np.broadcast_to(values, slot.shape)
        return choose_optimal(step, count, values[:, :-1], values[:, -1], contenders)

    def sigma_bound_ceilings(self, slots, sigmas, runtimes, n: int) -> np.ndarray | None:
        # A sigma's bound sums n slot bounds (its own and its n - 1 best joiners'), each over
        # starts no earlier than sigma's on nodes no slower, so the window-value bound at
        # sigma's own start and performance is above it; the margin covers the sums' rounding.
        ceiling = self.window_value_bound(
            slots.start[sigmas], runtimes, slots.performance[sigmas], n
        )
        if ceiling is None:
            return None
        return ceiling + 1e-9 * (np.abs(ceiling) + 1.0)

    def window_value_bound(self, start, runtime, slowest, n) -> np.ndarray | None:
        """An upper bound of the value of any window of ``n`` slots starting at ``start``
        (array) lasting ``runtime`` whose slowest node has performance ``slowest``; None if
        the criterion has none (the default). With one, the exact search evaluates only the
        steps that can still reach a window it has already found (``_hopeful_rows``)."""
        return None

    def _hopeful_rows(self, step, count: int, found: float):
        """The rows of a compacted step whose value can still be tied with the best window.

        Known: the best value ``found`` so far, and each sigma's first row (its earliest
        start) with its best ``count`` members when they fit the budget. A row whose
        :meth:`window_value_bound` is below the tie floor of that (less a margin far above
        rounding) cannot be chosen, so leaving it out changes no choice; the columns stay as
        they are, so the kept rows are evaluated exactly as before. In a busy profile most
        rows start hours after the first ones and a criterion built on the finish time rules
        them out.
        """
        performance = step.slots.performance[step.sigma]
        bound = self.window_value_bound(step.start, step.runtime, performance, count + 1)
        if bound is None:
            return step
        first = np.flatnonzero(np.concatenate(([True], step.sigma[1:] != step.sigma[:-1])))
        known = found
        unlimited = first[np.isinf(step.budget_left[first])]
        if len(unlimited):
            slot = np.empty((len(unlimited), len(step.columns) + 1), dtype=np.int64)
            slot[:, :-1] = step.columns
            slot[:, -1] = step.sigma[unlimited]
            start, runtime = step.start[unlimited, None], step.runtime[unlimited, None]
            values = np.broadcast_to(self._values_at(step, slot, start, runtime), slot.shape)
            total = values[:, -1].copy()
            if count:
                members = np.where(step.member[unlimited], -values[:, :-1], np.inf)
                total -= np.partition(members, count - 1, axis=1)[:, :count].sum(axis=1)
            known = max(known, float(total.max()))
        if not np.isfinite(known):
            return step
        keep = bound >= tie_floor(known) - 1e-9 * (abs(known) + 1.0)
        if keep.all():
            return step
        kept = step.select(keep)
        kept.__dict__["columns"] = step.columns
        kept.__dict__["member"] = step.member[keep]
        return kept

    def row_values(self, step, picks, total):
        """z of sigma plus z of each row's cheapest members, for the rows whose members fit
        the budget (``-inf`` elsewhere: the search drops a row it cannot afford whatever its
        value); the members and sigma in one ``slot_values`` call.

        Per row the same numbers as evaluating every row: ``z`` is elementwise, and each
        row's value is :func:`~gridsim.selection.ties.window_value` of its own row.
        """
        rows = np.flatnonzero(total <= step.budget_left)  # inf (too few members) never is
        count = picks.shape[1]
        chosen = picks[rows].ravel()
        member = np.flatnonzero(chosen >= 0)
        slot = np.concatenate((chosen[member], step.sigma[rows]))
        row = np.concatenate((rows[member // count], rows))
        z = self._values_at(step, slot, step.start[row], step.runtime[row])
        z = np.broadcast_to(z, slot.shape)
        values = np.zeros((len(rows), count))
        values.ravel()[member] = z[: len(member)]
        score = np.full(len(total), -np.inf)
        score[rows] = window_value(z[len(member) :], values)
        return score, None

    def score(self, window, nodes):
        slot_start = np.array([s.start for s in window.slots])
        slot_end = np.array([s.end for s in window.slots])
        q = np.array([nodes[i].q for i in window.nodes])
        cost = np.array([window.runtime * nodes[i].price for i in window.nodes])
        performance = np.array([nodes[i].performance for i in window.nodes])
        z = self.slot_values(
            slot_start, slot_end, q, cost, window.start, window.runtime, performance=performance,
            **self._node_argument(np.array(window.nodes, dtype=np.int64)),
        )  # fmt: skip
        return float(window_value(0.0, np.broadcast_to(z, slot_start.shape)))


def _q_values(slot_start, slot_end, q, cost, start, runtime):
    return np.broadcast_to(q, np.broadcast_shapes(np.shape(q), np.shape(start)))


def _distances(slot_start, slot_end, start, runtime):
    """``L_left`` and ``L_right`` of tasks starting at ``start`` in their slots. A slot open to
    the right (``slot_end = inf``: a job flow's last free slot of a node) has no neighbour
    there: ``L_right`` is infinite (never ``inf - inf``).

    (``np.equal(x, inf)`` rather than ``np.isposinf``, a Python-level wrapper costing more than
    the comparison: the Lite searches call this on every row of every step.)
    """
    open_end = np.equal(slot_end, np.inf)
    if open_end.any():
        right = np.where(open_end, np.inf, np.where(open_end, 0.0, slot_end) - (start + runtime))
    else:  # the same numbers without the two selections
        right = slot_end - (start + runtime)
    return start - slot_start, right


def _nearest(slot_start, slot_end, q, cost, start, runtime):
    return np.minimum(*_distances(slot_start, slot_end, start, runtime))


def _farthest(slot_start, slot_end, q, cost, start, runtime):
    left, right = _distances(slot_start, slot_end, start, runtime)
    farthest = np.maximum(left, right)
    # Where the larger distance is finite, neither side is open (a distance of +inf) and the
    # selections below give the larger one (a -inf side is the smaller): skip them.
    if np.isfinite(farthest).all():
        return -farthest
    # A slot with no neighbour on one side (slot_start = -inf, or an open slot_end) has its
    # farthest task on the other side.
    farthest = np.where(right == np.inf, left, farthest)
    return -np.where(np.isinf(left), right, farthest)


def _additive(
    name: str,
    summary: str,
    values: Callable[..., np.ndarray],
    bound: Callable[..., np.ndarray],
    lite: bool,
) -> type[Criterion]:
    """An additive criterion from its per-slot value and bound functions."""

    @dataclass(frozen=True)
    class _Criterion(SlotCriterion):
        def slot_values(self, slot_start, slot_end, q, cost, start, runtime, performance=None):
            return values(slot_start, slot_end, q, cost, start, runtime)

        def slot_value_bound(
            self, slot_start, slot_end, q, cost, runtime, lo, hi, performance=None
        ):
            return bound(slot_start, slot_end, q, cost, runtime, lo, hi)

    _Criterion.name = name
    _Criterion.summary = summary
    _Criterion.lite = _Criterion.takes_cheapest = lite
    if not lite:
        _Criterion.batch_limit = 8  # the exact search prunes per batch: keep batches small
    _Criterion.__name__ = _Criterion.__qualname__ = name
    return _Criterion


def _centred(function):
    """Bound of a distance criterion: its value at the start closest to the slot's centre.

    ``min(L_left, L_right)`` is largest, and ``max(L_left, L_right)`` smallest, where the two
    are equal; over an interval of starts the best is the point nearest to that centre.
    """

    def bound(slot_start, slot_end, q, cost, runtime, lo, hi):
        centre = np.clip((slot_start + slot_end - runtime) / 2, lo, hi)
        value = function(slot_start, slot_end, q, cost, centre, runtime)
        # Without a neighbour on one side (slot_start = -inf or slot_end = inf) the centre is
        # infinite and clipped to an end of [lo, hi], and the value is monotone in the start
        # (DEP's nearest task is on the other side, COORD's farthest too): the best of the two
        # ends bounds it.
        edge = (slot_start == -np.inf) | (slot_end == np.inf)
        if np.any(edge):
            ends = np.maximum(
                function(slot_start, slot_end, q, cost, lo, runtime),
                function(slot_start, slot_end, q, cost, hi, runtime),
            )
            value = np.where(edge, np.maximum(value, ends), value)
        return value

    return bound


def _constant(values):
    """Bound of a criterion whose slot value does not depend on the start."""
    return lambda slot_start, slot_end, q, cost, runtime, lo, hi: values(q, cost)


MinCost = _additive(
    "MinCost",
    "cheapest window; exact without DP: the n cheapest slots [TY18, Sec. 4.2]",
    lambda a, b, q, cost, t, T: (
        -np.broadcast_to(cost, np.broadcast_shapes(np.shape(cost), np.shape(t)))
    ),
    _constant(lambda q, cost: -cost),
    lite=True,
)
MaxQ = _additive(
    "MaxQ",
    "largest sum of node values q, exact subset allocation [TY18, Sec. 3.3]",
    _q_values,
    _constant(lambda q, cost: q),
    lite=False,
)
MaxQLite = _additive(
    "MaxQLite",
    "sum of q of the n cheapest slots, maximised over steps [TY19, Sec. 4.2]",
    _q_values,
    _constant(lambda q, cost: q),
    lite=True,
)


@dataclass(frozen=True)
class _DistanceCriterion(SlotCriterion):
    """A neighbour-distance criterion (DEP, COORD and their Lite forms).

    Attributes:
        max_distance: distances beyond this count as this much (time units; infinite: as
            they are). In a job flow a node's last free slot is open to the right, so DEP's
            distance to the left neighbour there grows without bound with a later start; a
            cap makes "far enough" a plain requirement (docs/model.md, "Distances in job
            flows").
    """

    max_distance: float = np.inf
    reads_q_and_cost: ClassVar[bool] = False  # distances read slot ends, start and runtime

    def __post_init__(self) -> None:
        if not self.max_distance > 0:
            raise ValueError(f"max_distance must be positive, got {self.max_distance}")


def _distance(name: str, summary: str, nearest: bool, lite: bool) -> type[Criterion]:
    """DEP (``nearest``: maximise the distance to the nearest task) or COORD
    (minimise the distance to the farthest), each capped at ``max_distance``."""
    function = _nearest if nearest else _farthest
    bound = _centred(function)

    def capped(criterion, z):
        cap = criterion.max_distance
        if np.isposinf(cap):
            return z
        return np.minimum(z, cap) if nearest else np.maximum(z, -cap)

    @dataclass(frozen=True)
    class _Criterion(_DistanceCriterion):
        def slot_values(self, slot_start, slot_end, q, cost, start, runtime, performance=None):
            return capped(self, function(slot_start, slot_end, q, cost, start, runtime))

        def slot_value_bound(
            self, slot_start, slot_end, q, cost, runtime, lo, hi, performance=None
        ):
            # A cap is monotone: the capped value is best where the uncapped one is.
            return capped(self, bound(slot_start, slot_end, q, cost, runtime, lo, hi))

    _Criterion.name = name
    _Criterion.summary = summary
    _Criterion.lite = _Criterion.takes_cheapest = lite
    if not lite:
        _Criterion.batch_limit = 8  # the exact search prunes per batch: keep batches small
    _Criterion.__name__ = _Criterion.__qualname__ = name
    return _Criterion


DEP = _distance(
    "DEP",
    "dependable: largest mean distance to the nearest neighbouring task [TY19, Sec. 3.4]",
    nearest=True,
    lite=False,
)
DEPLite = _distance(
    "DEPLite",
    "DEP scored on the n cheapest slots of each step [TY19, Sec. 4.3]",
    nearest=True,
    lite=True,
)
COORD = _distance(
    "COORD",
    "coordinated: smallest mean distance to the farthest neighbouring task [TY19]",
    nearest=False,
    lite=False,
)
COORDLite = _distance(
    "COORDLite",
    "COORD scored on the n cheapest slots of each step [TY19, Sec. 4.3]",
    nearest=False,
    lite=True,
)


#: Older names of the two contracts.
_WindowLevel, _Additive = WindowCriterion, SlotCriterion
