"""Job-flow placement criteria [TY20, Sec. 4.1]: BFstart, BFfinish, BFshort, PAST and CoP.

Consumes the candidate slots of the general window search; produces per-slot values ``z_i``
(the search maximises ``Z = sum z_i``). Selectable by name through
:data:`gridsim.selection.registry.CRITERIA`. Constants default to [TY20, Table 1]
(``configs/past-cop.yaml``) and are fields, so a scenario may override them:
``{name: CoP, epsilon1: 0.05}``.

Neighbour distances of a slot used by a window starting at ``t`` with runtime ``T``:
``L_left = t - slot_start`` (time since the previous task on the node ended, or since the
profile's horizon start, i.e. the simulation start) and ``L_right = slot_end - (t + T)`` (time to
the next task). On a free tail with no next task ``slot_end`` is infinite, so ``L_right = +inf``:
rules of the form ``L_right > T`` hold, ``L_right < x`` do not, and PAST's penalty
``-alpha2 * L_right`` is taken as 0 there (an open tail leaves no gap to fragment). See
docs/jobflow.md, "Neighbour distances at the profile's edges".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

import numpy as np

from gridsim.core import search as compiled_search
from gridsim.selection import cost_terms
from gridsim.selection.criteria import FirstFit, MinFinish, SlotCriterion
from gridsim.selection.energy_criteria import BOUND
from gridsim.selection.steps import Step, choose_cheapest
from gridsim.selection.ties import Contenders, ordered_sum
from gridsim.selection.window_search import find_window

#: Distances at most this long count as zero (PAST rule 1: "adjacent" slots).
ADJACENT = 1e-6


def choose_in_slot_order(
    step: Step,
    count: int,
    value,
    contenders: Contenders,
    equal_starts: str = "node",
    ties: str = "fastest",
    falls_with_start: bool = False,
) -> None:
    """Backfilling without tie-break rules: at every step take the first ``count`` member slots
    in slot order (start, then node) [TY20, Sec. 3.2, Fig. 2], falling back to the cheapest
    subset where they break the budget; offer the steps, worth ``value``, to ``contenders``.

    ``equal_starts`` orders slots that start together (``node``: by node, the slot list's
    order; ``fastest``/``slowest``: by performance); ``ties`` decides between steps of equal
    value (``fastest``: the faster slowest node, as the general search's group loop meets
    them; ``slowest``: the slower one, passed on as the key's secondary value).
    ``falls_with_start``: ``value`` never grows with the start at a fixed runtime (earliest
    start or finish), which lets an unlimited budget look only at each sigma's first
    complete row.
    """
    if count == 0:  # one node: no members to order, only the tie between sigmas

        def one_node(s: Step, picks, total):
            slower_first = -s.slots.performance[s.sigma] if ties == "slowest" else None
            return value(s.start, s.runtime), slower_first

        return choose_cheapest(step, count, one_node, contenders)
    if np.isinf(step.budget_left).all() and equal_starts == "node" and ties == "fastest":
        return _first_in_slot_order_unlimited(step, count, value, falls_with_start, contenders)
    # The first ``count`` members in slot order (columns are kept in price order).
    in_order = _slot_order(step, equal_starts)
    member = step.member[:, in_order]
    rank = np.cumsum(member, axis=1)
    first = np.full((len(step.start), count), -1, dtype=np.int64)
    take_row, take_col = np.nonzero(member & (rank <= count))
    first[take_row, rank[take_row, take_col] - 1] = in_order[take_col]
    complete = (first >= 0).all(axis=1)
    first_cost = ordered_sum(np.sort(np.take_along_axis(step.cost, np.maximum(first, 0), axis=1)))
    first_cost = np.where(complete, first_cost, np.inf)
    cheap, _cheap_cost, cheap_ok = step.cheapest(count)
    use_first = complete & (first_cost <= step.budget_left)
    chosen = np.where(use_first[:, None], step.columns[first], cheap)
    rows = np.flatnonzero(use_first | cheap_ok)
    score = value(step.start[rows], step.runtime[rows])
    performance = step.slots.performance[step.sigma[rows]]
    secondary = -performance if ties == "slowest" else np.zeros_like(performance)
    step.offer(contenders, rows, score, secondary, chosen[rows])


def _slot_order(step: Step, equal_starts: str) -> np.ndarray:
    """Column positions in slot-list order; ``equal_starts`` orders slots that start together."""
    if equal_starts == "node":
        return np.argsort(step.columns, kind="stable")  # the list is sorted by (start, node)
    performance = step.slots.performance[step.columns]
    sign = -1.0 if equal_starts == "fastest" else 1.0
    return np.lexsort((step.columns, sign * performance, step.slots.start[step.columns]))


def _first_in_slot_order_unlimited(
    step: Step, count: int, value, falls_with_start: bool, contenders: Contenders
) -> None:
    """``choose_in_slot_order`` without a budget: every row with enough members is affordable,
    so only the members of the rows the tie rule keeps are looked up.

    If ``value`` never grows with the start at a fixed runtime (``falls_with_start``), a
    sigma's best row is its first row with enough members: later rows of the same sigma start
    no earlier, so they have no better value and a lower rank (later start or step). Rows
    are then tested in blocks from each sigma's first step, and a sigma drops out at its first
    complete row: the membership matrix of a busy profile's hundreds of rows per sigma is
    never built.
    """
    if falls_with_start:
        complete = step.first_complete_rows(count)
    else:
        complete = np.flatnonzero(step.member.sum(axis=1) >= count)
    score = value(step.start[complete], step.runtime[complete])

    def first_members(position: int) -> np.ndarray:
        members = step.member_block(complete[position : position + 1], slice(None))[0]
        return np.sort(step.columns[np.flatnonzero(members)])[:count]

    step.offer(contenders, complete, score, np.zeros(len(complete)), first_members)


class InSlotOrder:
    """Backfilling's window: the first member slots in slot order (``choose_in_slot_order``).

    A mixin for a :class:`~gridsim.selection.criteria.WindowCriterion`, listed first:
    ``class BFfinish(InSlotOrder, MinFinish)``.
    """

    takes_cheapest: ClassVar[bool] = False

    def choose(self, step, count, contenders):
        return choose_in_slot_order(
            step, count, self.value, contenders, falls_with_start=_falls_with_start(self)
        )


def _falls_with_start(criterion) -> bool:
    """Whether the criterion's ``value`` is one known never to grow with the start (an
    earliest start or finish); a plugin's own ``value`` is not assumed to be."""
    return type(criterion).value in (FirstFit.value, MinFinish.value)


