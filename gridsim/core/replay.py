"""The compiled log replays: whether they are available, and the calls that run them.

Built-in schedulers (``"fcfs"``, ``"easy"``, ``"conservative"``) replay through the C loops of
``_replay.c`` (a processor count) and ``_resource_replay.c`` (nodes with cores, memory and
GPUs) by default; :func:`gridsim.sim.log_replay.replay_log` and
:func:`~gridsim.sim.log_replay.replay_resources` ask :func:`compiled` once per replay. A
scheduler class (plugins, references in the tests) always runs the Python loop.
``GRIDSIM_PURE_PYTHON=1`` in the environment forces the Python path (same results, slower);
where the extension was not built (no C compiler at install time) the Python path runs with
one warning per process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType

import numpy as np

from gridsim.core.optional import OptionalModule
from gridsim.resources import NodeMode, ResourceRequest, never_fits
from gridsim.scheduling.resource_profile import Allocation

ALGORITHM_CODES = {"fcfs": 0, "easy": 1, "conservative": 2}

#: The compiled replay module (``_replay.c`` and ``_resource_replay.c``), or None.
compiled = OptionalModule(
    "gridsim.core._replay", "planning core", "replays use the pure-Python planners"
)


def replay_compiled(
    module: ModuleType,
    arrays: dict[str, np.ndarray],
    machine: int,
    algorithm: str,
    *,
    together: bool,
    record_nodes: bool,
    on_progress: Callable[[float], None] | None,
    progress_every: int,
) -> tuple[np.ndarray, np.ndarray, int, int, dict[str, int], list[tuple[int, ...]] | None]:
    """Run the C replay on jobs in priority order (``arrays``: submit, processors, estimate,
    duration); returns start times, first reservations, peak processors, events, counters and
    the node ids per job (priority order), as the Python loop computes them.

    Raises:
        ValueError: a job larger than the machine (the message of the Python planners).
        RuntimeError: a broken planning invariant (``_replay.PlanningError``).
    """
    count = len(arrays["submit"])
    start = np.full(count, np.nan)
    first_reservation = np.full(count, np.nan)
    peak, events, compressions, scans, moves, nodes = module.replay(
        np.ascontiguousarray(arrays["submit"], dtype=np.float64),
        np.ascontiguousarray(arrays["processors"], dtype=np.int64),
        np.ascontiguousarray(arrays["estimate"], dtype=np.float64),
        np.ascontiguousarray(arrays["duration"], dtype=np.float64),
        machine,
        ALGORITHM_CODES[algorithm],
        together,
        record_nodes,
        on_progress,
        progress_every,
        start,
        first_reservation,
    )
    counters = {}
    if algorithm == "conservative":
        counters = {
            "compressions": compressions,
            "compression_scans": scans,
            "compression_moves": moves,
        }
    return start, first_reservation, peak, events, counters, nodes


def replay_resources_compiled(
    module: ModuleType,
    arrays: dict[str, np.ndarray],
    requests: Sequence[ResourceRequest],
    capacity: np.ndarray,
    mode: NodeMode,
    algorithm: str,
    *,
    on_progress: Callable[[float], None] | None,
    progress_every: int,
) -> tuple[np.ndarray, np.ndarray, int, int, dict[str, int], list[Allocation]]:
    """Run the C replay on nodes of ``capacity`` (nodes x kinds) for jobs in priority order
    (``arrays``: submit, estimate, duration; ``requests``); returns start times, first
    reservations, peak cores, events, counters and every job's ``(node, units)`` pairs, as
    the Python planners of :mod:`gridsim.scheduling.resource_schedulers` compute them.

    Raises:
        ValueError: a job no set of nodes holds (the message of the Python planners).
        RuntimeError: a broken planning invariant (``_replay.PlanningError``).
    """
    count = len(arrays["submit"])
    start = np.full(count, np.nan)
    first_reservation = np.full(count, np.nan)
    try:
        peak, events, compressions, moves, allocation = module.replay_resources(
            requests,
            np.ascontiguousarray(capacity, dtype=np.int64),
            mode == "exclusive",
            np.ascontiguousarray(arrays["submit"], dtype=np.float64),
            np.ascontiguousarray(arrays["estimate"], dtype=np.float64),
            np.ascontiguousarray(arrays["duration"], dtype=np.float64),
            ALGORITHM_CODES[algorithm],
            on_progress,
            progress_every,
            start,
            first_reservation,
        )
    except ValueError as error:
        if error.args[:1] != ("never fits",):
            raise
        position = error.args[1]
        why = never_fits(capacity, requests[position])
        raise ValueError(f"job at position {position} never fits: {why}") from None
    counters = {}
    if algorithm == "conservative":
        counters = {"compressions": compressions, "compression_moves": moves}
    return start, first_reservation, peak, events, counters, allocation
