"""The compiled node-level core: whether it is available, and the calls that run it.

``gridsim/core/_window.c`` runs the whole window search (:func:`find_window`) for BFfinish,
CoP and PAST when a request has no budget: the candidates, the visiting order, every step and
the tie rule, so that it chooses the window
:func:`gridsim.selection.window_search.find_window` chooses, bit for bit
(:func:`gridsim.selection.placement.compiled_window` decides when it runs). ``_search.c``
holds the kernels that the Python search calls for CoP and PAST: the exact search's steps
without a budget (the members of every step, the slot values, the rows the bounds leave out
and each row's best members and window value, as
:meth:`gridsim.selection.criteria.SlotCriterion.choose` computes them) and the sigma bounds
of :meth:`~gridsim.selection.criteria.SlotCriterion.sigma_bounds`. The same module patches
the profile's slot table (``_slot_table.c``, for :class:`gridsim.profile.Profile`) and runs
the planners' re-planning test (``_earlier_windows.c``, for
:func:`gridsim.scheduling.earlier_windows.may_move_earlier`). The built-in criteria use them
by default; a plugin (a subclass) always runs the Python search, which stays the reference.
``GRIDSIM_PURE_PYTHON=1`` forces the Python path for all of them; where the extension was not
built, the Python path runs with one warning per process.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from gridsim.core.optional import OptionalModule
from gridsim.model import Request, Slot, Window

#: The compiled node-level core (the extension ``gridsim.core._search``), or None.
compiled = OptionalModule(
    "gridsim.core._search",
    "node-level core",
    "node-level searches and profiles use the pure-Python path",
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


#: What :func:`find_window` gives when the compiled search leaves the request to Python.
NOT_COMPILED = object()


def find_window(module: ModuleType, table, request: Request, rules: tuple):
    """The window the search chooses for ``request`` (no budget) in ``table`` (a
    :class:`~gridsim.profile.SlotTable`), None if none fits, or :data:`NOT_COMPILED` if a
    value is not finite (the Python search then decides)."""
    eligible = None
    if request.nodes_allowed is not None:
        eligible = np.isin(table.node, request.nodes_allowed).astype(np.uint8)
    price = table.price
    if request.resource_price is not None:
        price = price + np.asarray(request.resource_price, dtype=np.float64)[table.node]
    found = module.placement_find(
        table.node, table.start, table.end, table.performance, price, eligible,
        request.n, request.volume, request.min_performance, request.earliest_start,
        request.time_quantum, rules,
    )  # fmt: skip
    if found is None:
        return None
    if found is False:
        return NOT_COMPILED
    value, start, runtime, (sigma, *others) = found
    # The window as window_search._build_window builds it: nodes in order, the cost summed
    # sigma's first, then the others' in the candidates' order.
    cost = runtime * float(price[sigma]) + sum(runtime * float(price[i]) for i in others)
    chosen = sorted((sigma, *others), key=lambda i: int(table.node[i]))
    return Window(
        start=start,
        runtime=runtime,
        nodes=tuple(int(table.node[i]) for i in chosen),
        slots=tuple(
            Slot(int(table.node[i]), float(table.start[i]), float(table.end[i])) for i in chosen
        ),
        cost=float(cost),
        criterion_value=value,
    )
