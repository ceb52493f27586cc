"""The compiled log replay: whether it is available, and the call that runs it.

Built-in schedulers (``"fcfs"``, ``"easy"``, ``"conservative"``) replay through the C loop of
``_replay.c`` by default; :func:`gridsim.sim.log_replay.replay_log` asks :func:`compiled`
once per replay. A scheduler class (plugins, references in the tests) always runs the Python
loop. ``GRIDSIM_PURE_PYTHON=1`` in the environment forces the Python path (same results,
slower); where the extension was not built (no C compiler at install time) the Python path
runs with one warning per process.
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable
from types import ModuleType

import numpy as np

#: Set to 1 (or any non-empty value but 0) to replay with the pure-Python planners.
PURE_PYTHON_ENV = "GRIDSIM_PURE_PYTHON"
ALGORITHM_CODES = {"fcfs": 0, "easy": 1, "conservative": 2}

_module: ModuleType | None = None
_warned = False


def pure_python_forced() -> bool:
    """Whether the environment asks for the pure-Python planners."""
    return os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0")


def compiled() -> ModuleType | None:
    """The compiled replay module, or None (forced off, or not built: then a warning)."""
    global _module, _warned
    if pure_python_forced():
        return None
    if _module is None:
        try:
            module = importlib.import_module("gridsim.core._replay")
        except ImportError as error:
            if not _warned:
                _warned = True
                warnings.warn(
                    f"gridsim's compiled planning core is not available ({error}); replays "
                    "use the pure-Python planners (same results, several times slower). "
                    "Reinstall with a C compiler to build it, or set "
                    f"{PURE_PYTHON_ENV}=1 to silence this.",
                    RuntimeWarning,
                    stacklevel=3,
                )
            return None
        _module = module
    return _module


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
