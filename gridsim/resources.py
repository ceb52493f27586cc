"""Resources of nodes and jobs: cores, memory and GPUs, as one small vector of kinds.

Consumes node capacities (one row per node) and what a job asks for; produces the units a node
can hold and whether a request can ever run. Plain data, no planning: the planners of
:mod:`gridsim.scheduling.resource_schedulers` plan on :mod:`gridsim.scheduling.resource_profile`.

Every amount is a non-negative integer of its kind's unit (:data:`RESOURCE_KINDS`: cores,
MiB of memory, GPUs), so comparisons are exact. A resource kind is a column of the capacity
matrix; a new kind (a power budget, licences) is one more name here and one more column.

A request is ``units`` identical units, each needing the vector ``unit``:

* ``p`` processors (a processor count, one core each): ``units=p, unit=(1, 0, 0)``, spread
  over any nodes;
* a total of ``p`` cores with ``m`` MiB per core (SWF field 10 gives memory per processor):
  ``units=p, unit=(1, m, 0)``, spread over any nodes;
* ``n`` nodes x {cores, memory, GPUs} per node (Slurm, Batsim): ``units=n,
  unit=(c, m, g), one_per_node=True``: exactly one unit on each of ``n`` distinct nodes
  (gang-scheduled: all start together).

A platform's nodes are **shared** (consumable cores, memory and GPUs, as Slurm's
``cons_tres``: several jobs on a node as long as every kind fits) or **exclusive** (a job takes
whole nodes, however little of them it uses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

#: The resource kinds, in column order of every capacity and demand vector.
RESOURCE_KINDS: tuple[str, ...] = ("cores", "memory_mb", "gpus")
CORES, MEMORY, GPUS = range(len(RESOURCE_KINDS))
NodeMode = Literal["shared", "exclusive"]
NODE_MODES: tuple[NodeMode, ...] = ("shared", "exclusive")


@dataclass(frozen=True, slots=True)
class ResourceRequest:
    """What a job asks for: ``units`` units of ``unit`` (one amount per resource kind).

    Attributes:
        units: how many units (processors, cores or nodes).
        unit: the amount of each kind one unit needs, in :data:`RESOURCE_KINDS` order.
        one_per_node: each unit on a node of its own (``n`` nodes x per-node amounts).
    """

    units: int
    unit: tuple[int, ...]
    one_per_node: bool = False

    def __post_init__(self) -> None:
        if self.units <= 0:
            raise ValueError(f"expected a positive number of units, got {self.units}")
        if len(self.unit) != len(RESOURCE_KINDS) or min(self.unit) < 0 or max(self.unit) <= 0:
            raise ValueError(f"expected one non-negative amount per kind, not all 0: {self.unit}")

    @property
    def total(self) -> tuple[int, ...]:
        """The amount of each kind the whole job asks for."""
        return tuple(self.units * amount for amount in self.unit)


def processors(count: int) -> ResourceRequest:
    """A processor count: ``count`` cores, one each, on any nodes."""
    return ResourceRequest(count, (1, 0, 0))


def units_per_node(capacity: np.ndarray, request: ResourceRequest) -> np.ndarray:
    """How many units of ``request`` each row of ``capacity`` (nodes x kinds) can hold.

    Any leading shape works (a profile asks for steps x nodes at once). With
    ``one_per_node`` a node holds at most one unit.
    """
    needed = np.asarray(request.unit, dtype=np.int64)
    asked = needed > 0
    held = (capacity[..., asked] // needed[asked]).min(axis=-1)
    return np.minimum(held, 1) if request.one_per_node else held


def capacity_matrix(cores, memory_mb, gpus) -> np.ndarray:
    """Nodes x kinds capacities from one sequence per kind (read-only int64)."""
    matrix = np.column_stack([np.asarray(k, dtype=np.int64) for k in (cores, memory_mb, gpus)])
    matrix.setflags(write=False)
    return matrix


def never_fits(capacity: np.ndarray, request: ResourceRequest) -> str | None:
    """Why ``request`` can never run on nodes of ``capacity`` (all of them idle), or None.

    The same answer in both node modes: an exclusive node holds what a shared one does when
    nothing else runs on it.
    """
    held = units_per_node(capacity, request)
    if int(held.sum()) >= request.units:
        return None
    names = [k for k, amount in zip(RESOURCE_KINDS, request.unit, strict=True) if amount]
    what = " x ".join(f"{a} {k}" for k, a in zip(RESOURCE_KINDS, request.unit, strict=True) if a)
    where = "per node" if request.one_per_node else "each"
    able = int(np.count_nonzero(held))
    return (
        f"{request.units} units of {what} {where}: the nodes hold {int(held.sum())} "
        f"({able} of {len(capacity)} nodes have room for one; kinds asked: {', '.join(names)})"
    )
