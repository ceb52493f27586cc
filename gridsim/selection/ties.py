"""The tie rule of the window search: which window wins among windows of equal value.

A window's value is a float sum of per-slot values, and two windows of the same value in exact
arithmetic may differ in the last bits of their sums. So that no choice depends on those bits
(nor on the order in which NumPy partitions or sums, which depends on the processor's SIMD
kernels), windows are compared with a tolerance and ties go the way the paper's scan meets
windows [TY18, Sec. 3.2], earliest found first (docs/model.md, "Ties"):

1. ``V*``, the largest value of any window, sets the tie set: the windows whose value is at
   least :func:`tie_floor` of ``V*`` (within :data:`TIE_TOLERANCE` of it).
2. Among them, the window of the largest rank :attr:`Choice.rank`: the larger secondary value
   (MinStart: the cheaper), then the faster slowest node, the earlier start, then the slowest
   slot listed first (by start, then node), then the earlier step slot (among slots that
   start together; the scan's candidate list grows with each step, and a later step wins
   only by value).

The rule is a function of the set of windows, not of the order they are found in, so the
search may visit them in any order. It keeps :class:`Contenders`: every window found that the
rule may still choose, which is rarely more than one, and the windows it skipped without
evaluating them because one found outranks them (checked again at the end).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

#: Two window values closer than this, relative to their size (and absolutely below 1), are
#: equal. Rounding moves a sum of ``n`` values of one sign by at most ``(n + 2)`` units of
#: 1.1e-16 relative (each value's own rounding, then the additions), 1e-13 for 900 slots; the
#: smallest differences the criteria are made to see are larger: CoP's rule constants (0.05
#: at least) on finish times summed over a whole-log replay (below 2.5e10 on the bundled
#: logs) are 2e-12 of the value. Reasoning in docs/model.md, "Ties".
TIE_TOLERANCE = 1e-12

#: How far a bound summed in another order may fall below the value it bounds, relative to
#: its size: twice the rounding of a sum of up to 900 values (above, once for each sum). Below
#: the tie tolerance, so that a window whose bound only equals the best found is still ruled
#: out by rank.
BOUND_SLACK = TIE_TOLERANCE / 5


def tie_floor(value: float) -> float:
    """The smallest value tied with ``value``."""
    if not math.isfinite(value):
        return value
    return value - TIE_TOLERANCE * (abs(value) + 1.0)


def with_slack(bound):
    """``bound`` raised by :data:`BOUND_SLACK`: above every value it bounds, whatever the order
    of their sums (infinite bounds stay; ``-inf`` only for a float). A float for a float,
    else an array."""
    if isinstance(bound, float):
        return bound + BOUND_SLACK * (abs(bound) + 1.0) if math.isfinite(bound) else bound
    return bound + BOUND_SLACK * (np.abs(bound) + 1.0)


def first_tied(values: np.ndarray) -> int:
    """The first index among the values tied with the largest (the rule on a list in scan
    order, such as MultipleBest's alternatives)."""
    return int(np.argmax(values >= tie_floor(float(np.max(values)))))


def ordered_sum(values: np.ndarray) -> np.ndarray:
    """Row sums added left to right, one column at a time: the same bits on every machine and
    NumPy version (``np.sum`` adds in blocks whose layout is NumPy's to change)."""
    values = np.asarray(values, dtype=float)
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    return np.add.accumulate(values, axis=-1)[..., -1]


def window_value(sigma_value, member_values) -> np.ndarray:
    """The value of windows (rows) from the value of their slowest slot and of their other
    slots: the members' values sorted, added left to right, then the slowest slot's. The
    same set of values always gives the same bits, whichever slots hold them."""
    return sigma_value + ordered_sum(np.sort(member_values, axis=-1))


@dataclass(frozen=True)
class Choice:
    """A window found by the search: enough to rank it and to build it at the end.

    ``step`` is the slot whose start is the window's start, ``sigma`` its slowest slot and
    ``others`` the other slots (indices into the search's candidate slots).
    """

    value: float
    secondary: float
    performance: float  # of the slowest slot: the paper's group
    start: float
    step: int
    sigma: int
    runtime: float
    others: tuple[int, ...]

    @cached_property
    def rank(self) -> tuple[float, float, float, int, int]:
        """The order among tied windows, largest first (rule 2 of the module docstring)."""
        return (self.secondary, self.performance, -self.start, -self.sigma, -self.step)


class Contenders:
    """The windows found so far that the tie rule may still choose, and what they rule out.

    A window ``w`` is never chosen if another ``c`` has a value at least as large and a larger
    rank (whenever ``w`` is tied with the best, so is ``c``); such windows are dropped, and so
    are those below the tie floor of the best value found. What is left is rarely more than
    one window.

    The search may also skip windows before evaluating them (:meth:`outranked`): those whose
    rank a contender exceeds while it is tied with anything they can be worth. That holds
    only as long as no better window turns up later, so each skip is recorded, and
    :meth:`unsettled` names, at the end, the slowest slots of those skipped windows that the
    best value found since no longer covers; the search then evaluates them in full.
    """

    def __init__(self) -> None:
        self.choices: list[Choice] = []
        self.top = -math.inf  # the best value offered
        self.floor = -math.inf  # windows below this value can no longer be chosen
        self.skipping = True  # whether outranked() may rule windows out
        self._skipped: list[Callable[[], tuple]] = []  # each gives (ceiling, *rank) arrays
        self._lowest_cover = math.inf  # no contender that outranked a skip is worth less
        self._highest_skipped = -math.inf  # no window skipped is worth more

    def best(self) -> Choice | None:
        """The window the rule chooses among those offered."""
        return max(self.choices, key=lambda c: c.rank, default=None)

    def offer(self, choice: Choice) -> None:
        """Keep ``choice`` if the rule may still choose it."""
        value = choice.value
        if value > self.top:
            self.top, self.floor = value, tie_floor(value)
            self.choices = [c for c in self.choices if c.value >= self.floor]
        elif not value >= self.floor:  # below it, or NaN
            return
        rank = choice.rank
        if self._ruled_out(value, rank):
            return
        self.choices = [c for c in self.choices if not (value >= c.value and rank > c.rank)]
        self.choices.append(choice)

    def offer_rows(self, value, secondary, performance, start, sigma, step, build) -> None:
        """Offer the rows of a batch (arrays: a value and the parts of a rank each),
        ``build(row)`` making a row's :class:`Choice`: only the rows of the batch that no
        other row of it rules out are built."""
        if len(value) == 0:
            return
        largest = float(np.fmax.reduce(value))  # NaN values are never offered
        rows = np.flatnonzero(value >= max(self.floor, tie_floor(largest)))
        if len(rows) > 1:
            # Best rank first; a row is kept if it has more value than every row before it.
            rows = rows[
                np.lexsort((step[rows], sigma[rows], start[rows], -performance[rows],
                            -secondary[rows]))
            ]  # fmt: skip
            if value[rows[0]] == largest:
                rows = rows[:1]  # the most common case: the best rank has the best value
            else:
                ahead = np.maximum.accumulate(np.concatenate(([-np.inf], value[rows][:-1])))
                rows = rows[value[rows] > ahead]
        for row in rows.tolist():
            rank = (float(secondary[row]), float(performance[row]), -float(start[row]),
                    -int(sigma[row]), -int(step[row]))  # fmt: skip
            if not self._ruled_out(float(value[row]), rank):
                self.offer(build(row))

    def _ruled_out(self, value: float, rank: tuple) -> bool:
        """Whether a window of this value and rank would not be kept (before building it)."""
        return value < self.floor or any(c.value >= value and c.rank >= rank for c in self.choices)

    def outranked(self, ceiling, secondary, performance, start, sigma, step) -> np.ndarray:
        """Which windows (arrays: each of rank at most ``(secondary, performance, -start,
        -sigma, -step)`` and value at most ``ceiling``) a contender outranks while tied with
        them: the search may skip them (recording it with :meth:`skip`; :meth:`unsettled`
        checks the skips exactly, this test need not be)."""
        out = np.zeros(np.shape(ceiling), dtype=bool)
        if not self.skipping:
            return out
        for c in self.choices:
            tied_up_to = _tie_ceiling(c.value)
            if self.top <= tied_up_to:
                out |= (ceiling <= tied_up_to) & _outranks(
                    c, secondary, performance, start, sigma, step
                )
        return out

    def skip(self, highest: float, skipped: Callable[[], tuple]) -> None:
        """Record that windows worth at most ``highest`` were skipped as :meth:`outranked`;
        ``skipped()`` gives their ``(ceiling, secondary, performance, start, sigma, step)``
        (arrays, as there), asked only if :meth:`unsettled` needs them."""
        self._skipped.append(skipped)
        self._lowest_cover = min(self._lowest_cover, min(c.value for c in self.choices))
        self._highest_skipped = max(self._highest_skipped, highest)

    def outranks(self, ceiling: float, rank: tuple[float, float, float, int, int]) -> bool:
        """:meth:`outranked` for one window, its rank a :attr:`Choice.rank`."""
        if not self.skipping:
            return False
        highest = max(self.top, ceiling)
        return any(c.rank > rank and highest <= _tie_ceiling(c.value) for c in self.choices)

    def unsettled(self) -> np.ndarray:
        """The slowest slots of the skipped windows no contender is now sure to outrank: none
        of them is worth more than the best value found or the largest ceiling skipped, so a
        contender tied with that outranks them for good. Forgets the skips."""
        skipped, self._skipped = self._skipped, []
        if not skipped:
            return np.empty(0, dtype=np.int64)
        sure = tie_floor(max(self.top, self._highest_skipped))
        if self._lowest_cover >= sure:
            return np.empty(0, dtype=np.int64)  # each skip's contender stays tied
        records = [np.broadcast_arrays(*record()) for record in skipped]
        _, *rank = (
            np.concatenate([np.ravel(a) for a in column]) for column in zip(*records, strict=True)
        )
        covered = np.zeros(len(rank[0]), dtype=bool)
        for c in self.choices:
            if c.value >= sure:
                covered |= _outranks(c, *rank)
        return np.unique(rank[-2][~covered]).astype(np.int64)


def _tie_ceiling(value: float) -> float:
    """About the largest value tied with ``value`` (the inverse of :func:`tie_floor`, up to
    rounding: for skipping, which :meth:`Contenders.unsettled` checks with tie_floor)."""
    return value + TIE_TOLERANCE * (abs(value) + 1.0)


def _outranks(c: Choice, secondary, performance, start, sigma, step) -> np.ndarray:
    """Whether ``c.rank`` is above the ranks ``(secondary, performance, -start, -sigma,
    -step)`` (arrays; ``secondary`` may be one number), lexicographically."""
    later = (c.sigma < sigma) | ((c.sigma == sigma) & (c.step < step))
    later = (c.start < start) | ((c.start == start) & later)
    later = (c.performance > performance) | ((c.performance == performance) & later)
    if np.ndim(secondary) == 0:
        if c.secondary != secondary:
            return np.full(np.shape(later), c.secondary > secondary)
        return later
    return (c.secondary > secondary) | ((c.secondary == secondary) & later)
