"""Availability profile: the free slots of every node over a scheduling horizon.

Consumes nodes and their busy intervals (local load, reservations); produces the slot list sorted
by start time that every window search reads, and takes reservations of windows back in. Pure
Python and NumPy, no simulation clock: the planning code calls it directly.

The horizon edges count as neighbours: a slot that opens at the horizon start has its
``L_left`` measured from there, and one that runs to the horizon end has ``L_right`` measured to
it (docs/model.md, "Neighbour distances at the edges"). A horizon start of ``-inf`` means no
neighbour on the left: such slots have an infinite ``L_left``.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from gridsim.core import search as compiled_search
from gridsim.model import Node, Slot, Window

#: Free intervals shorter than this are dropped when slots are split (float dust).
MIN_SLOT_LENGTH = 1e-9

#: Free intervals ending this long before the present are forgotten (far above float dust,
#: far below any job length).
FORGET_MARGIN = 1e-6


@dataclass(frozen=True)
class SlotTable:
    """The profile's slots as parallel arrays sorted by (start, node): the search's input.

    Node attributes are repeated per slot so a search never indexes back into the nodes.
    """

    node: np.ndarray
    start: np.ndarray
    end: np.ndarray
    performance: np.ndarray
    price: np.ndarray
    q: np.ndarray

    def __len__(self) -> int:
        return len(self.start)

    @property
    def length(self) -> np.ndarray:
        return self.end - self.start

    def slot(self, index: int) -> Slot:
        return Slot(int(self.node[index]), float(self.start[index]), float(self.end[index]))


class Profile:
    """Free intervals per node over ``[horizon_start, horizon_end)``.

    Args:
        nodes: the environment's nodes; ``nodes[i].id`` must be ``i``.
        busy: per node, the busy intervals ``(start, end)`` known in advance (local load).
        horizon_start: the scheduling horizon's start.
        horizon_end: the scheduling horizon's end; it may be infinite.
    """

    def __init__(
        self,
        nodes: Sequence[Node],
        busy: Sequence[Iterable[tuple[float, float]]] | None = None,
        horizon_start: float = 0.0,
        horizon_end: float = float("inf"),
    ) -> None:
        if any(node.id != i for i, node in enumerate(nodes)):
            raise ValueError("node ids must be 0..N-1 in order")
        self.nodes = tuple(nodes)
        self.horizon_start = horizon_start
        self.horizon_end = horizon_end
        self._free: list[list[tuple[float, float]]] = [
            [(horizon_start, horizon_end)] for _ in nodes
        ]
        self._table: SlotTable | None = None
        #: Every node's performance, price and q, by node id (a new slot row's columns).
        self._node_columns = tuple(
            np.array([getattr(node, name) for node in self.nodes], dtype=float)
            for name in ("performance", "price", "q")
        )
        for node_id, intervals in enumerate(busy or ()):
            for start, end in intervals:
                self.occupy(node_id, start, end)

    def copy(self) -> Profile:
        clone = Profile.__new__(Profile)
        clone.nodes = self.nodes
        clone.horizon_start = self.horizon_start
        clone.horizon_end = self.horizon_end
        clone._free = [list(intervals) for intervals in self._free]
        clone._table = self._table
        clone._node_columns = self._node_columns
        return clone

    # -- queries ---------------------------------------------------------------------------

    def free_intervals(self, node_id: int) -> list[tuple[float, float]]:
        return list(self._free[node_id])

    def slots(self) -> list[Slot]:
        """All free slots sorted by (start, node)."""
        table = self.slot_table()
        return [table.slot(i) for i in range(len(table))]

    def slot_table(self) -> SlotTable:
        """The slots as arrays sorted by (start, node); cached until the profile changes."""
        if self._table is None:
            self._table = self._build_table()
        return self._table

    def holds(self, window: Window) -> bool:
        """Whether ``window`` could be reserved as it is: its nodes free over its span."""
        return all(self.is_free(i, window.start, window.finish) for i in window.nodes)

    def is_free(self, node_id: int, start: float, end: float) -> bool:
        intervals = self._free[node_id]
        i = bisect.bisect_right(intervals, (start, float("inf"))) - 1
        return i >= 0 and intervals[i][0] <= start and end <= intervals[i][1]

    def enclosing_slot(self, node_id: int, start: float, end: float) -> Slot:
        """The free slot of a node that contains ``[start, end)``."""
        intervals = self._free[node_id]
        i = bisect.bisect_right(intervals, (start, float("inf"))) - 1
        if i < 0 or not (intervals[i][0] <= start and end <= intervals[i][1]):
            raise ValueError(f"node {node_id} is not free over [{start}, {end})")
        return Slot(node_id, *intervals[i])

    def with_enclosing_slots(self, window: Window) -> Window:
        """The same window with its slots taken from this profile (for neighbour distances)."""
        slots = tuple(
            self.enclosing_slot(node_id, window.start, window.finish) for node_id in window.nodes
        )
        return replace(window, slots=slots)

    # -- changes ---------------------------------------------------------------------------

    def occupy(self, node_id: int, start: float, end: float) -> None:
        """Mark ``[start, end)`` of a node busy; parts already busy stay busy."""
        if end <= start:
            return
        kept: list[tuple[float, float]] = []
        for a, b in self._free[node_id]:
            if b <= start or a >= end:
                kept.append((a, b))
                continue
            if start - a > MIN_SLOT_LENGTH:
                kept.append((a, start))
            if b - end > MIN_SLOT_LENGTH:
                kept.append((end, b))
        self._free[node_id] = kept
        self._table = None

    def occupy_updating_table(self, intervals: Iterable[tuple[int, float, float]]) -> None:
        """``occupy`` each ``(node_id, start, end)``, then patch the cached slot table.

        Only the rows of the nodes touched change, so they are replaced and the rows re-sorted
        by (start, node): a few NumPy operations instead of the Python loop over every node of
        a full rebuild. The batch cycle subtracts hundreds of windows per cycle and needs the
        table after each one. The result equals ``slot_table()`` after plain ``occupy`` calls.
        """
        table = self._table
        touched = set()
        for node_id, start, end in intervals:
            self.occupy(node_id, start, end)
            touched.add(node_id)
        self._patch(table, touched)

    def release_updating_table(self, intervals: Iterable[tuple[int, float, float]]) -> None:
        """``release`` each ``(node_id, start, end)``, then patch the cached slot table (as
        :meth:`occupy_updating_table` does): planners release a window and search again."""
        table = self._table
        touched = set()
        for node_id, start, end in intervals:
            self.release(node_id, start, end)
            touched.add(node_id)
        self._patch(table, touched)

    def _patch(self, table: SlotTable | None, touched: set[int]) -> None:
        """Replace the rows of the ``touched`` nodes of ``table`` (the table before the change;
        none: nothing to patch) by their free intervals now, in (start, node) order: compiled
        where the extension is built (``gridsim/core/_slot_table.c``, the same table)."""
        if table is None or not touched:
            return
        module = compiled_search.compiled()
        if module is not None:
            columns = module.patch_table(
                table.node, table.start, table.end, table.performance, table.price, table.q,
                list(touched), self._free, *self._node_columns,
            )  # fmt: skip
            node, *values = columns
            self._table = SlotTable(
                np.frombuffer(node, dtype=np.int64), *(np.frombuffer(v) for v in values)
            )
            return
        touched_ids = sorted(touched)
        is_touched = np.zeros(len(self.nodes), dtype=bool)
        is_touched[touched_ids] = True
        keep = ~is_touched[table.node]
        new_rows = [
            (node_id, a, b, self.nodes[node_id])
            for node_id in touched_ids
            for a, b in self._free[node_id]
        ]

        def merged(column: np.ndarray, values: list[float] | list[int], dtype: type) -> np.ndarray:
            return np.concatenate((column[keep], np.asarray(values, dtype=dtype)))

        node = merged(table.node, [row[0] for row in new_rows], np.int64)
        start = merged(table.start, [row[1] for row in new_rows], float)
        order = np.lexsort((node, start))
        self._table = SlotTable(
            node=node[order],
            start=start[order],
            end=merged(table.end, [row[2] for row in new_rows], float)[order],
            performance=merged(table.performance, [row[3].performance for row in new_rows], float)[
                order
            ],
            price=merged(table.price, [row[3].price for row in new_rows], float)[order],
            q=merged(table.q, [row[3].q for row in new_rows], float)[order],
        )

    def forget_before(self, time: float) -> None:
        """Drop the free intervals that ended before ``time`` (the simulation's present).

        Every search from then on starts at ``time`` or later and every release begins there,
        so such an interval is never a candidate and never merges again: keeping it only
        lengthens the slot table every search reads (by thousands of slots after a few
        thousand jobs). Intervals ending within :data:`FORGET_MARGIN` of ``time`` are kept.
        """
        cutoff = time - FORGET_MARGIN
        forgot = False
        for intervals in self._free:
            if intervals and intervals[0][1] < cutoff:
                kept = next((k for k, (_, b) in enumerate(intervals) if b >= cutoff), None)
                del intervals[: len(intervals) if kept is None else kept]
                forgot = True
        table = self._table
        if forgot and table is not None:
            keep = table.end >= cutoff
            self._table = SlotTable(
                node=table.node[keep],
                start=table.start[keep],
                end=table.end[keep],
                performance=table.performance[keep],
                price=table.price[keep],
                q=table.q[keep],
            )

    def reserve(self, window: Window) -> None:
        """Take a window's tasks out of the free slots (slot subtraction).

        Raises:
            ValueError: a task does not fit inside one free slot of its node.
        """
        for node_id in window.nodes:
            if not self.is_free(node_id, window.start, window.finish):
                raise ValueError(
                    f"node {node_id} is not free over [{window.start}, {window.finish})"
                )
        self.occupy_updating_table(
            (node_id, window.start, window.finish) for node_id in window.nodes
        )

    def release(self, node_id: int, start: float, end: float) -> None:
        """Give ``[start, end)`` of a node back, merging it with touching free intervals."""
        if end <= start:
            return
        intervals = self._free[node_id]
        merged_start, merged_end = start, end
        kept = []
        for a, b in intervals:
            if b < merged_start - MIN_SLOT_LENGTH or a > merged_end + MIN_SLOT_LENGTH:
                kept.append((a, b))
            else:
                merged_start, merged_end = min(a, merged_start), max(b, merged_end)
        bisect.insort(kept, (merged_start, merged_end))
        self._free[node_id] = kept
        self._table = None

    def release_window(self, window: Window) -> None:
        self.release_updating_table(
            (node_id, window.start, window.finish) for node_id in window.nodes
        )

    # -- internals -------------------------------------------------------------------------

    def _build_table(self) -> SlotTable:
        node_ids, starts, ends = [], [], []
        for node_id, intervals in enumerate(self._free):
            for a, b in intervals:
                node_ids.append(node_id)
                starts.append(a)
                ends.append(b)
        node = np.asarray(node_ids, dtype=np.int64)
        start = np.asarray(starts, dtype=float)
        end = np.asarray(ends, dtype=float)
        order = np.lexsort((node, start))
        node, start, end = node[order], start[order], end[order]
        performance = np.array([n.performance for n in self.nodes], dtype=float)
        price = np.array([n.price for n in self.nodes], dtype=float)
        q = np.array([n.q for n in self.nodes], dtype=float)
        return SlotTable(
            node=node,
            start=start,
            end=end,
            performance=performance[node] if len(node) else performance[:0],
            price=price[node] if len(node) else price[:0],
            q=q[node] if len(node) else q[:0],
        )
