"""A criterion that notes the profile it is asked to search (for the common-random-numbers
contract), named in scenarios as ``crn_witness:Witness``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import ClassVar

from gridsim.selection.criteria import WindowCriterion
from gridsim.selection.placement import InSlotOrder

#: Per search, in order: (the witness's tag, a digest of the profile's slot table).
SEEN: list[tuple[int, str]] = []


def digest(profile) -> str:
    table = profile.slot_table()
    arrays = (table.node, table.start, table.end, table.performance, table.price, table.q)
    return hashlib.sha256(b"".join(array.tobytes() for array in arrays)).hexdigest()


@dataclass(frozen=True)
class Witness(InSlotOrder, WindowCriterion):
    """Earliest finish, noting a digest of every profile it searches under its ``tag``."""

    name: ClassVar[str] = "Witness"
    tag: int = 0

    def value(self, start, runtime):
        return -(start + runtime)

    def search(self, profile, request):
        SEEN.append((self.tag, digest(profile)))
        return super().search(profile, request)
