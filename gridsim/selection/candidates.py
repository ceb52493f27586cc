"""The candidate slots of one request, and the members of many search steps at once as bitsets.

:class:`Candidates` are the slots eligible for a request, sorted by effective start: what every
part of the window search reads. :class:`MemberSets` consumes them and the steps of the search
(slowest slot ``sigma``, step slot, finish time); produces each step's ``count`` cheapest
members, the subset the Lite and window-level criteria take [TY18, Sec. 3.3; TY19, Sec. 4.2].

A slot is a member of a step when it is listed no later than the step's slot, at least as fast as
``sigma``, free until the step's finish, and not ``sigma`` itself [TY18, Sec. 3.2, rule 3(c)v.B].
Each of the first three conditions is a threshold on one slot attribute (list index, performance,
end), so the slots meeting it form one of ``m + 1`` nested sets, computed once per request. Each
set is a bitset over the slots numbered in price order (ties: list order), so a step's members are
the AND of three rows of these tables, and its cheapest members are the lowest set bits. A step
costs O(m / 64) word operations instead of a scan over the slots in price order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from gridsim.model import Request
from gridsim.profile import SlotTable

_BITS = 64


@dataclass(frozen=True)
class MemberSets:
    """The nested slot sets of the three member conditions, as bitsets in price order.

    Bit ``r`` of word ``r // 64`` stands for the slot of price rank ``r`` (``by_rank[r]``).
    """

    by_rank: np.ndarray  # (m,) slot index of each price rank
    bit: np.ndarray  # (m, words) each slot alone
    listed: np.ndarray  # (m, words) row i: the slots listed at or before slot i
    end: np.ndarray  # (m,) slot ends, ascending
    free_until: np.ndarray  # (m + 1, words) row k: the slots whose end is at least end[k]
    performance: np.ndarray  # (m,) slot performances, ascending
    fast_enough: np.ndarray  # (m + 1, words) row k: slots at least as fast as performance[k]

    @classmethod
    def of(cls, slots: Candidates) -> MemberSets:
        m = len(slots)
        words = max(1, -(-m // _BITS))
        by_rank = np.lexsort((np.arange(m), slots.price))
        rank = np.empty(m, dtype=np.int64)
        rank[by_rank] = np.arange(m)
        bit = np.zeros((m, words), dtype=np.uint64)
        bit[np.arange(m), rank // _BITS] = np.left_shift(
            np.uint64(1), (rank % _BITS).astype(np.uint64)
        )
        by_end = np.argsort(slots.end, kind="stable")
        by_performance = np.argsort(slots.performance, kind="stable")
        return cls(
            by_rank=by_rank,
            bit=bit,
            listed=np.bitwise_or.accumulate(bit, axis=0),
            end=slots.end[by_end],
            free_until=_from_each(bit[by_end]),
            performance=slots.performance[by_performance],
            fast_enough=_from_each(bit[by_performance]),
        )

    def members(
        self, step: np.ndarray, finish: np.ndarray, sigma: np.ndarray, performance: np.ndarray
    ) -> np.ndarray:
        """(rows, words) members of each step: listed no later than ``step``, free until
        ``finish``, at least as fast as ``performance``, and not ``sigma``."""
        members = self.listed[step]
        members &= self.free_until[np.searchsorted(self.end, finish)]
        members &= self.fast_enough[np.searchsorted(self.performance, performance)]
        members &= ~self.bit[sigma]
        return members

    def free_from(self, finish: float) -> np.ndarray:
        """(words,) the slots whose end is at least ``finish``."""
        return self.free_until[np.searchsorted(self.end, finish)]

    def cheapest(self, members: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``count`` cheapest slots of each row of ``members``, cheapest first.

        Returns ``(slots, found)``: slot indices ``(rows, count)``, ``-1`` past the members a
        row has, and how many each row has (at most ``count``).
        """
        rows, words = members.shape
        chosen = np.full(rows * count, -1, dtype=np.int64)
        per_word = np.bitwise_count(members).astype(np.int64).ravel()
        through = np.cumsum(per_word)
        row_start = through[::words] - per_word[::words]
        found = np.minimum(through[words - 1 :: words] - row_start, count)
        # Members of the row in its earlier words: the rank of a word's lowest bit in the row.
        before = through - per_word - np.repeat(row_start, words)
        # Only words that hold one of the row's first ``count`` members are read, most
        # wanted bits first, so that the words still read at the k-th bit are a prefix.
        wanted = np.minimum(count - before, per_word)
        word = np.flatnonzero((before < count) & (per_word > 0))
        # (A stable sort of small integers: NumPy sorts them by radix.)
        order = (count - wanted[word]).astype(np.min_scalar_type(count))
        word = word[np.argsort(order, kind="stable")]
        reading = np.searchsorted(-wanted[word], -np.arange(1, count + 1), side="right")
        value = members.ravel()[word]
        row, word_in_row = np.divmod(word, words)
        target = row * count + before[word]
        first_bit = word_in_row * _BITS
        for k, n in enumerate(reading):
            value, target, first_bit = value[:n], target[:n], first_bit[:n]
            lowest = value & -value
            chosen[target + k] = first_bit + np.bitwise_count(lowest - np.uint64(1))
            value ^= lowest
        return np.where(chosen >= 0, self.by_rank[chosen], -1).reshape(rows, count), found


def _from_each(bits: np.ndarray) -> np.ndarray:
    """(m + 1, words): row k is the union of ``bits[k:]`` (row m is empty)."""
    union = np.zeros((len(bits) + 1, bits.shape[1]), dtype=np.uint64)
    union[:-1] = np.bitwise_or.accumulate(bits[::-1], axis=0)[::-1]
    return union


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
        if request.nodes_allowed is not None:
            keep &= np.isin(table.node, request.nodes_allowed)
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
            price=_prices(table, request)[keep][order],
            q=table.q[keep][order],
        )

    def __len__(self) -> int:
        return len(self.start)

    @cached_property
    def by_price(self) -> np.ndarray:
        """Slot indices in price order (ties: list order), the order of a step's columns."""
        return np.argsort(self.price, kind="stable")

    @cached_property
    def member_sets(self) -> MemberSets:
        """Bitsets for the members of many steps at once (built on first use)."""
        return MemberSets.of(self)


def _prices(table: SlotTable, request: Request) -> np.ndarray:
    """Each slot's price for this request: its node's, plus what the request's resources
    cost on that node (core-, GiB- and GPU-hour prices, ``Request.resource_price``)."""
    if request.resource_price is None:
        return table.price
    return table.price + np.asarray(request.resource_price, dtype=np.float64)[table.node]