@dataclass(frozen=True)
class BFstart(InSlotOrder, FirstFit):
    """FirstFit's ``z_i = -start``, slots in order: the earliest start [TY20, Sec. 4.1, item 1].

    Readings of "start time minimisation" the paper leaves open (docs/model.md, "BFstart"):

    * ``start_of``: ``window`` -- ``s_i.startTime`` is the start of the task cut from the slot,
      the window's start (default; the same reading as BFfinish's ``s_i.finishTime``);
      ``slot`` -- the start of the free slot itself, so the window takes the slots that have
      been free longest (``z_i = -slot start``, exact subset allocation).
    * ``ties``: among windows with the same start, the one with the ``fastest`` slowest node
      (default: the general search walks performance groups from the fastest [TY18, Sec.
      3.2]) or the ``slowest``.
    * ``equal_starts``: which of the slots that start together the search sees first, so
      which fill the window: in ``node`` order (default, the slot list's order), ``fastest``
      or ``slowest`` first.
    """

    name: ClassVar[str] = "BFstart"
    summary: ClassVar[str] = "backfilling, earliest start, slots in order [TY20, Sec. 4.1]"
    start_of: Literal["window", "slot"] = "window"
    ties: Literal["fastest", "slowest"] = "fastest"
    equal_starts: Literal["node", "fastest", "slowest"] = "node"

    def __post_init__(self) -> None:
        _check_choice("start_of", self.start_of, ("window", "slot"))
        _check_choice("ties", self.ties, ("fastest", "slowest"))
        _check_choice("equal_starts", self.equal_starts, ("node", "fastest", "slowest"))
        if self.start_of == "slot" and (self.ties, self.equal_starts) != ("fastest", "node"):
            raise ValueError("start_of=slot chooses slots by their start: ties and "
                             "equal_starts apply to start_of=window only")  # fmt: skip

    def search(self, profile, request):
        if self.start_of == "slot":
            return find_window(profile.slot_table(), request, _OWN_SLOT_START)
        return search_compiled_first(self, profile, request)

    def choose(self, step, count, contenders):
        return choose_in_slot_order(
            step, count, self.value, contenders, self.equal_starts, self.ties,
            _falls_with_start(self),
        )  # fmt: skip


