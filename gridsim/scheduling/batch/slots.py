"""The slot list of one batch cycle: free slots as Python tuples, sorted, with slot subtraction.

Consumes a ``Profile`` (or its ``SlotTable``); produces the list the window searches walk and
takes each window found out of it [TYTB11, Sec. 2]. A search walks the list slot by slot in
Python, and the cycle subtracts hundreds of windows from a list of a few hundred slots, so a
sorted list of tuples is the cheapest form for both: a subtraction finds the slot by bisection
and replaces it by its remnants in place, where rebuilding or patching NumPy arrays would cost a
few dozen array operations per window.

The result equals ``Profile.occupy`` followed by ``Profile.slot_table()``: the same remnants
(pieces no longer than ``MIN_SLOT_LENGTH`` are dropped) in the same (start, node) order.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from gridsim.model import Slot
from gridsim.profile import MIN_SLOT_LENGTH, Profile, SlotTable

if TYPE_CHECKING:
    from gridsim.scheduling.batch.window import RoughWindow

#: One free slot: ``(start, node, end, performance, price)``; tuples sort by (start, node).
Row = tuple[float, int, float, float, float]


class SlotList:
    """Free slots sorted by (start, node); :meth:`subtract` takes a window's tasks out."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows

    @classmethod
    def of(cls, slots: Profile | SlotTable) -> SlotList:
        """The slots of a profile or a slot table (copied: later subtractions leave it be)."""
        table = slots.slot_table() if isinstance(slots, Profile) else slots
        columns = (table.start, table.node, table.end, table.performance, table.price)
        return cls(list(zip(*(column.tolist() for column in columns), strict=True)))

    def __len__(self) -> int:
        return len(self.rows)

    def subtract(self, window: RoughWindow) -> None:
        """Take each task ``[start, start + runtime)`` out of the slot it was cut from."""
        rows = self.rows
        for slot, runtime in zip(window.slots, window.runtimes, strict=True):
            index = bisect.bisect_left(rows, (slot.start, slot.node))
            start, node, end, performance, price = rows.pop(index)
            finish = window.start + runtime
            if window.start - start > MIN_SLOT_LENGTH:
                bisect.insort(rows, (start, node, window.start, performance, price))
            if end - finish > MIN_SLOT_LENGTH:
                bisect.insort(rows, (finish, node, end, performance, price))

    @staticmethod
    def slot(row: Row) -> Slot:
        return Slot(row[1], row[0], row[2])
