"""The compiled window-search kernels: whether they are available, and the calls that run them.

``gridsim/core/_search.c`` runs the exact search's steps for the placement criteria (CoP,
PAST) when a step has no budget: the members of every step, the slot values, the rows the
bounds leave out and each row's best members and window value, as
:meth:`gridsim.selection.criteria.SlotCriterion.choose` computes them, and the sigma bounds
of :meth:`~gridsim.selection.criteria.SlotCriterion.sigma_bounds`. The built-in criteria
use it by default; a plugin (a subclass) always runs the Python path, which stays the
reference. ``GRIDSIM_PURE_PYTHON=1`` forces the Python path for these kernels too; where the
extension was not built, the Python path runs with one warning per process.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from gridsim.core.optional import OptionalModule

#: The compiled window search (``_search.c``), or None.
compiled = OptionalModule(
    "gridsim.core._search", "window search", "node-level searches use the pure-Python path"
)


def placement_rows(
    module: ModuleType, slots, step, count: int, found: float, rules: tuple
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The rows of ``step`` (no budget) that the exact search offers, their window values and
    best members (slot indices, ``(rows, count)``, best first); None if a value is not finite
    (the Python path then decides). ``rules``: the criterion's constants, as ``_search.c``
    reads them."""
    rows = len(step.start)
    kept = np.empty(rows, dtype=np.int64)
    value = np.empty(rows)
    members = np.empty((rows, count), dtype=np.int64)
    written = module.placement_choose(
        slots.slot_start, slots.end, slots.performance, slots.by_price,
        step.sigma, step.step, step.start, step.runtime,
        count, found, rules, kept, value, members,
    )  # fmt: skip
    if written < 0:
        return None
    return kept[:written], value[:written], members[:written]


def placement_sigma_bounds(
    module: ModuleType, slots, sigmas: np.ndarray, runtimes: np.ndarray, n: int, rules: tuple
) -> np.ndarray:
    """Each sigma's bound without a budget: its own slot bound plus its ``n - 1`` best
    joiners' (``-inf`` with fewer joiners)."""
    bounds = np.empty(len(sigmas))
    module.placement_sigma_bounds(
        slots.slot_start, slots.start, slots.end, slots.performance,
        np.ascontiguousarray(sigmas, dtype=np.int64), np.ascontiguousarray(runtimes, dtype=float),
        n, rules, bounds,
    )  # fmt: skip
    return bounds