def _check_choice(field_name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{field_name} must be one of {', '.join(allowed)}; got {value!r}")


@dataclass(frozen=True)
class _OwnSlotStart(SlotCriterion):
    """``z_i = -(start of the free slot)``: BFstart with ``start_of=slot``."""

    reads_q_and_cost: ClassVar[bool] = False

    def slot_values(self, slot_start, slot_end, q, cost, start, runtime, performance=None):
        shape = np.broadcast_shapes(np.shape(slot_start), np.shape(start))
        return -np.broadcast_to(slot_start, shape)

    def slot_value_bound(self, slot_start, slot_end, q, cost, runtime, lo, hi, performance=None):
        return -np.asarray(slot_start, dtype=float)


_OWN_SLOT_START = _OwnSlotStart()


@dataclass(frozen=True)
class BFfinish(InSlotOrder, MinFinish):
    """MinFinish's ``z_i = -finish``, slots in order: earliest finish [TY20, Sec. 4.1, item 1]."""

    name: ClassVar[str] = "BFfinish"
    summary: ClassVar[str] = "backfilling, earliest finish, slots in order [TY20, Sec. 4.1]"

    def search(self, profile, request):
        return search_compiled_first(self, profile, request)


@dataclass(frozen=True)
class BFshort(BFfinish):
    """BFfinish for a job whose runtime is cut by 1% at allocation [TY20, Sec. 4.1, item 4].

    The window is searched for ``runtime_factor * V``, so its runtime is that much shorter; the
    simulator runs the job for the window's runtime (times any runtime deviation).
    """

    name: ClassVar[str] = "BFshort"
    summary: ClassVar[str] = "BFfinish with every runtime 1% shorter (reference) [TY20]"
    runtime_factor: float = 0.99

    def __post_init__(self) -> None:
        if not 0 < self.runtime_factor <= 1:
            raise ValueError(f"runtime_factor must be in (0, 1], got {self.runtime_factor}")

    def search(self, profile, request):
        shorter = replace(request, volume=request.volume * self.runtime_factor)
        return find_window(profile.slot_table(), shorter, self)


@dataclass(frozen=True)
class _Placement(SlotCriterion):
    """Finish time plus node-performance and neighbour-distance amendments (items 2-3).

    An optional cost term, not in [TY20], off by default (:mod:`~gridsim.selection.cost_terms`):
    ``price_weight``, ``energy_weight``, ``electricity_weight`` and ``carbon_weight`` times
    each slot task's cost, energy (kWh), electricity cost and carbon (kg).
    """

    alpha1: float = 0.1
    alpha2: float = 0.0001
    delta1: float = 1.0
    delta2: float = 0.1
    epsilon1: float = 0.03
    epsilon2: float = 0.2
    epsilon3: float = 0.35
    price_weight: float = 0.0
    energy_weight: float = 0.0
    electricity_weight: float = 0.0
    carbon_weight: float = 0.0
    energy: Any = field(default=None, compare=False, repr=False, metadata=BOUND)

    def __post_init__(self) -> None:
        for field_name in ("alpha1", "alpha2", "delta1", "delta2", *cost_terms.WEIGHTS):
            if not getattr(self, field_name) >= 0:
                raise ValueError(f"{field_name} must be >= 0, got {getattr(self, field_name)}")
        if not 0 <= self.epsilon1 <= self.epsilon2 <= self.epsilon3 <= 1:
            raise ValueError(
                "expected 0 <= epsilon1 <= epsilon2 <= epsilon3 <= 1, got "
                f"{self.epsilon1}, {self.epsilon2}, {self.epsilon3}"
            )

    @property
    def reads_q_and_cost(self) -> bool:  # type: ignore[override]
        """The rules read slot ends, start, runtime and performance; a price term the cost."""
        return self.price_weight > 0

    @property
    def needs_power(self) -> bool:
        """Whether the cost term reads the power model (bound by ``bind_energy``)."""
        return cost_terms.needs_power(self)

    @property
    def reads_nodes(self) -> bool:
        return self.needs_power

    def _base(self, start, runtime, performance):
        return -(start + runtime) - self.alpha1 * performance

    def _compiled(self):
        """The compiled kernels for CoP and PAST themselves (a subclass, or a cost term:
        the Python path)."""
        plain = type(self) in (CoP, PAST) and not cost_terms.has_cost_term(self)
        return compiled_search.compiled() if plain else None

    def search(self, profile, request):
        return search_compiled_first(self, profile, request)

    def sigma_bounds(self, slots, sigmas, runtimes, request, joinable):
        """Without a budget, CoP's and PAST's sigma bounds are computed compiled (the same
        bounds up to the order of their sums, which only orders and prunes the search)."""
        module = self._compiled()
        if module is None or np.isfinite(request.budget):
            return super().sigma_bounds(slots, sigmas, runtimes, request, joinable)
        return compiled_search.placement_sigma_bounds(
            module, slots, sigmas, runtimes, request.n, self._compiled_rules()
        )

    def choose(self, step, count, contenders) -> None:
        """The exact search's steps; without a budget, CoP's and PAST's run compiled
        (:mod:`gridsim.core.search`: the same windows offered, bit for bit)."""
        module = self._compiled()
        if module is None or count < 1 or np.isfinite(step.budget_left).any():
            return super().choose(step, count, contenders)
        found = compiled_search.placement_rows(
            module, step.slots, step, count, contenders.top, self._compiled_rules()
        )
        if found is None:
            return super().choose(step, count, contenders)
        rows, value, members = found
        step.offer(contenders, rows, value, np.zeros(len(rows)), members)
        return None

    def _compiled_rules(self) -> tuple:
        """The constants ``gridsim/core/_search.c`` reads (its ``Rules``)."""
        bonus = self._bonus_bound()
        return (
            0 if isinstance(self, CoP) else 1,
            self.alpha1, self.alpha2, self.delta1, self.delta2,
            self.epsilon1, self.epsilon2, self.epsilon3,
            getattr(self, "_rule2_sign", 0.0), ADJACENT, np.nan if bonus is None else bonus,
        )  # fmt: skip

    def _bonus_bound(self) -> float | None:
        """The most the amendments add to one slot's ``z`` (None: no bound)."""
        return None

    def window_value_bound(self, start, runtime, slowest, n):
        # Every slot's z is the base at its own (no slower) node plus at most the bonus; a
        # cost term only subtracts (weights, prices, watts and signals are all >= 0).
        bonus = self._bonus_bound()
        if bonus is None:
            return None
        return n * (self._base(start, runtime, slowest) + bonus)

    @staticmethod
    def _distances(slot_start, slot_end, start, runtime):
        left = start - slot_start
        right = slot_end - (start + runtime)  # +inf where the slot is open to the right
        return left, right

    @staticmethod
    def _distance_ranges(slot_start, slot_end, runtime, lo, hi):
        """``[min, max]`` of ``L_left`` and ``L_right`` over starts in ``[lo, hi]``."""
        open_tail = np.isinf(slot_end)
        left = (lo - slot_start, hi - slot_start)
        with np.errstate(invalid="ignore"):  # inf - inf on open tails, replaced just below
            right = (
                np.where(open_tail, np.inf, slot_end - hi - runtime),
                np.where(open_tail, np.inf, slot_end - lo - runtime),
            )
        return left, right


@dataclass(frozen=True)
class PAST(_Placement):
    """PAST-like tie-break rules on top of the finish time [TY20, Sec. 4.1, item 2].

    ``z = -finish - alpha1 * p + delta1 * [L_right == 0] + delta1 * [L_left == 0]
    - alpha2 * L_right``: rule 2 ``as_printed`` in the paper's formula (default). The prose
    of the same rule says "maximize length of idle slots left"; ``rule2: as_described``
    reads it so, ``+ alpha2 * L_right`` (docs/model.md, "PAST's rule 2").
    """

    name: ClassVar[str] = "PAST"
    summary: ClassVar[str] = "finish time with PAST-like adjacency rules [TY20, Sec. 4.1]"
    rule2: Literal["as_printed", "as_described"] = "as_printed"

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_choice("rule2", self.rule2, ("as_printed", "as_described"))

    def _bonus_bound(self) -> float | None:
        # Two adjacency bonuses; rule 2 as printed only subtracts (L_right >= 0), as
        # described it adds up to alpha2 times the slot's length: no bound.
        return 2 * self.delta1 if self.rule2 == "as_printed" else None

    @property
    def _rule2_sign(self) -> float:
        return -1.0 if self.rule2 == "as_printed" else 1.0

    def slot_values(
        self, slot_start, slot_end, q, cost, start, runtime, performance=None, node=None
    ):
        left, right = self._distances(slot_start, slot_end, start, runtime)
        z = self._base(start, runtime, performance)
        z = z + self.delta1 * (right <= ADJACENT) + self.delta1 * (left <= ADJACENT)
        z = z + self._rule2_sign * self.alpha2 * np.where(np.isinf(right), 0.0, right)
        return cost_terms.less_cost(self, z, node, cost, start, runtime)

    def slot_value_bound(
        self, slot_start, slot_end, q, cost, runtime, lo, hi, performance=None, node=None
    ):
        (left_min, _), (right_min, right_max) = self._distance_ranges(
            slot_start, slot_end, runtime, lo, hi
        )
        z = self._base(lo, runtime, performance)
        z = z + self.delta1 * (right_min <= ADJACENT) + self.delta1 * (left_min <= ADJACENT)
        if self.rule2 == "as_described":  # the bonus is largest at the largest L_right
            z = z + self.alpha2 * np.where(np.isinf(right_max), 0.0, right_max)
        else:  # the penalty is smallest at the smallest L_right (alpha2 >= 0)
            z = z - self.alpha2 * np.where(np.isinf(right_min), 0.0, np.maximum(right_min, 0.0))
        return cost_terms.less_cost(self, z, node, cost, None, runtime)


@dataclass(frozen=True)
class CoP(_Placement):
    """Coordinated Placement rules on top of the finish time [TY20, Sec. 4.1, item 3].

    Per side ``L`` (left and right): ``+delta1`` if ``L < epsilon1 T`` (a tight fit),
    ``-delta1`` if ``epsilon2 T < L < epsilon3 T`` (a gap too short for later jobs),
    ``+delta2`` if ``L > T`` (a gap long enough for a job like this one).
    """

    name: ClassVar[str] = "CoP"
    summary: ClassVar[str] = "finish time with Coordinated Placement rules [TY20, Sec. 4.1]"

    def _bonus_bound(self) -> float | None:
        # Per side at most one of tight (+delta1) and roomy (+delta2): the others subtract.
        return 2 * max(self.delta1, self.delta2)

    def _side(self, distance, runtime):
        tight = distance < self.epsilon1 * runtime
        awkward = (distance > self.epsilon2 * runtime) & (distance < self.epsilon3 * runtime)
        roomy = distance > runtime
        return self.delta1 * tight - self.delta1 * awkward + self.delta2 * roomy

    def slot_values(
        self, slot_start, slot_end, q, cost, start, runtime, performance=None, node=None
    ):
        left, right = self._distances(slot_start, slot_end, start, runtime)
        z = self._base(start, runtime, performance)
        z = z + self._side(left, runtime) + self._side(right, runtime)
        return cost_terms.less_cost(self, z, node, cost, start, runtime)

    def _side_bound(self, low, high, runtime):
        """Exact best of ``_side`` over distances in ``[low, high]``."""
        e1, e2, e3 = self.epsilon1 * runtime, self.epsilon2 * runtime, self.epsilon3 * runtime
        # The four options by hand (np.stack of them costs more than the arithmetic).
        best = np.maximum(
            np.where(low < e1, self.delta1, -np.inf),  # tight
            np.where(high > runtime, self.delta2, -np.inf),  # roomy
        )
        neutral = ((low <= e2) & (high >= e1)) | ((low <= runtime) & (high >= e3))
        awkward = (low < e3) & (high > e2)
        return np.maximum(best, np.where(neutral, 0.0, np.where(awkward, -self.delta1, -np.inf)))

    def slot_value_bound(
        self, slot_start, slot_end, q, cost, runtime, lo, hi, performance=None, node=None
    ):
        left, right = self._distance_ranges(slot_start, slot_end, runtime, lo, hi)
        z = self._base(lo, runtime, performance)
        z = z + self._side_bound(*left, runtime) + self._side_bound(*right, runtime)
        return cost_terms.less_cost(self, z, node, cost, None, runtime)


#: The criteria the compiled search runs, by the kind number ``gridsim/core/_window.c`` reads.
_COMPILED_KINDS = {CoP: 0, PAST: 1, BFfinish: 2, BFstart: 3}


def compiled_window(criterion, profile, request):
    """The window of the compiled search (``gridsim/core/_window.c``: the one the Python
    search chooses, bit for bit), or ``NOT_COMPILED`` when it does not run this criterion or
    this request: the one place that says so. It runs CoP, PAST, BFfinish and BFstart (its
    default readings) themselves (a subclass, a plugin, a cost term: the Python search) for a
    request without a budget, from the time origin on, with a positive volume."""
    kind = _COMPILED_KINDS.get(type(criterion))
    if kind == 3 and criterion != BFstart():
        kind = None  # BFstart's other readings order slots or ties otherwise
    if kind is not None and kind < 2 and cost_terms.has_cost_term(criterion):
        kind = None
    module = None if kind is None else compiled_search.compiled()
    if module is None or request.budget != math.inf:
        return compiled_search.NOT_COMPILED
    if not (0 <= request.earliest_start < math.inf and 0 < request.volume < math.inf):
        return compiled_search.NOT_COMPILED
    # BFfinish's and BFstart's windows are worth their finish, resp. start: no rule constants.
    rules = criterion._compiled_rules() if kind < 2 else (kind, *[0.0] * 9, math.nan)
    return compiled_search.find_window(module, profile.slot_table(), request, rules)


def search_compiled_first(criterion, profile, request):
    """The compiled search's window where it runs (:func:`compiled_window`), else the Python
    search's (:func:`~gridsim.selection.window_search.find_window`)."""
    window = compiled_window(criterion, profile, request)
    if window is compiled_search.NOT_COMPILED:
        window = find_window(profile.slot_table(), request, criterion)
    return window
